import { parseUtc } from '../../normalize/utc-time'
import { RecordError } from '../source-error'
import type { IndexColumn, IndexTableLayout } from './index-table-label'

/**
 * The rows of a PDS3 ASCII table, read from its bytes as its label lays them out
 * (index-table-label.ts). One pass over the bytes: rows are found by their line feeds, so a row
 * cut short or padded costs that row only, never the alignment of the rows after it.
 *
 * Every row is checked against the label, and a row that does not match is a bad row (reported
 * with the reason; the caller refuses it or, with --skip-bad, counts it):
 *   - its length, CR LF included, is the label's ROW_BYTES (a bare LF, one byte less, is accepted:
 *     the columns stand where they did);
 *   - it holds printable ASCII and tabs only (PDS3 ASCII tables; a UTF-8 or binary byte is a bad row,
 *     not text to decode);
 *   - each value sits where its column says: a value opened by a quote is closed by one right
 *     after its BYTES, and no value holds a tab or a quote, so widths that cut across fields
 *     show on the first row they touch;
 *   - each value is what its DATA_TYPE says: ASCII_INTEGER a safe integer, ASCII_REAL a finite
 *     number, TIME and DATE ISO 8601 instants.
 * Blank values, the PDS3 symbolic literals N/A, UNK and NULL, and the column's stated missing
 * constants read as null. ROWS is checked against the rows found: rows missing at the end, or
 * more than the label states, are one more bad entry (`rows`).
 */
export type Cell = string | number | null
export type RowValues = Array<Cell | Cell[]>

export interface RowSink {
  row(values: RowValues, n: number): void
  /** A row (1-based), or `rows` for a ROWS mismatch, that does not match the label. */
  bad(where: number | 'rows', reason: string): void
}

const LF = 10
const CR = 13
const TAB = 9
const QUOTE = 34
const SYMBOLIC = new Set(['', 'N/A', 'UNK', 'NULL'])
const INTEGER = /^[+-]?\d{1,16}$/
// `\d+(\.\d*)?`, not `\d+\.?\d*`: the latter backtracks quadratically on a long run of digits that fails.
const REAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,4})?$/

const ascii = new TextDecoder('latin1')

export function readIndexRows(bytes: Uint8Array, layout: IndexTableLayout, sink: RowSink): void {
  const { rowBytes, rows } = layout
  let at = layout.offset
  let n = 0
  while (at < bytes.length && n < rows) {
    let end = bytes.indexOf(LF, at)
    const next = end < 0 ? bytes.length : end + 1
    if (end < 0) end = bytes.length
    n++
    const line = bytes.subarray(at, end) // without its LF
    at = next
    const why = lineProblem(line, rowBytes)
    if (why) {
      sink.bad(n, why)
      continue
    }
    try {
      sink.row(rowValues(ascii.decode(line), layout.columns), n)
    } catch (e) {
      if (!(e instanceof RecordError)) throw e
      sink.bad(n, e.reason)
    }
  }
  if (n < rows) sink.bad('rows', `the label states ROWS ${rows}; the table ends after ${n}`)
  else if (!onlyLineEnds(bytes, at)) sink.bad('rows', `the table holds more than the label's ROWS ${rows}: the rest is not read`)
}

/** Why the bytes of one row (without its LF) cannot be a row of the table, or undefined. */
function lineProblem(line: Uint8Array, rowBytes: number): string | undefined {
  const crlf = line.length > 0 && line[line.length - 1] === CR
  const length = line.length + 1 // its LF
  if (length !== rowBytes && !(length === rowBytes - 1 && !crlf)) {
    return `the row is ${length} bytes with its line end; the label's ROW_BYTES is ${rowBytes}`
  }
  const data = crlf ? line.length - 1 : line.length
  for (let i = 0; i < data; i++) {
    const b = line[i]!
    if ((b < 32 && b !== TAB) || b > 126) return `byte ${i + 1} is 0x${b.toString(16).padStart(2, '0')}, not printable ASCII (a PDS3 ASCII table holds ASCII only)`
  }
  return undefined
}

function rowValues(text: string, columns: readonly IndexColumn[]): RowValues {
  const out: RowValues = new Array(columns.length)
  for (let c = 0; c < columns.length; c++) {
    const col = columns[c]!
    if (col.items === 1) out[c] = cell(text, col, col.start)
    else {
      const items: Cell[] = new Array(col.items)
      for (let i = 0; i < col.items; i++) items[i] = cell(text, col, col.start + i * col.itemOffset)
      out[c] = items
    }
  }
  return out
}

function cell(text: string, col: IndexColumn, start: number): Cell {
  const end = start + col.itemBytes
  const opened = start > 0 && text.charCodeAt(start - 1) === QUOTE
  const closed = text.charCodeAt(end) === QUOTE
  if (opened !== closed) throw new RecordError(`column ${col.name}: the quotes around bytes ${start + 1}–${end} do not match (its START_BYTE or BYTES miss the field)`)
  const raw = text.slice(start, end)
  if (raw.includes('"') || raw.includes('\t')) throw new RecordError(`column ${col.name}: bytes ${start + 1}–${end} hold a quote or tab (its START_BYTE or BYTES cut across fields)`)
  const v = raw.trim()
  if (SYMBOLIC.has(v.toUpperCase()) || col.missing.includes(v)) return null
  switch (col.type) {
    case 'CHARACTER':
      return v
    case 'ASCII_INTEGER': {
      const n = INTEGER.test(v) ? Number(v) : NaN
      if (!Number.isSafeInteger(n)) throw new RecordError(`column ${col.name}: ${JSON.stringify(v.slice(0, 30))} is not an ASCII_INTEGER`)
      return n
    }
    case 'ASCII_REAL': {
      const n = REAL.test(v) ? Number(v) : NaN
      if (!Number.isFinite(n)) throw new RecordError(`column ${col.name}: ${JSON.stringify(v.slice(0, 30))} is not a finite ASCII_REAL`)
      return n
    }
    case 'TIME':
    case 'DATE': {
      const iso = calendarTime(v)
      if (parseUtc(iso) === undefined) throw new RecordError(`column ${col.name}: ${JSON.stringify(v.slice(0, 30))} is not a PDS3 ${col.type}`)
      return iso
    }
  }
}

/** PDS3 times come as YYYY-MM-DDThh:mm:ss[.fff][Z] or by day of year, YYYY-DDDThh:…: the latter is rewritten as the former. */
function calendarTime(v: string): string {
  const m = /^(\d{4})-(\d{3})(?=T|$)/.exec(v)
  if (!m) return v
  const year = Number(m[1])
  const doy = Number(m[2])
  const d = new Date(Date.UTC(year, 0, doy))
  if (doy < 1 || d.getUTCFullYear() !== year) return v // not a day of that year: left to fail as written
  return d.toISOString().slice(0, 10) + v.slice(8)
}

/** Nothing but line ends, spaces and the DOS end-of-file mark from `at` on. */
function onlyLineEnds(bytes: Uint8Array, at: number): boolean {
  for (let i = at; i < bytes.length; i++) {
    const b = bytes[i]!
    if (b !== LF && b !== CR && b !== 32 && b !== 26) return false
  }
  return true
}
