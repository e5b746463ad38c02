import type { ByteOut } from './byte-out'

/**
 * Utf8 column values written into CSV fields straight from the column bytes (JSON strings:
 * json-string.ts). The store's bytes are valid UTF-8 (the builder encodes JS strings), so a
 * value with nothing to quote is its own text, non-ASCII included.
 */

/**
 * Formula injection (OWASP, CSV Injection): a spreadsheet that opens the file runs a cell that
 * begins with `=`, `+`, `-` or `@` (and, in some, a tab or CR before one) as a formula. The
 * texts come from feeds the fetcher treats as untrusted, so such a text cell is written with a
 * leading `'`, which spreadsheets show as text and do not display. A cell that is a plain decimal
 * number (`-4.5`, `+3`, `-1e5`) stays as it is: it is a number to any reader, not a formula.
 * Only text columns pass here; numeric columns are written as numbers by their own writers.
 */
export const FORMULA_LEAD = new Uint8Array(256)
for (const c of '=+-@\t\r') FORMULA_LEAD[c.charCodeAt(0)] = 1

const PLAIN_NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/

/** True when the text src[a..b) must be written with a leading `'` (see FORMULA_LEAD). */
export function csvNeedsLead(src: Buffer, a: number, b: number): boolean {
  if (a >= b || FORMULA_LEAD[src[a]!] === 0) return false
  // Bounded: a number longer than 64 bytes is not one a spreadsheet reads back exactly anyway.
  return b - a > 64 || !PLAIN_NUMBER.test(src.toString('latin1', a, b))
}

/** True when the text `s` must be written with a leading `'`. */
export function textNeedsLead(s: string): boolean {
  return s.length > 0 && FORMULA_LEAD[s.charCodeAt(0) & 0xff] === 1 && s.charCodeAt(0) < 0x80 && (s.length > 64 || !PLAIN_NUMBER.test(s))
}

const QUOTE_MARK = 0x27

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

/** src[a..b) as one CSV field: as is, or quoted with quotes doubled when it needs it; a formula-leading text gets its `'`. */
export function writeCsvField(out: ByteOut, src: Buffer, a: number, b: number): void {
  const lead = csvNeedsLead(src, a, b)
  if (!csvNeedsQuotes(src, a, b)) {
    if (lead) out.byte(QUOTE_MARK)
    return out.copy(src, a, b)
  }
  out.byte(0x22)
  if (lead) out.byte(QUOTE_MARK)
  writeCsvQuotedInner(out, src, a, b)
  out.byte(0x22)
}

const NEEDS_QUOTES = /[",\r\n]/

/** A text as one CSV field (RFC 4180 §2.6, §2.7), a formula-leading one with its `'`. */
export function csvField(s: string): string {
  const t = textNeedsLead(s) ? "'" + s : s
  return NEEDS_QUOTES.test(t) ? '"' + t.replaceAll('"', '""') + '"' : t
}
