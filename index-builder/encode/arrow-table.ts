import {
  DataType,
  DateDay,
  Dictionary,
  Field,
  Float32,
  Float64,
  Int16,
  Int32,
  Int8,
  List,
  RecordBatch,
  Schema,
  Struct,
  Table,
  Uint8,
  Utf8,
  makeData,
  makeVector,
  type Data,
} from 'apache-arrow'
import { INT_ABSENT, type DictColumn, type Utf8Column } from '../../src/store/schema'
import type { ColumnLayout } from '../../src/store/column-layout'
import { ROVER_SLUGS } from '../../src/catalog/rovers'
import { utf8Column } from './utf8-builder'

/**
 * Turns typed-array columns into one Arrow record batch, zero-copy: every value buffer handed to
 * Arrow is the column's own typed array. Absent numbers get an Arrow null bit AND keep their
 * sentinel (-1 / NaN) in the value slot (schema.ts), so the loader can use the slots as they are.
 */
export function tableFromColumns(layout: ColumnLayout, columns: Record<string, unknown>, length: number): Table {
  const fields: Field[] = []
  const children: Data[] = []
  layout.forEach(([name, kind], i) => {
    let data: Data
    switch (kind) {
      case 'int32':
      case 'date': {
        const values = columns[name] as Int32Array
        const type = kind === 'date' ? new DateDay() : new Int32()
        data = withNulls(type, values, length, (k) => values[k] === INT_ABSENT)
        break
      }
      case 'f64':
      case 'f32': {
        const values = columns[name] as Float64Array | Float32Array
        const type = kind === 'f64' ? new Float64() : new Float32()
        data = withNulls(type, values, length, (k) => values[k] !== values[k])
        break
      }
      case 'utf8': {
        const c = columns[name] as Utf8Column
        data = makeData({ type: new Utf8(), length, nullCount: 0, valueOffsets: c.offsets, data: c.data })
        break
      }
      case 'rover': {
        const codes = columns[name] as Uint8Array
        data = dictData(new Uint8(), codes, ROVER_SLUGS as string[], i, length)
        break
      }
      case 'dict':
      case 'dict16': {
        const c = columns[name] as DictColumn
        const n = c.dict.length
        const idx = kind === 'dict16' || n > 127 ? (n > 32767 ? new Int32() : new Int16()) : new Int8()
        if (kind === 'dict16' && n > 32767) throw new Error(`column ${name}: ${n} values do not fit Dictionary<Utf8,Int16>`)
        data = dictData(idx, narrowCodes(c.codes, idx), c.dict, i, length)
        break
      }
      case 'ids': {
        const offsets = columns[`${name}_offsets`] as Int32Array
        const values = columns[`${name}_values`] as Int32Array
        const item = new Field('item', new Int32(), false)
        const child = makeData({ type: new Int32(), length: values.length, nullCount: 0, data: values })
        data = makeData({ type: new List(item), length, nullCount: 0, valueOffsets: offsets, child })
        break
      }
    }
    fields.push(new Field(name, data.type, data.nullCount > 0 || kind === 'int32' || kind === 'date' || kind === 'f64' || kind === 'f32'))
    children.push(data)
  })
  const schema = new Schema(fields)
  const struct = makeData({ type: new Struct(fields), length, nullCount: 0, children })
  return new Table(schema, [new RecordBatch(schema, struct)])
}

function withNulls<T extends DataType>(type: T, values: ArrayLike<number>, length: number, isAbsent: (k: number) => boolean): Data<T> {
  let nullCount = 0
  for (let k = 0; k < length; k++) if (isAbsent(k)) nullCount++
  if (nullCount === 0) return makeData({ type, length, nullCount: 0, data: values } as never) as unknown as Data<T>
  // Validity bitmap, LSB first (Arrow columnar format, "Validity bitmaps").
  const bitmap = new Uint8Array(((length + 63) >> 6) << 3).fill(0)
  for (let k = 0; k < length; k++) if (!isAbsent(k)) bitmap[k >> 3]! |= 1 << (k & 7)
  return makeData({ type, length, nullCount, nullBitmap: bitmap, data: values } as never) as unknown as Data<T>
}

function dictData(indexType: Int8 | Int16 | Int32 | Uint8, codes: ArrayLike<number>, dict: readonly string[], id: number, length: number): Data {
  const dictionary = makeVector(makeData({ type: new Utf8(), length: dict.length, nullCount: 0, ...utf8Parts(dict) }))
  const type = new Dictionary(new Utf8(), indexType, id)
  return makeData({ type, length, nullCount: 0, data: codes as never, dictionary } as never)
}

function utf8Parts(values: readonly string[]): { valueOffsets: Int32Array; data: Uint8Array } {
  const c = utf8Column(values)
  return { valueOffsets: c.offsets, data: c.data }
}

function narrowCodes(codes: DictColumn['codes'], type: Int8 | Int16 | Int32): Int8Array | Int16Array | Int32Array {
  const Want = type instanceof Int8 ? Int8Array : type instanceof Int16 ? Int16Array : Int32Array
  return codes instanceof Want ? codes : Want.from(codes as ArrayLike<number>)
}

/**
 * The largest Arrow file the server can read or map as one buffer: Bun (JavaScriptCore) caps an
 * ArrayBuffer at 4 GiB. Kept under it with room for headers and padding.
 */
export const ONE_BUFFER_BYTES = 2 ** 32 - 2 ** 26

/** Rows per record batch of a table too big for one buffer (~1 GiB of photo columns). */
export const BATCH_ROWS = 2 ** 22

/**
 * The table as record batches of BATCH_ROWS rows when its buffers exceed ONE_BUFFER_BYTES (a
 * photo table of ~16M rows and more), else as it is. The batches are zero-copy slices. The
 * schema metadata `utf8_bytes` gives each Utf8 column's total bytes, so a reader that reads one
 * batch at a time (src/store/batched-table.ts) allocates each column once.
 */
export function batchedIfHuge(table: Table, limit = ONE_BUFFER_BYTES, rowsPerBatch = BATCH_ROWS): Table {
  const [batch] = table.batches
  if (!batch || table.batches.length !== 1 || bufferBytes(batch.data) <= limit) return table
  const utf8Bytes: Record<string, number> = {}
  table.schema.fields.forEach((f, i) => {
    const d = batch.data.children[i]!
    if (DataType.isUtf8(f.type)) utf8Bytes[f.name] = d.valueOffsets[d.length]! - d.valueOffsets[0]!
  })
  const metadata = new Map(table.schema.metadata)
  metadata.set('utf8_bytes', JSON.stringify(utf8Bytes))
  const schema = new Schema(table.schema.fields, metadata)
  const batches: RecordBatch[] = []
  for (let at = 0; at < table.numRows; at += rowsPerBatch) {
    const part = batch.slice(at, Math.min(table.numRows, at + rowsPerBatch))
    batches.push(new RecordBatch(schema, part.data))
  }
  return new Table(schema, batches)
}

function bufferBytes(d: Data): number {
  let n = 0
  for (const b of [d.values, d.valueOffsets, d.nullBitmap, d.typeIds]) if (b) n += (b as ArrayBufferView).byteLength
  for (const c of d.children ?? []) n += bufferBytes(c)
  return n
}
