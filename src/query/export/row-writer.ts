import type { ByteOut } from './byte-out'

/**
 * One export format, written chunk by chunk into a reusable ByteOut: `start` before the first
 * row, `rows` per chunk of rows in order, `end` after the last.
 */
export interface RowWriter {
  start(out: ByteOut): void
  rows(out: ByteOut, rows: Int32Array, n: number): void
  end(out: ByteOut): void
  /**
   * What to append when the export is cut short (timeout), so a reader sees it failed;
   * undefined when the format has no such row (Arrow: its reader misses the end-of-stream marker).
   */
  failure(detail: string): string | undefined
}
