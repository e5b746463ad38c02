import type { ByteOut } from './byte-out'

/**
 * Utf8 column values written into CSV fields straight from the column bytes (JSON strings:
 * json-string.ts). The store's bytes are valid UTF-8 (the builder encodes JS strings), so a
 * value with nothing to quote is its own text, non-ASCII included.
 */

/** True when src[a..b) holds a byte that makes a CSV field need quotes (RFC 4180 §2.6: comma, quote, CR, LF). */
export function csvNeedsQuotes(src: Buffer, a: number, b: number): boolean {
  for (let i = a; i < b; i++) {
    const c = src[i]!
    if (c === 0x2c || c === 0x22 || c === 0x0d || c === 0x0a) return true
  }
  return false
}

/** The bytes of src[a..b) inside a quoted CSV field, quotes doubled (RFC 4180 §2.7); the caller writes the outer quotes. */
export function writeCsvQuotedInner(out: ByteOut, src: Buffer, a: number, b: number): void {
  let from = a
  for (let i = a; i < b; i++) {
    if (src[i] === 0x22) {
      out.copy(src, from, i + 1)
      out.byte(0x22)
      from = i + 1
    }
  }
  out.copy(src, from, b)
}

/** src[a..b) as one CSV field: as is, or quoted with quotes doubled when it needs it. */
export function writeCsvField(out: ByteOut, src: Buffer, a: number, b: number): void {
  if (!csvNeedsQuotes(src, a, b)) return out.copy(src, a, b)
  out.byte(0x22)
  writeCsvQuotedInner(out, src, a, b)
  out.byte(0x22)
}

const NEEDS_QUOTES = /[",\r\n]/

/** A text as one CSV field (RFC 4180 §2.6, §2.7). */
export function csvField(s: string): string {
  return NEEDS_QUOTES.test(s) ? '"' + s.replaceAll('"', '""') + '"' : s
}
