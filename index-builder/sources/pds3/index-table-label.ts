import { RecordError } from '../source-error'
import { parsePvl, PvlError, pvlBlock, pvlGet, pvlNumber, pvlString, type PvlBlock, type PvlValue } from './parse-pvl'

/**
 * The layout of a PDS3 ASCII INDEX_TABLE, read from its detached label (PDS Standards Reference
 * ch. 5 pointers, appendix A TABLE and COLUMN objects): the table file the `^INDEX_TABLE` pointer
 * names, ROWS and ROW_BYTES, and per COLUMN its NAME, DATA_TYPE, START_BYTE and BYTES (with
 * ITEMS, ITEM_BYTES and ITEM_OFFSET for a column of several values, like MER's
 * ROVER_MOTION_COUNTER). Nothing about the table is assumed from a mission: a column is where its
 * label says, and the row reader (index-table-rows.ts) checks every row against it.
 *
 * The label is untrusted. Everything that would let it point outside its folder, make rows
 * unbounded, or make one byte count twice is refused here, before any row is read: a pointer that
 * is not a bare file name, ROW_BYTES or ROWS beyond their bounds, RECORD_BYTES that disagrees with
 * ROW_BYTES, a column outside the row's data or overlapping another, COLUMNS that is not the count
 * of COLUMN objects, a repeated column name, an unknown DATA_TYPE. With non-overlapping columns
 * reading a row touches each of its bytes once: the reader is linear in the table's size.
 */
export type ColumnType = 'CHARACTER' | 'ASCII_INTEGER' | 'ASCII_REAL' | 'TIME' | 'DATE'

export interface IndexColumn {
  name: string
  type: ColumnType
  /** 0-based offset in the row of the first item's first byte. */
  start: number
  items: number
  itemBytes: number
  itemOffset: number
  /** Values the label says stand for "no value" (MISSING_CONSTANT, NULL_CONSTANT, …), as written. */
  missing: string[]
}

export interface IndexTableLayout {
  /** The table's file name as the pointer gives it (a bare name, beside the label). */
  file: string
  /** Byte offset of the first row in that file. */
  offset: number
  rows: number
  /** Bytes per row, the CR LF that ends each row included (PDS3 ASCII records). */
  rowBytes: number
  columns: IndexColumn[]
}

const TYPES: Record<string, ColumnType> = {
  CHARACTER: 'CHARACTER',
  ASCII_INTEGER: 'ASCII_INTEGER',
  ASCII_REAL: 'ASCII_REAL',
  TIME: 'TIME',
  DATE: 'DATE',
  // Older labels' spellings of the same ASCII types.
  INTEGER: 'ASCII_INTEGER',
  REAL: 'ASCII_REAL',
}

/** Longest row accepted (the real MER EDR index rows are under 1 KB). */
export const MAX_ROW_BYTES = 64 * 1024
/** Most rows one label may state (the largest MER index holds about 370,000). */
export const MAX_ROWS = 50_000_000
export const MAX_COLUMNS = 1024
export const MAX_ITEMS = 64

const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,254}$/
const COLUMN_NAME = /^[A-Za-z][A-Za-z0-9_:]{0,63}$/

/** True when a label's text declares an INDEX_TABLE (one linear pass; `[ \t]*`, never `\s*`, so no line is rescanned). */
export function isIndexTableLabel(text: string): boolean {
  return /^[ \t]*(\^INDEX_TABLE|OBJECT[ \t]*=[ \t]*INDEX_TABLE)\b/m.test(text)
}

/** The table layout a label states; RecordError naming what is wrong when the label cannot describe a readable table. */
export function readIndexTableLabel(text: string): IndexTableLayout {
  let label: PvlBlock
  try {
    label = parsePvl(text)
  } catch (e) {
    if (e instanceof PvlError) throw new RecordError(`malformed PDS3 label: ${e.message}`)
    throw e
  }
  const table = pvlBlock(label, 'OBJECT', 'INDEX_TABLE')
  if (!table) throw new RecordError('the label has no OBJECT = INDEX_TABLE')
  const { file, record, byte } = pointer(pvlGet(label, '^INDEX_TABLE'))
  const format = pvlString(pvlGet(table, 'INTERCHANGE_FORMAT'))
  if (format !== undefined && format.toUpperCase() !== 'ASCII') throw new RecordError(`INTERCHANGE_FORMAT ${format.slice(0, 20)}: only ASCII index tables are read`)
  const rowBytes = count(pvlGet(table, 'ROW_BYTES'), 'ROW_BYTES', 3, MAX_ROW_BYTES)
  const rows = count(pvlGet(table, 'ROWS'), 'ROWS', 0, MAX_ROWS)
  const recordBytes = pvlGet(label, 'RECORD_BYTES')
  if (recordBytes !== undefined && pvlNumber(recordBytes) !== rowBytes) throw new RecordError(`RECORD_BYTES ${pvlString(recordBytes)?.slice(0, 20)} is not the table's ROW_BYTES ${rowBytes}`)
  for (const key of ['ROW_PREFIX_BYTES', 'ROW_SUFFIX_BYTES']) {
    const v = pvlGet(table, key)
    if (v !== undefined && pvlNumber(v) !== 0) throw new RecordError(`${key} is not read: rows must be columns only`)
  }
  const objects = table.blocks.filter((b) => b.kind === 'OBJECT' && b.name.toUpperCase() === 'COLUMN')
  if (objects.length === 0) throw new RecordError('INDEX_TABLE has no COLUMN objects')
  if (objects.length > MAX_COLUMNS) throw new RecordError(`INDEX_TABLE has ${objects.length} COLUMN objects (at most ${MAX_COLUMNS})`)
  const stated = pvlGet(table, 'COLUMNS')
  if (stated !== undefined && pvlNumber(stated) !== objects.length) throw new RecordError(`COLUMNS says ${pvlString(stated)?.slice(0, 20)}, the label holds ${objects.length} COLUMN objects`)
  // The data of a row ends before its CR LF.
  const dataBytes = rowBytes - 2
  const columns = objects.map((o, i) => column(o, i + 1, dataBytes))
  const names = new Set<string>()
  for (const c of columns) {
    if (names.has(c.name)) throw new RecordError(`column ${c.name} is named twice`)
    names.add(c.name)
  }
  const byStart = [...columns].sort((a, b) => a.start - b.start)
  for (let i = 1; i < byStart.length; i++) {
    const prev = byStart[i - 1]!
    if (byStart[i]!.start < prev.start + span(prev)) throw new RecordError(`columns ${prev.name} and ${byStart[i]!.name} overlap`)
  }
  return { file, offset: byte ?? (record - 1) * rowBytes, rows, rowBytes, columns }
}

/** Bytes from a column's first byte to its last item's last byte. */
export function span(c: IndexColumn): number {
  return (c.items - 1) * c.itemOffset + c.itemBytes
}

function column(o: PvlBlock, n: number, dataBytes: number): IndexColumn {
  const name = pvlString(pvlGet(o, 'NAME'))
  if (name === undefined || !COLUMN_NAME.test(name)) throw new RecordError(`COLUMN ${n} has ${name === undefined ? 'no NAME' : `the NAME ${JSON.stringify(name.slice(0, 40))}, not a PDS name`}`)
  const typeText = pvlString(pvlGet(o, 'DATA_TYPE'))
  const type = typeText === undefined ? undefined : TYPES[typeText.toUpperCase()]
  if (!type) throw new RecordError(`column ${name}: DATA_TYPE ${typeText === undefined ? 'missing' : JSON.stringify(typeText.slice(0, 30))} is not an ASCII table type`)
  const start = count(pvlGet(o, 'START_BYTE'), `column ${name} START_BYTE`, 1, dataBytes) - 1
  const bytes = count(pvlGet(o, 'BYTES'), `column ${name} BYTES`, 1, dataBytes)
  const items = pvlGet(o, 'ITEMS') === undefined ? 1 : count(pvlGet(o, 'ITEMS'), `column ${name} ITEMS`, 1, MAX_ITEMS)
  const itemBytes = items === 1 ? bytes : count(pvlGet(o, 'ITEM_BYTES'), `column ${name} ITEM_BYTES`, 1, dataBytes)
  const itemOffset = items === 1 || pvlGet(o, 'ITEM_OFFSET') === undefined ? itemBytes : count(pvlGet(o, 'ITEM_OFFSET'), `column ${name} ITEM_OFFSET`, itemBytes, dataBytes)
  const c: IndexColumn = { name: name.toUpperCase(), type, start, items, itemBytes, itemOffset, missing: [] }
  if (span(c) > bytes) throw new RecordError(`column ${name}: ${items} items of ${itemBytes} bytes every ${itemOffset} do not fit its BYTES ${bytes}`)
  if (start + bytes > dataBytes) throw new RecordError(`column ${name} (START_BYTE ${start + 1}, BYTES ${bytes}) runs past the row's data (ROW_BYTES ${dataBytes + 2}, CR LF included)`)
  for (const key of ['MISSING_CONSTANT', 'NULL_CONSTANT', 'INVALID_CONSTANT', 'UNKNOWN_CONSTANT', 'NOT_APPLICABLE_CONSTANT']) {
    const v = pvlString(pvlGet(o, key))
    if (v !== undefined) c.missing.push(v.trim())
  }
  return c
}

/** `^INDEX_TABLE = "FILE.TAB"`, `("FILE.TAB", record)` or `("FILE.TAB", byte <BYTES>)`; a table in the label's own file is not read. */
function pointer(v: PvlValue | undefined): { file: string; record: number; byte?: number } {
  if (v === undefined) throw new RecordError('the label has no ^INDEX_TABLE pointer to its table file')
  const [first, second] = Array.isArray(v) ? v : [v]
  const file = typeof first === 'string' ? first : undefined
  if (file === undefined) throw new RecordError('^INDEX_TABLE points into the label file itself: only a detached table (its own .tab file) is read')
  if (!FILE_NAME.test(file) || file.includes('..')) throw new RecordError(`^INDEX_TABLE names ${JSON.stringify(file.slice(0, 80))}, not a file name beside the label`)
  if (second === undefined) return { file, record: 1 }
  const unit = typeof second === 'object' && !Array.isArray(second) ? second.unit.toUpperCase() : undefined
  const n = count(second, '^INDEX_TABLE offset', 1, 2 ** 40)
  return unit === 'BYTES' ? { file, record: 1, byte: n - 1 } : { file, record: n }
}

function count(v: PvlValue | undefined, what: string, min: number, max: number): number {
  if (v === undefined) throw new RecordError(`${what} is missing`)
  const n = pvlNumber(v)
  if (n === undefined || !Number.isInteger(n) || n < min || n > max) throw new RecordError(`${what} ${JSON.stringify(pvlString(v)?.slice(0, 30) ?? v)} is not an integer in [${min}, ${max}]`)
  return n
}
