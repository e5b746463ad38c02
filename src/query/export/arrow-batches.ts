import {
  AsyncByteQueue, DateDay, Dictionary, Field, Float32, Float64, Int8, Int16, Int32, makeData, RecordBatch, RecordBatchStreamWriter,
  Schema, Struct, TimeUnit, Timestamp, Uint8, Uint16, Uint32, Utf8, vectorFromArray, type Data, type DataType, type Vector,
} from 'apache-arrow'
import type { DictColumn, PhotoColumns } from '../../store/schema'
import { imageRange, type ExportColumn } from './export-columns'
import { ImageBytes } from './image-bytes'

/**
 * Export rows as an Arrow IPC stream (application/vnd.apache.arrow.stream): a schema message,
 * each dictionary once (the store's own dictionary, shared by every batch), then one record batch
 * per chunk, then the end-of-stream marker. Typed columns: Int32, DateDay, Timestamp(ms, UTC),
 * Float64/Float32, Utf8, and Dictionary<Utf8> for the store's dictionary columns.
 *
 * When a chunk's rows are one ascending run of the table (the default order without filters),
 * its fixed-width, string and dictionary-code buffers are sub-arrays of the snapshot's own
 * columns (no copy); otherwise the chunk's values are gathered. Only the validity bitmaps, the
 * 64-bit timestamps and the image URLs (folder + file name) are always built.
 */
export class ArrowBatches {
  readonly schema: Schema
  readonly #writer: RecordBatchStreamWriter
  readonly #sink = new CollectSink()
  readonly #dicts: Array<Vector | undefined>
  readonly #images: ImageBytes
  /**
   * Buffers built per batch (gathered values, validity, timestamps, image URLs) are only read
   * until the batch's bytes are copied out (CollectSink.take), so they are reused across batches:
   * the only allocation per batch is its output.
   */
  readonly #scratch = new Scratch()

  constructor(readonly p: PhotoColumns, readonly columns: ExportColumn[]) {
    this.#dicts = columns.map((c) => dictionaryOf(c))
    this.schema = new Schema(columns.map((c, i) => new Field(c.name, typeOf(c, i, this.#dicts[i]), c.name !== 'id')))
    this.#writer = new RecordBatchStreamWriter()
    this.#writer.reset(this.#sink, this.schema)
    this.#images = new ImageBytes(p.image_dir)
  }

  /** The IPC bytes of one record batch of `rows` (the schema and dictionaries precede the first one). */
  batch(rows: Int32Array): Uint8Array {
    const n = rows.length
    const run = n > 0 && rows[n - 1] - rows[0] === n - 1 && ascending(rows) ? rows[0] : -1
    const children = this.columns.map((c, i) => this.#column(c, i, rows, run))
    const data = makeData({ type: new Struct(this.schema.fields), length: n, nullCount: 0, children })
    this.#writer.write(new RecordBatch(this.schema, data))
    return this.#sink.take()
  }

  /** The end-of-stream marker (and the schema when no batch was written). */
  end(): Uint8Array {
    this.#writer.close()
    return this.#sink.take()
  }

  #validity(i: number, n: number, present: (j: number) => boolean): [Uint8Array | undefined, number] {
    return validity(this.#scratch.take(`v${i}`, Uint8Array, (n + 7) >> 3), n, present)
  }

  #column(c: ExportColumn, i: number, rows: Int32Array, run: number): Data {
    const n = rows.length
    const type = this.schema.fields[i]!.type
    switch (c.kind) {
      case 'int32':
      case 'date': {
        const values = run >= 0 ? c.values.subarray(run, run + n) : gather(c.values, rows, this.#scratch.take(`g${i}`, Int32Array, n))
        const [nullBitmap, nullCount] = this.#validity(i, n, (j) => values[j]! >= 0)
        return makeData({ type, length: n, nullCount, nullBitmap, data: values } as never)
      }
      case 'f64':
      case 'f32': {
        const values = run >= 0 ? c.values.subarray(run, run + n) : gather(c.values, rows, c.kind === 'f64' ? this.#scratch.take(`g${i}`, Float64Array, n) : this.#scratch.take(`g${i}`, Float32Array, n))
        const group = c.kind === 'f64' ? c.group : undefined
        const [nullBitmap, nullCount] = group
          ? this.#validity(i, n, (j) => group.every((g) => Number.isFinite(g[rows[j]!])))
          : this.#validity(i, n, (j) => values[j] === values[j])
        return makeData({ type, length: n, nullCount, nullBitmap, data: values } as never)
      }
      case 'timestamp': {
        // int64 ms written as two int32 halves (little-endian), without a BigInt per row.
        const out = this.#scratch.take(`t${i}`, BigInt64Array, n)
        const halves = new Int32Array(out.buffer, out.byteOffset, 2 * n)
        const [nullBitmap, nullCount] = this.#validity(i, n, (j) => {
          const t = c.values[rows[j]!]!
          if (!(Math.abs(t) <= 8.64e15)) return false
          const ms = Math.trunc(t)
          const hi = Math.floor(ms / 4294967296)
          halves[2 * j] = (ms - hi * 4294967296) | 0
          halves[2 * j + 1] = hi
          return true
        })
        return makeData({ type, length: n, nullCount, nullBitmap, data: out } as never)
      }
      case 'utf8': {
        const col = c.col
        let offsets: Int32Array
        let bytes: Uint8Array
        if (run >= 0) {
          offsets = col.offsets.subarray(run, run + n + 1)
          bytes = col.data
        } else {
          offsets = this.#scratch.take(`o${i}`, Int32Array, n + 1)
          let size = 0
          for (let j = 0; j < n; j++) {
            const r = rows[j]!
            size += col.offsets[r + 1]! - col.offsets[r]!
            offsets[j + 1] = size
          }
          bytes = this.#scratch.take(`b${i}`, Uint8Array, size)
          for (let j = 0; j < n; j++) {
            const r = rows[j]!
            bytes.set(col.data.subarray(col.offsets[r]!, col.offsets[r + 1]!), offsets[j]!)
          }
        }
        const [nullBitmap, nullCount] = this.#validity(i, n, (j) => offsets[j + 1]! > offsets[j]!)
        return makeData({ type, length: n, nullCount, nullBitmap, valueOffsets: offsets, data: bytes } as never)
      }
      case 'dict': {
        const codes = run >= 0 ? c.col.codes.subarray(run, run + n) : gather(c.col.codes, rows, this.#scratch.take(`g${i}`, c.col.codes.constructor as Int32ArrayConstructor, n))
        const absent = absentCodes(c.col)
        const [nullBitmap, nullCount] = this.#validity(i, n, (j) => !absent[codes[j]!])
        return makeData({ type, length: n, nullCount, nullBitmap, data: codes, dictionary: this.#dicts[i] } as never)
      }
      case 'rover': {
        const codes = run >= 0 ? this.p.rover.subarray(run, run + n) : gather(this.p.rover, rows, this.#scratch.take(`g${i}`, Uint8Array, n))
        return makeData({ type, length: n, nullCount: 0, data: codes, dictionary: this.#dicts[i] } as never)
      }
      case 'camera-name': {
        const codes = this.#scratch.take(`g${i}`, Int16Array, n)
        for (let j = 0; j < n; j++) codes[j] = c.codeOf(this.p.rover[rows[j]!]!, this.p.camera.codes[rows[j]!]!)
        const [nullBitmap, nullCount] = this.#validity(i, n, (j) => codes[j] !== 0)
        return makeData({ type, length: n, nullCount, nullBitmap, data: codes, dictionary: this.#dicts[i] } as never)
      }
      case 'image': {
        // URL = folder + file name, copied natively (Buffer.copy: no view object per row).
        const offsets = this.#scratch.take(`o${i}`, Int32Array, n + 1)
        const ranges = this.#scratch.take(`r${i}`, Int32Array, 2 * n)
        let size = 0
        for (let j = 0; j < n; j++) {
          const r = rows[j]!
          const range = imageRange(c, this.p.rover[r]!, r, this.p)
          if (range) {
            ranges[2 * j] = range[0]
            ranges[2 * j + 1] = range[1]
            size += this.#images.dir(r).length + range[1] - range[0]
          }
          offsets[j + 1] = size
        }
        const scratch = this.#scratch.take(`b${i}`, Uint8Array, size)
        const bytes = Buffer.from(scratch.buffer, scratch.byteOffset, size)
        const files = bufferOf(c.col.data)
        for (let j = 0; j < n; j++) {
          const at = offsets[j]!
          if (offsets[j + 1] === at) continue
          const dir = this.#images.dirBuffer(rows[j]!)
          dir.copy(bytes, at)
          files.copy(bytes, at + dir.length, ranges[2 * j]!, ranges[2 * j + 1]!)
        }
        const [nullBitmap, nullCount] = this.#validity(i, n, (j) => offsets[j + 1]! > offsets[j]!)
        return makeData({ type, length: n, nullCount, nullBitmap, valueOffsets: offsets, data: scratch } as never)
      }
    }
  }
}

type Typed = Int8Array | Int16Array | Int32Array | Uint8Array | Uint16Array | Uint32Array | Float32Array | Float64Array | BigInt64Array

class Scratch {
  readonly #slots = new Map<string, Typed>()
  take<T extends Typed>(slot: string, Ctor: new (n: number) => T, n: number): T {
    let a = this.#slots.get(slot) as T | undefined
    if (!a || a.length < n || a.constructor !== Ctor) {
      a = new Ctor(Math.max(n, 1024))
      this.#slots.set(slot, a)
    }
    return a.subarray(0, n) as T
  }
}

/** Collects what the writer writes, for the stream to take after each batch. */
class CollectSink extends AsyncByteQueue {
  #parts: Uint8Array[] = []
  #size = 0
  override write(value: ArrayBufferView | ArrayBuffer | string): void {
    const bytes = value instanceof Uint8Array ? value : ArrayBuffer.isView(value) ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength) : new TextEncoder().encode(String(value))
    if (bytes.byteLength === 0) return
    this.#parts.push(bytes)
    this.#size += bytes.byteLength
  }
  /** Everything written since the last take, as one new buffer (never a view of the snapshot's memory). */
  take(): Uint8Array {
    const out = new Uint8Array(this.#size)
    let at = 0
    for (const p of this.#parts) {
      out.set(p, at)
      at += p.byteLength
    }
    this.#parts = []
    this.#size = 0
    return out
  }
}

const buffers = new WeakMap<Uint8Array, Buffer>()
function bufferOf(data: Uint8Array): Buffer {
  let b = buffers.get(data)
  if (!b) buffers.set(data, (b = Buffer.from(data.buffer, data.byteOffset, data.byteLength)))
  return b
}

function ascending(rows: Int32Array): boolean {
  for (let j = 1; j < rows.length; j++) if (rows[j] !== rows[j - 1]! + 1) return false
  return true
}

function gather<T extends { [i: number]: number }>(src: { [i: number]: number }, rows: Int32Array, out: T): T {
  for (let j = 0; j < rows.length; j++) out[j] = src[rows[j]!]!
  return out
}

/** Arrow validity bitmap (LSB first) of `present` into `bits` (zeroed here), or none when every value is present. */
function validity(bits: Uint8Array, n: number, present: (j: number) => boolean): [Uint8Array | undefined, number] {
  bits.fill(0)
  let nulls = 0
  for (let j = 0; j < n; j++) {
    if (present(j)) bits[j >> 3]! |= 1 << (j & 7)
    else nulls++
  }
  return nulls === 0 ? [undefined, 0] : [bits, nulls]
}

const absentByDict = new WeakMap<string[], Uint8Array>()
function absentCodes(col: DictColumn): Uint8Array {
  let a = absentByDict.get(col.dict)
  if (!a) {
    a = new Uint8Array(col.dict.length + 1)
    col.dict.forEach((v, i) => { a![i] = v === '' ? 1 : 0 })
    absentByDict.set(col.dict, a)
  }
  return a
}

let nextDictId = 0
/** Arrow dictionaries of the store's dictionaries, made once per snapshot (the arrays are the snapshot's). */
const vectors = new WeakMap<string[], Vector>()
function dictionaryOf(c: ExportColumn): Vector | undefined {
  const values = c.kind === 'dict' ? c.col.dict : c.kind === 'rover' || c.kind === 'camera-name' ? c.dict : undefined
  if (!values) return undefined
  let v = vectors.get(values)
  if (!v) vectors.set(values, (v = vectorFromArray(values, new Utf8())))
  return v
}

function indexType(codes: DictColumn['codes'] | Uint8Array | Int16Array): DataType {
  if (codes instanceof Int8Array) return new Int8()
  if (codes instanceof Int16Array) return new Int16()
  if (codes instanceof Uint8Array) return new Uint8()
  if (codes instanceof Uint16Array) return new Uint16()
  if (codes instanceof Uint32Array) return new Uint32()
  return new Int32()
}

function typeOf(c: ExportColumn, _i: number, dict: Vector | undefined): DataType {
  switch (c.kind) {
    case 'int32': return new Int32()
    case 'date': return new DateDay()
    case 'timestamp': return new Timestamp(TimeUnit.MILLISECOND, 'UTC')
    case 'f64': return new Float64()
    case 'f32': return new Float32()
    case 'utf8':
    case 'image': return new Utf8()
    case 'dict': return new Dictionary(dict!.type, indexType(c.col.codes) as never, nextDictId++)
    case 'rover': return new Dictionary(dict!.type, new Uint8(), nextDictId++)
    case 'camera-name': return new Dictionary(dict!.type, new Int16(), nextDictId++)
  }
}
