import { DataType, Message, MessageHeader, type Field, type Schema } from 'apache-arrow'
import { checkCodes, typeProblem } from './arrow-columns'
import type { ColumnKind, ColumnLayout } from './column-layout'
import { IndexLoadError } from './index-load-error'
import { dictionaryBatchStrings, fieldSpan } from './ipc-layout'
import type { DictColumn, Utf8Column } from './schema'
import { ROVER_SLUGS } from '../catalog/rovers'

/**
 * A push decoder of one Arrow IPC file (format: "ARROW1" magic, then dictionary batches and
 * record batches, each a continuation marker, a metadata length, a flatbuffer and a body, then
 * the end-of-stream marker and the footer, which holds the schema the decoder is made with):
 * fed the file's bytes in order, in parts of any size, it copies each
 * record batch's column buffers straight into one typed array per column, allocated once from
 * the schema (and its `utf8_bytes` metadata). Each message's metadata is decoded once; no
 * apache-arrow Vector, Data or per-batch buffer is built, so the memory is the columns plus
 * whatever part the caller holds. Only the photo layout's kinds occur (no List columns).
 */
const MAGIC = [0x41, 0x52, 0x52, 0x4f, 0x57, 0x31] // "ARROW1"
/** Bounds on what is gathered into memory before being decoded (real ones are KBs). */
const MAX_METADATA = 1 << 24
const MAX_DICTIONARY_BODY = 1 << 28

type Step =
  | { kind: 'gather'; start: number; bytes: Uint8Array; filled: number; done: (bytes: Uint8Array) => void }
  | { kind: 'body'; start: number; end: number; copies: Copy[]; done: () => void }

/**
 * File bytes [from, from + into.length) go into `into`. A copy with `resolve` learns its range
 * when the stream first reaches `from` (a Utf8 column's bytes: from its offsets, copied before).
 */
interface Copy {
  from: number
  into: Uint8Array
  resolve?: () => { from: number; into: Uint8Array }
}

interface Column {
  name: string
  kind: ColumnKind
  field: Field
  node: number
  buffer: number
}

export class BatchStream {
  private step: Step | undefined
  private columns: Column[] = []
  private out: Record<string, any> | undefined
  private readonly dicts = new Map<number, string[]>()
  private readonly textAt = new Map<string, number>()
  private at = 0
  private ended = false

  constructor(
    private readonly path: string,
    private readonly layout: ColumnLayout,
    private readonly rows: number,
    schema: Schema,
    fileBytes: number,
  ) {
    this.schema(schema, fileBytes)
    this.gather(0, 8, (b) => {
      if (MAGIC.some((c, i) => b[i] !== c)) this.fail('does not start with the Arrow file magic')
      this.message(8)
    })
  }

  /** The file's bytes [start, start + part.length), fed in order. */
  feed(part: Uint8Array, start: number): void {
    const end = start + part.length
    while (this.step && this.step.start < end) {
      const s = this.step
      if (s.kind === 'gather') {
        const from = s.start + s.filled
        const n = Math.min(s.bytes.length - s.filled, end - from)
        s.bytes.set(part.subarray(from - start, from - start + n), s.filled)
        s.filled += n
        if (s.filled < s.bytes.length) return
        s.done(s.bytes)
      } else {
        for (const c of s.copies) {
          if (c.resolve) {
            if (c.from >= end) continue
            Object.assign(c, c.resolve(), { resolve: undefined })
          }
          const lo = Math.max(c.from, start)
          const hi = Math.min(c.from + c.into.length, end)
          if (lo < hi) c.into.set(part.subarray(lo - start, hi - start), lo - c.from)
        }
        if (s.end > end) return
        s.done()
      }
    }
  }

  /** The columns, once the whole file was fed. */
  finish(): Record<string, unknown> {
    if (!this.ended || !this.out) this.fail('ends before its end-of-stream marker')
    if (this.at !== this.rows) this.fail(`holds ${this.at} rows, the manifest says ${this.rows}`)
    const out = this.out!
    for (const c of this.columns) {
      if (c.kind === 'utf8') {
        const col = out[c.name] as Utf8Column
        const n = this.textAt.get(c.name) ?? 0
        if (n < col.data.length) col.data = col.data.subarray(0, n)
        continue
      }
      if (!DataType.isDictionary(c.field.type)) continue
      const dict = this.dicts.get(c.field.type.id)
      if (!dict) this.fail(`column "${c.name}" has no dictionary batch`)
      if (c.kind === 'rover') {
        if (dict!.length !== ROVER_SLUGS.length || dict!.some((s, i) => s !== ROVER_SLUGS[i]))
          this.fail(`column "${c.name}" dictionary is [${dict!.join(', ')}], expected [${ROVER_SLUGS.join(', ')}]`)
        checkCodes(this.path, c.name, out[c.name], this.rows, dict!.length)
      } else {
        const col = out[c.name] as DictColumn
        col.dict = dict!
        checkCodes(this.path, c.name, col.codes, this.rows, dict!.length)
      }
    }
    return out
  }

  private fail(why: string): never {
    throw new IndexLoadError(this.path, why)
  }

  private gather(start: number, length: number, done: (bytes: Uint8Array) => void): void {
    this.step = { kind: 'gather', start, bytes: new Uint8Array(length), filled: 0, done }
  }

  /** The message starting at `pos`: continuation marker, metadata length, metadata, body. */
  private message(pos: number): void {
    this.gather(pos, 8, (head) => {
      const view = new DataView(head.buffer)
      const length = view.getInt32(4, true)
      if (view.getInt32(0, true) !== -1) this.fail(`has no IPC message at byte ${pos}`)
      if (length === 0) {
        this.ended = true
        this.step = undefined
        return
      }
      if (length < 0 || length > MAX_METADATA) this.fail(`message at byte ${pos} has a metadata length of ${length}`)
      this.gather(pos + 8, length, (meta) => this.decoded(Message.decode(meta), pos + 8 + length))
    })
  }

  private decoded(msg: Message, bodyStart: number): void {
    const bodyLength = Number(msg.bodyLength)
    if (!Number.isSafeInteger(bodyLength) || bodyLength < 0) this.fail(`message at byte ${bodyStart} has a body length of ${msg.bodyLength}`)
    const next = bodyStart + bodyLength
    if (msg.isSchema()) {
      // Writers other than apache-arrow's repeat the footer's schema here; the footer's is used.
      this.message(next)
    } else if (msg.isDictionaryBatch()) {
      if (bodyLength > MAX_DICTIONARY_BODY) this.fail(`dictionary batch at byte ${bodyStart} is ${bodyLength} bytes`)
      const header = msg.header()
      this.gather(bodyStart, bodyLength, (body) => {
        this.dictionary(header.id, header.isDelta, header.data, body)
        this.message(next)
      })
    } else if (msg.isRecordBatch()) {
      this.recordBatch(msg.header(), bodyStart, bodyLength)
    } else {
      this.fail(`holds an unexpected IPC message (type ${msg.headerType}) at byte ${bodyStart}`)
    }
  }

  private schema(schema: Schema, fileBytes: number): void {
    const at = new Map<string, { field: Field; node: number; buffer: number }>()
    let node = 0
    let buffer = 0
    for (const field of schema.fields) {
      at.set(field.name, { field, node, buffer })
      const span = fieldSpan(field.type)
      if (!span) this.fail(`column "${field.name}" is of type ${field.type}, which a batched table cannot hold`)
      const [nodes, buffers] = span!
      node += nodes
      buffer += buffers
    }
    let utf8Bytes: Record<string, number>
    try {
      utf8Bytes = JSON.parse(schema.metadata.get('utf8_bytes') ?? '{}')
    } catch {
      this.fail('has malformed utf8_bytes in its schema metadata')
    }
    // Text bytes lie in the file: a damaged footer cannot make the columns outgrow it.
    const text = Object.values(utf8Bytes!).reduce((a, b) => a + (Number.isInteger(b) && b > 0 ? b : 0), 0)
    if (text > fileBytes) this.fail(`schema metadata utf8_bytes (${text}) exceed the file's ${fileBytes} bytes`)
    const out: Record<string, unknown> = { length: this.rows }
    for (const [name, kind] of this.layout) {
      const place = at.get(name)
      if (!place) this.fail(`column "${name}" is missing`)
      const problem = typeProblem(place!.field.type, kind)
      if (problem) this.fail(`column "${name}" ${problem} (found ${place!.field.type})`)
      this.columns.push({ name, kind, ...place! })
      out[name] = this.allocate(name, kind, place!.field, utf8Bytes![name])
    }
    this.out = out
  }

  private allocate(name: string, kind: ColumnKind, field: Field, utf8Bytes: number | undefined): unknown {
    const rows = this.rows
    switch (kind) {
      case 'int32':
      case 'date':
        return new Int32Array(rows)
      case 'f64':
        return new Float64Array(rows)
      case 'f32':
        return new Float32Array(rows)
      case 'utf8':
        if (!Number.isInteger(utf8Bytes) || utf8Bytes! < 0 || utf8Bytes! > 0x7fffffff) this.fail(`column "${name}": no valid utf8_bytes in the schema metadata`)
        this.textAt.set(name, 0)
        return { data: new Uint8Array(utf8Bytes!), offsets: new Int32Array(rows + 1) } satisfies Utf8Column
      case 'rover':
        return new Uint8Array(rows)
      case 'dict':
      case 'dict16': {
        const width = (field.type as any).indices.bitWidth as number
        const codes = width === 8 ? new Int8Array(rows) : width === 16 ? new Int16Array(rows) : new Int32Array(rows)
        return { codes, dict: [] } satisfies DictColumn
      }
      case 'ids':
        this.fail(`column "${name}" is a list, which a batched table cannot hold`)
    }
  }

  private dictionary(id: number, isDelta: boolean, header: { length: number; buffers: any[] }, body: Uint8Array): void {
    if (isDelta) this.fail(`dictionary ${id} has a delta (expected one dictionary batch)`)
    const strings = dictionaryBatchStrings(header, body)
    if (typeof strings === 'string') this.fail(`dictionary ${id} ${strings}`)
    const had = this.dicts.get(id)
    if (had && (had.length !== strings.length || had.some((v, i) => v !== strings[i]))) this.fail(`dictionary ${id} changes between record batches`)
    this.dicts.set(id, strings as string[])
  }

  private recordBatch(header: { length: number; nodes: any[]; buffers: any[]; compression: unknown }, bodyStart: number, bodyLength: number): void {
    const out = this.out
    if (!out) this.fail('holds a record batch before its schema')
    if (header.compression) this.fail('holds a compressed record batch')
    const n = Number(header.length)
    const at = this.at
    if (!Number.isSafeInteger(n) || n < 0 || at + n > this.rows) this.fail(`holds more than the ${this.rows} rows the manifest says`)
    const region = (c: Column, i: number, need: number): number => {
      const b = header.buffers[c.buffer + i]
      const offset = Number(b?.offset)
      const length = Number(b?.length)
      if (!b || !(length >= need) || !(offset >= 0) || offset + need > bodyLength) this.fail(`column "${c.name}" has a buffer outside its record batch`)
      return bodyStart + offset
    }
    const copies: Copy[] = []
    const texts: Array<{ col: Utf8Column; name: string }> = []
    for (const c of this.columns) {
      if (Number(header.nodes[c.node]?.length) !== n) this.fail(`column "${c.name}" has a length other than its record batch's ${n}`)
      if (c.kind === 'utf8') {
        const col = out![c.name] as Utf8Column
        const offsetsFrom = region(c, 1, (n + 1) * 4)
        copies.push({ from: offsetsFrom, into: bytesOf(col.offsets).subarray(at * 4, (at + n + 1) * 4) })
        const length = Number(header.buffers[c.buffer + 2]?.length)
        const dataFrom = region(c, 2, 0)
        if (!(length >= 0) || dataFrom + length > bodyStart + bodyLength) this.fail(`column "${c.name}" has a buffer outside its record batch`)
        if (dataFrom < offsetsFrom + (n + 1) * 4) this.fail(`column "${c.name}" has its bytes before its offsets`)
        const resolve = () => {
          // The batch's offsets are in place (they precede the bytes) but not yet rebased.
          const first = col.offsets[at]!
          const last = col.offsets[at + n]!
          const dataAt = this.textAt.get(c.name)!
          if (first < 0 || first > last || last > length) this.fail(`column "${c.name}" offsets point outside its data`)
          if (dataAt + last - first > col.data.length) this.fail(`column "${c.name}" holds more bytes than its utf8_bytes`)
          return { from: dataFrom + first, into: col.data.subarray(dataAt, dataAt + last - first) }
        }
        copies.push({ from: dataFrom, into: col.data.subarray(0, 0), resolve })
        texts.push({ col, name: c.name })
      } else {
        const values = (c.kind === 'dict' || c.kind === 'dict16' ? out![c.name].codes : out![c.name]) as Int32Array
        const w = values.BYTES_PER_ELEMENT
        copies.push({ from: region(c, 1, n * w), into: bytesOf(values).subarray(at * w, (at + n) * w) })
      }
    }
    this.step = {
      kind: 'body',
      start: bodyStart,
      end: bodyStart + bodyLength,
      copies,
      done: () => {
        // A copy the stream never reached (an empty buffer at the body's end) still checks its offsets.
        for (const c of copies) if (c.resolve) c.resolve()
        for (const t of texts) this.rebase(t.col, t.name, at, n)
        this.at = at + n
        this.message(bodyStart + bodyLength)
      },
    }
  }

  /** A batch's offsets, copied as written, moved to where its bytes went in the column. */
  private rebase(col: Utf8Column, name: string, at: number, n: number): void {
    const offsets = col.offsets
    const first = offsets[at]!
    const shift = this.textAt.get(name)! - first
    let prev = first
    for (let i = at; i <= at + n; i++) {
      const v = offsets[i]!
      if (v < prev) this.fail(`column "${name}" has decreasing offsets at row ${i}`)
      prev = v
      offsets[i] = v + shift
    }
    this.textAt.set(name, prev + shift)
  }
}

function bytesOf(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength)
}
