import type { Utf8Column } from '../../store/schema'
import { bufferOf, type ByteSink } from './byte-sink'

/**
 * The inside of a JSON string literal (RFC 8259 §7) for UTF-8 bytes from a column, as text or
 * into a byte sink, with exactly JSON.stringify's escapes.
 */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\u2028\u2029]/

/** The inside of a JSON string literal for a decoded value (JSON.stringify's escapes). */
function escaped(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s).slice(1, -1) : s
}

/**
 * The inside of the JSON string literal of a Utf8 value (no quotes). Plain printable ASCII
 * (checked on the bytes: 0x20..0x7e except '"' and '\') is its own JSON text; anything else is
 * decoded as UTF-8 (invalid bytes become U+FFFD) and escaped by JSON.stringify.
 */
export function utf8Inner(col: Utf8Column, a: number, b: number): string {
  const buf = bufferOf(col.data)
  return plainJson(buf, a, b) ? buf.toString('latin1', a, b) : escaped(buf.toString('utf8', a, b))
}

/** The bytes of utf8Inner(data[a..b)) into the sink. */
export function writeInner(sink: ByteSink, data: Buffer, a: number, b: number): void {
  if (plainJson(data, a, b)) sink.copy(data, a, b)
  else sink.text(escaped(data.toString('utf8', a, b)))
}

/**
 * True when data[a..b) is plain printable ASCII (0x20..0x7e except '"' and '\'): its own JSON
 * string text. Branch-free over the bytes (values are short; most are plain).
 */
export function plainJson(data: Uint8Array, a: number, b: number): boolean {
  let plain = 1
  for (let i = a; i < b; i++) {
    const c = data[i]
    plain &= c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c ? 1 : 0
  }
  return plain === 1
}
