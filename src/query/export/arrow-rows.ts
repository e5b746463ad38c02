import { Dictionary, Field, Message, Schema } from 'apache-arrow'
import { BufferRegion, DictionaryBatch, FieldNode, RecordBatch } from 'apache-arrow/ipc/metadata/message'
import { ROVERS } from '../../catalog/rovers'
import type { PhotoColumns } from '../../store/schema'
import { absentCodes, gather, hasNegative, Scratch, typeOf, utf8Of } from './arrow-parts'
import { bufferOf } from '../bytes/byte-sink'
import { ByteOut } from './byte-out'
import { imageStart, type ExportColumn } from './export-columns'
import { fragmentsOf, type BoundFragments, type Fragments } from './fragments'
import type { RowWriter } from './row-writer'

/**
 * Export rows as an Arrow IPC stream (application/vnd.apache.arrow.stream; Arrow columnar
 * format, "IPC Streaming Format"): the schema message, each dictionary once (the store's own
 * dictionary), one record batch per chunk, then the end-of-stream marker. Typed columns: Int32,
 * DateDay, Timestamp(ms, UTC), Float64/Float32, Utf8, and Dictionary<Utf8> for the store's
 * dictionary columns.
 *
 * The framing is written here (continuation marker, metadata length, the flatbuffer metadata
 * that apache-arrow's Message encodes, 8-byte padding, the body buffers): apache-arrow's writer
 * assembles Data objects per batch and copies the body once more into its sink, which cost more
 * than the rows themselves. When a chunk's rows are one ascending run of the table (the default
 * order), its fixed-width, string and dictionary-code buffers are slices of the snapshot's own
 * columns, handed to the response as they are; otherwise the values are gathered into buffers
 * reused by every batch. Only validity bitmaps, int64 timestamps, rebased string offsets and the
 * image URLs (folder + file name) are always built.
 */
export class ArrowRows implements RowWriter {
  readonly schema: Schema
  readonly #dicts: Array<string[] | undefined>
  readonly #scratch = new Scratch()
  /** Per batch: the body's buffers (views) and their regions, the field nodes. */
  #bufs: Uint8Array[] = []
  #nodes: FieldNode[] = []
  /** Image folders as bytes (URL = folder + file name), bound to each image column's scratch writer. */
  readonly #dirTable: Fragments
  readonly #boundDirs = new Map<ByteOut, BoundFragments>()
  readonly #urls = new ByteOut(1 << 16)
  /** The memory of the snapshot's columns and encoded dictionaries: views of it never change and go to the sink as they are. */
  readonly #stable: Set<ArrayBufferLike>
  /** Per column: how many image columns there are from it to the last. */
  readonly #imagesFrom: number[]
  /** `camera.full_name` code per (rover, camera code), -1 until first asked. */
  readonly #fullName: Int16Array

  constructor(readonly p: PhotoColumns, readonly columns: ExportColumn[]) {
    this.#dicts = columns.map((c) => (c.kind === 'dict' ? c.col.dict : c.kind === 'rover' || c.kind === 'camera-name' ? c.dict : undefined))
    let nextId = 0
    this.schema = new Schema(columns.map((c, i) => new Field(c.name, typeOf(c, this.#dicts[i] ? nextId++ : -1), c.name !== 'id')))
    this.#dirTable = fragmentsOf(p.image_dir.dict, 'raw', (v) => v)
    this.#stable = new Set(Object.values(p).flatMap((c) => (ArrayBuffer.isView(c) ? [c.buffer] : c && typeof c === 'object' ? Object.values(c).filter(ArrayBuffer.isView).map((v) => v.buffer) : [])))
    this.#imagesFrom = columns.map((_, i) => columns.slice(i).filter((c) => c.kind === 'image').length)
    this.#fullName = new Int16Array(ROVERS.length * Math.max(1, p.camera.dict.length)).fill(-1)
  }

  start(o: ByteOut): void {
    writeMessage(o, Message.encode(Message.from(this.schema)))
    this.schema.fields.forEach((f, i) => {
      const values = this.#dicts[i]
      if (!values) return
      // The dictionary's values as one Utf8 array: "" is a value like any other (rows whose value is absent are null).
      const d = utf8Of(values)
      this.#stable.add(d.offsets.buffer)
      this.#stable.add(d.data.buffer)
      this.#bufs = [EMPTY, bytesOf(d.offsets), d.data]
      const batch = new RecordBatch(values.length, [new FieldNode(values.length, 0)], this.#regions(), null)
      this.#writeBody(o, Message.encode(Message.from(new DictionaryBatch(batch, (f.type as Dictionary).id, false), this.#bodyLength())))
    })
  }

  end(o: ByteOut): void {
    o.int32le(-1)
    o.int32le(0)
  }

  failure(): undefined {
    return undefined
  }

  rows(o: ByteOut, rows: Int32Array, n: number): void {
    if (n === 0) return
    const run = rows[n - 1]! - rows[0]! === n - 1 && ascending(rows, n) ? rows[0]! : -1
    this.#bufs = []
    this.#nodes = []
    this.#urls.reset()
    for (let i = 0; i < this.columns.length; i++) this.#column(this.columns[i]!, i, rows, n, run)
    const batch = new RecordBatch(n, this.#nodes, this.#regions(), null)
    this.#writeBody(o, Message.encode(Message.from(batch, this.#bodyLength())))
  }

  #dirsIn(out: ByteOut): BoundFragments {
    let b = this.#boundDirs.get(out)
    if (!b) this.#boundDirs.set(out, (b = this.#dirTable.bind(out)))
    return b
  }

  #regions(): BufferRegion[] {
    let at = 0
    return this.#bufs.map((b) => {
      const r = new BufferRegion(at, b.byteLength)
      at += pad8(b.byteLength)
      return r
    })
  }

  #bodyLength(): number {
    let s = 0
    for (const b of this.#bufs) s += pad8(b.byteLength)
    return s
  }

  #writeBody(o: ByteOut, meta: Uint8Array): void {
    writeMessage(o, meta)
    for (const b of this.#bufs) {
      o.external(b, this.#stable.has(b.buffer))
      o.zeros(pad8(b.byteLength) - b.byteLength)
    }
  }

  /** One column's field node and buffers (validity first). */
  #add(n: number, nulls: number, validity: Uint8Array | undefined, ...buffers: Uint8Array[]): void {
    this.#nodes.push(new FieldNode(n, nulls))
    this.#bufs.push(nulls > 0 ? validity! : EMPTY, ...buffers)
  }

  #column(c: ExportColumn, i: number, rows: Int32Array, n: number, run: number): void {
    const s = this.#scratch
    const bits = s.bytes(`v${i}`, (n + 7) >> 3)
    switch (c.kind) {
      case 'int32':
      case 'date': {
        const v = run >= 0 ? c.values.subarray(run, run + n) : gather(c.values, rows, n, s.i32(`g${i}`, n))
        let nulls = 0
        if (hasNegative(c.values)) {
          bits.fill(0)
          for (let j = 0; j < n; j++) if (v[j]! >= 0) bits[j >> 3]! |= 1 << (j & 7); else nulls++
        }
        return this.#add(n, nulls, bits, bytesOf(v))
      }
      case 'f64': {
        const v = run >= 0 ? c.values.subarray(run, run + n) : gather(c.values, rows, n, s.f64(`g${i}`, n))
        bits.fill(0)
        let nulls = 0
        const g = c.group
        if (g) {
          const [x, y, z] = g as [Float64Array, Float64Array, Float64Array]
          for (let j = 0; j < n; j++) {
            const r = rows[j]!
            if (Number.isFinite(x[r]!) && Number.isFinite(y[r]!) && Number.isFinite(z[r]!)) bits[j >> 3]! |= 1 << (j & 7)
            else nulls++
          }
        } else for (let j = 0; j < n; j++) if (v[j] === v[j]) bits[j >> 3]! |= 1 << (j & 7); else nulls++
        return this.#add(n, nulls, bits, bytesOf(v))
      }
      case 'f32': {
        const v = run >= 0 ? c.values.subarray(run, run + n) : gather(c.values, rows, n, s.f32(`g${i}`, n))
        bits.fill(0)
        let nulls = 0
        for (let j = 0; j < n; j++) if (v[j] === v[j]) bits[j >> 3]! |= 1 << (j & 7); else nulls++
        return this.#add(n, nulls, bits, bytesOf(v))
      }
      case 'timestamp': {
        // int64 ms written as two int32 halves (little-endian), without a BigInt per row.
        const halves = s.i32(`t${i}`, 2 * n)
        bits.fill(0)
        let nulls = 0
        const v = c.values
        for (let j = 0; j < n; j++) {
          const t = v[rows[j]!]!
          if (!(Math.abs(t) <= 8.64e15)) {
            halves[2 * j] = 0
            halves[2 * j + 1] = 0
            nulls++
            continue
          }
          const ms = Math.trunc(t)
          const hi = Math.floor(ms / 4294967296)
          halves[2 * j] = (ms - hi * 4294967296) | 0
          halves[2 * j + 1] = hi
          bits[j >> 3]! |= 1 << (j & 7)
        }
        return this.#add(n, nulls, bits, bytesOf(halves))
      }
      case 'utf8': {
        const src = c.col.offsets
        const offsets = s.i32(`o${i}`, n + 1)
        bits.fill(0)
        let nulls = 0
        let data: Uint8Array
        offsets[0] = 0
        if (run >= 0) {
          const base = src[run]!
          for (let j = 0; j < n; j++) {
            const b = src[run + j + 1]!
            offsets[j + 1] = b - base
            if (b > src[run + j]!) bits[j >> 3]! |= 1 << (j & 7); else nulls++
          }
          data = c.col.data.subarray(base, src[run + n]!)
        } else {
          let size = 0
          for (let j = 0; j < n; j++) {
            const r = rows[j]!
            const len = src[r + 1]! - src[r]!
            size += len
            offsets[j + 1] = size
            if (len > 0) bits[j >> 3]! |= 1 << (j & 7); else nulls++
          }
          const out = s.bytes(`b${i}`, size)
          const from = bufferOf(c.col.data)
          const to = bufferOf(out)
          for (let j = 0; j < n; j++) {
            const r = rows[j]!
            if (src[r + 1]! > src[r]!) from.copy(to, offsets[j]!, src[r]!, src[r + 1]!)
          }
          data = out
        }
        return this.#add(n, nulls, bits, bytesOf(offsets), data)
      }
      case 'dict': {
        const codes = run >= 0 ? c.col.codes.subarray(run, run + n) : gather(c.col.codes, rows, n, s.like(`g${i}`, c.col.codes, n))
        const absent = absentCodes(c.col)
        let nulls = 0
        if (absent) {
          bits.fill(0)
          for (let j = 0; j < n; j++) if (!absent[codes[j]!]) bits[j >> 3]! |= 1 << (j & 7); else nulls++
        }
        return this.#add(n, nulls, bits, bytesOf(codes))
      }
      case 'rover': {
        const codes = run >= 0 ? this.p.rover.subarray(run, run + n) : gather(this.p.rover, rows, n, s.bytes(`g${i}`, n))
        return this.#add(n, 0, undefined, codes)
      }
      case 'camera-name': {
        const codes = s.i16(`g${i}`, n)
        const table = this.#fullName
        const cams = Math.max(1, this.p.camera.dict.length)
        bits.fill(0)
        let nulls = 0
        for (let j = 0; j < n; j++) {
          const r = rows[j]!
          const key = this.p.rover[r]! * cams + this.p.camera.codes[r]!
          let code = table[key]
          if (code === undefined) code = c.codeOf(this.p.rover[r]!, this.p.camera.codes[r]!)
          else if (code < 0) code = table[key] = c.codeOf(this.p.rover[r]!, this.p.camera.codes[r]!)
          codes[j] = code
          if (code !== 0) bits[j >> 3]! |= 1 << (j & 7); else nulls++
        }
        return this.#add(n, nulls, bits, bytesOf(codes))
      }
      case 'image': {
        // URL = folder + file name, both copied natively (no view per row), in one pass: the
        // offsets are where the writer stands after each row.
        const offsets = s.i32(`o${i}`, n + 1)
        const dirCodes = this.p.image_dir.codes
        const fileOffsets = c.col.offsets
        const files = bufferOf(c.col.data)
        const rover = this.p.rover
        // Every image column of the batch appends to one writer (reset per batch): its bytes
        // are views until the batch is drained, and the folders are attached to it once.
        const out = this.#urls
        const dirs = this.#dirsIn(out)
        const from = out.pos
        bits.fill(0)
        let nulls = 0
        offsets[0] = 0
        if (run >= 0) {
          const base = fileOffsets[run]!
          // Room for this column at most and, by its measure, the image columns after it: the
          // writer grows once in a first batch rather than doubling per column (each step a
          // garbage buffer). Other orders grow as they go.
          out.ensure((fileOffsets[run + n]! - base + n * dirs.widest) * this.#imagesFrom[i]!)
          // The run's file names are one range of the column: staged beside the folders, each
          // URL is then two copies within one buffer.
          const staged = out.stage(files, base, fileOffsets[run + n]!) - base
          for (let j = 0; j < n; j++) {
            const r = run + j
            const a = imageStart(c, rover[r]!, r, this.p)
            if (a >= 0) {
              dirs.write(out, dirCodes[r]!)
              out.frag(staged + a, staged + fileOffsets[r + 1]!)
              bits[j >> 3]! |= 1 << (j & 7)
            } else nulls++
            offsets[j + 1] = out.pos - from
          }
          return this.#add(n, nulls, bits, bytesOf(offsets), out.buf.subarray(from, out.pos))
        }
        for (let j = 0; j < n; j++) {
          const r = rows[j]!
          const a = imageStart(c, rover[r]!, r, this.p)
          if (a >= 0) {
            dirs.write(out, dirCodes[r]!)
            out.copy(files, a, fileOffsets[r + 1]!)
            bits[j >> 3]! |= 1 << (j & 7)
          } else nulls++
          offsets[j + 1] = out.pos - from
        }
        return this.#add(n, nulls, bits, bytesOf(offsets), out.buf.subarray(from, out.pos))
      }
    }
  }
}

const EMPTY = new Uint8Array(0)

/** One encapsulated message: continuation marker, metadata length (padded to 8), metadata, padding. */
function writeMessage(o: ByteOut, meta: Uint8Array): void {
  const aligned = (meta.byteLength + 8 + 7) & ~7
  o.int32le(-1)
  o.int32le(aligned - 8)
  o.external(meta, false)
  o.zeros(aligned - 8 - meta.byteLength)
}

const pad8 = (n: number) => (n + 7) & ~7

function bytesOf(v: ArrayBufferView): Uint8Array {
  return v instanceof Uint8Array ? v : new Uint8Array(v.buffer, v.byteOffset, v.byteLength)
}

function ascending(rows: Int32Array, n: number): boolean {
  for (let j = 1; j < n; j++) if (rows[j] !== rows[j - 1]! + 1) return false
  return true
}
