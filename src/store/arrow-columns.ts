import { DataType, Type, type Data, type Table } from 'apache-arrow'
import type { ColumnKind, ColumnLayout } from './column-layout'
import type { DictColumn, Utf8Column } from './schema'
import { ROVER_SLUGS } from '../catalog/rovers'
import { IndexLoadError } from './index-load-error'

/**
 * Maps the columns of one Arrow table onto typed arrays and dictionaries, checking each against
 * its ColumnLayout. The typed arrays are views over the file's buffers (no copy, no per-row
 * object); only dictionaries become string arrays. Anything unexpected is an IndexLoadError.
 */
/** Columns an index built before they existed lacks: loaded as all absent (NaN) instead of refused. */
const ABSENT_IN_OLDER = new Set(['date_received'])

export function columnsFromTable(file: string, table: Table, layout: ColumnLayout, rows: number): Record<string, unknown> {
  if (table.numRows !== rows) throw new IndexLoadError(file, `holds ${table.numRows} rows, the manifest says ${rows}`)
  const out: Record<string, unknown> = { length: rows }
  for (const [name, kind] of layout) {
    const field = table.schema.fields.find((f) => f.name === name)
    if (!field && kind === 'f64' && ABSENT_IN_OLDER.has(name)) {
      Object.assign(out, { [name]: new Float64Array(rows).fill(NaN) })
      continue
    }
    if (!field) throw new IndexLoadError(file, `column "${name}" is missing`)
    const chunks = (table.getChild(name)?.data ?? []) as Data[]
    if (chunks.length > 1) throw new IndexLoadError(file, `column "${name}" is split into ${chunks.length} record batches (expected 1)`)
    const data = chunks[0]
    const problem = typeProblem(field.type, kind)
    if (problem) throw new IndexLoadError(file, `column "${name}" ${problem} (found ${field.type})`)
    if (!data) {
      Object.assign(out, emptyColumn(name, kind))
      continue
    }
    if (data.offset !== 0) throw new IndexLoadError(file, `column "${name}" starts at offset ${data.offset}`)
    Object.assign(out, mapColumn(file, name, kind, data, rows))
  }
  return out
}

export function typeProblem(type: DataType, kind: ColumnKind): string | undefined {
  switch (kind) {
    case 'int32':
      return DataType.isInt(type) && type.bitWidth === 32 && type.isSigned ? undefined : 'must be Int32'
    case 'date':
      return DataType.isDate(type) && type.typeId === Type.Date && (type as any).unit === 0 ? undefined : 'must be Date32<DAY>'
    case 'f64':
      return DataType.isFloat(type) && type.precision === 2 ? undefined : 'must be Float64'
    case 'f32':
      return DataType.isFloat(type) && type.precision === 1 ? undefined : 'must be Float32'
    case 'utf8':
      return DataType.isUtf8(type) ? undefined : 'must be Utf8'
    case 'rover':
      return DataType.isDictionary(type) && DataType.isUtf8(type.dictionary) && type.indices.bitWidth === 8 && !type.indices.isSigned
        ? undefined
        : 'must be Dictionary<Utf8,Uint8>'
    case 'dict16':
      return DataType.isDictionary(type) && DataType.isUtf8(type.dictionary) && type.indices.bitWidth === 16 && type.indices.isSigned
        ? undefined
        : 'must be Dictionary<Utf8,Int16>'
    case 'dict':
      return DataType.isDictionary(type) && DataType.isUtf8(type.dictionary) && type.indices.isSigned && type.indices.bitWidth <= 32
        ? undefined
        : 'must be Dictionary<Utf8,Int8|Int16|Int32>'
    case 'ids':
      return DataType.isList(type) && DataType.isInt(type.valueType) && type.valueType.bitWidth === 32 ? undefined : 'must be List<Int32>'
  }
}

function mapColumn(file: string, name: string, kind: ColumnKind, data: Data, rows: number): Record<string, unknown> {
  const short = (what: string) => new IndexLoadError(file, `column "${name}" ${what} is shorter than ${rows} rows`)
  switch (kind) {
    case 'int32':
    case 'date':
    case 'f64':
    case 'f32': {
      const values = data.values as Int32Array | Float64Array | Float32Array
      if (!values || values.length < rows) throw short('values')
      return { [name]: values.length === rows ? values : values.subarray(0, rows) }
    }
    case 'utf8':
      return { [name]: utf8(file, name, data, rows) }
    case 'rover': {
      const dict = dictionaryStrings(file, name, data)
      if (dict.length !== ROVER_SLUGS.length || dict.some((s, i) => s !== ROVER_SLUGS[i]))
        throw new IndexLoadError(file, `column "${name}" dictionary is [${dict.join(', ')}], expected [${ROVER_SLUGS.join(', ')}]`)
      const codes = data.values as Uint8Array
      if (codes.length < rows) throw short('codes')
      checkCodes(file, name, codes, rows, dict.length)
      return { [name]: codes.subarray(0, rows) }
    }
    case 'dict':
    case 'dict16': {
      const dict = dictionaryStrings(file, name, data)
      const codes = data.values as DictColumn['codes']
      if (codes.length < rows) throw short('codes')
      checkCodes(file, name, codes, rows, dict.length)
      return { [name]: { codes: codes.subarray(0, rows), dict } satisfies DictColumn }
    }
    case 'ids': {
      const offsets = data.valueOffsets as Int32Array
      const child = data.children[0]
      const values = (child?.values ?? new Int32Array(0)) as Int32Array
      if (!offsets || offsets.length < rows + 1) throw short('offsets')
      if (offsets[0] !== 0 || offsets[rows]! > values.length) throw new IndexLoadError(file, `column "${name}" offsets point outside its values`)
      return { [`${name}_offsets`]: offsets.subarray(0, rows + 1), [`${name}_values`]: values.subarray(0, offsets[rows]) }
    }
  }
}

function utf8(file: string, name: string, data: Data, rows: number): Utf8Column {
  const offsets = data.valueOffsets as Int32Array
  const bytes = (data.values ?? new Uint8Array(0)) as Uint8Array
  if (!offsets || offsets.length < rows + 1) throw new IndexLoadError(file, `column "${name}" offsets are shorter than ${rows} rows`)
  if (offsets[0] !== 0 || offsets[rows]! > bytes.length) throw new IndexLoadError(file, `column "${name}" offsets point outside its data`)
  return { data: bytes.subarray(0, offsets[rows]), offsets: offsets.subarray(0, rows + 1) }
}

export function checkCodes(file: string, name: string, codes: ArrayLike<number>, rows: number, size: number): void {
  let bad = -1
  for (let i = 0; i < rows; i++) {
    const c = codes[i]!
    if (c < 0 || c >= size) {
      bad = i
      break
    }
  }
  if (bad >= 0) throw new IndexLoadError(file, `column "${name}" row ${bad} has code ${codes[bad]} outside its dictionary of ${size}`)
}

const latin1 = new TextDecoder('latin1')
const utf8Decoder = new TextDecoder('utf-8')

/** The dictionary of a Dictionary<Utf8> column as strings (decoded once, small). */
function dictionaryStrings(file: string, name: string, data: Data): string[] {
  const dict = data.dictionary?.data[0]
  if (!dict) return []
  if (data.dictionary!.data.length > 1) throw new IndexLoadError(file, `column "${name}" has a dictionary delta (expected one dictionary batch)`)
  const col = utf8(file, `${name} dictionary`, dict, dict.length)
  return utf8Strings(col, dict.length)
}

/** Decodes n values of a Utf8 column. All-ASCII data is decoded once and sliced. */
export function utf8Strings(col: Utf8Column, n: number): string[] {
  const { data, offsets } = col
  const out = new Array<string>(n)
  let ascii = true
  for (let i = 0; i < data.length; i++) {
    if (data[i]! >= 0x80) {
      ascii = false
      break
    }
  }
  if (ascii) {
    const all = latin1.decode(data)
    for (let i = 0; i < n; i++) out[i] = all.slice(offsets[i], offsets[i + 1])
  } else {
    for (let i = 0; i < n; i++) out[i] = utf8Decoder.decode(data.subarray(offsets[i], offsets[i + 1]))
  }
  return out
}

function emptyColumn(name: string, kind: ColumnKind): Record<string, unknown> {
  switch (kind) {
    case 'int32':
    case 'date':
      return { [name]: new Int32Array(0) }
    case 'f64':
      return { [name]: new Float64Array(0) }
    case 'f32':
      return { [name]: new Float32Array(0) }
    case 'utf8':
      return { [name]: { data: new Uint8Array(0), offsets: new Int32Array(1) } }
    case 'rover':
      return { [name]: new Uint8Array(0) }
    case 'dict':
    case 'dict16':
      return { [name]: { codes: new Int16Array(0), dict: [] } }
    case 'ids':
      return { [`${name}_offsets`]: new Int32Array(1), [`${name}_values`]: new Int32Array(0) }
  }
}
