import { DateDay, Dictionary, Float32, Float64, Int8, Int16, Int32, TimeUnit, Timestamp, Uint8, Uint16, Uint32, Utf8, type DataType } from 'apache-arrow'
import type { DictColumn } from '../../store/schema'
import type { ExportColumn } from './export-columns'

/**
 * The pieces an Arrow batch is assembled from (arrow-rows.ts): the Arrow type of each export
 * column, buffers reused by every batch, and per-column facts found once per snapshot.
 */

export type Codes = DictColumn['codes']

export function gather<T extends Codes | Float64Array | Float32Array>(src: { [i: number]: number }, rows: Int32Array, n: number, out: T): T {
  for (let j = 0; j < n; j++) out[j] = src[rows[j]!]!
  return out
}

/** Buffers reused by every batch of one export, by slot; grown when a batch needs more. */
export class Scratch {
  readonly #slots = new Map<string, ArrayBufferView>()
  #take<T extends ArrayBufferView>(slot: string, make: (n: number) => T, fits: (a: T) => boolean, view: (a: T) => T, n: number): T {
    let a = this.#slots.get(slot) as T | undefined
    if (!a || !fits(a)) this.#slots.set(slot, (a = make(Math.max(n, 1024))))
    return view(a)
  }
  bytes(slot: string, n: number): Uint8Array {
    return this.#take(slot, (k) => new Uint8Array(k), (a) => a.length >= n, (a) => a.subarray(0, n), n)
  }
  i16(slot: string, n: number): Int16Array {
    return this.#take(slot, (k) => new Int16Array(k), (a) => a.length >= n, (a) => a.subarray(0, n), n)
  }
  i32(slot: string, n: number): Int32Array {
    return this.#take(slot, (k) => new Int32Array(k), (a) => a.length >= n, (a) => a.subarray(0, n), n)
  }
  f32(slot: string, n: number): Float32Array {
    return this.#take(slot, (k) => new Float32Array(k), (a) => a.length >= n, (a) => a.subarray(0, n), n)
  }
  f64(slot: string, n: number): Float64Array {
    return this.#take(slot, (k) => new Float64Array(k), (a) => a.length >= n, (a) => a.subarray(0, n), n)
  }
  like<T extends Codes>(slot: string, proto: T, n: number): T {
    const Ctor = proto.constructor as new (k: number) => T
    return this.#take(slot, (k) => new Ctor(k), (a) => a.length >= n && a.constructor === Ctor, (a) => a.subarray(0, n) as T, n)
  }
}

/** Whether an int column holds any absent value (-1): one scan per column array, remembered. */
const negatives = new WeakMap<Int32Array, boolean>()
export function hasNegative(v: Int32Array): boolean {
  let h = negatives.get(v)
  if (h === undefined) {
    h = false
    for (let i = 0; i < v.length; i++) if (v[i]! < 0) { h = true; break }
    negatives.set(v, h)
  }
  return h
}

/** Per dictionary: which codes stand for an absent value (""), or undefined when none does. */
const absentByDict = new WeakMap<string[], Uint8Array | null>()
export function absentCodes(col: DictColumn): Uint8Array | undefined {
  let a = absentByDict.get(col.dict)
  if (a === undefined) {
    a = null
    const marks = new Uint8Array(col.dict.length + 1)
    col.dict.forEach((v, i) => { if (v === '') { marks[i] = 1; a = marks } })
    absentByDict.set(col.dict, a)
  }
  return a ?? undefined
}

/**
 * A dictionary's values as an Arrow Utf8 array (offsets, UTF-8 bytes), encoded once per
 * dictionary array (the snapshot's: repeated exports send the same bytes and build nothing).
 * One native encode of the joined values; the offsets from each value's UTF-8 length.
 */
const utf8ByDict = new WeakMap<readonly string[], { offsets: Int32Array; data: Uint8Array }>()
export function utf8Of(values: readonly string[]): { offsets: Int32Array; data: Uint8Array } {
  let u = utf8ByDict.get(values)
  if (!u) {
    const offsets = new Int32Array(values.length + 1)
    let at = 0
    for (let i = 0; i < values.length; i++) {
      at += Buffer.byteLength(values[i]!, 'utf8')
      offsets[i + 1] = at
    }
    const data = new Uint8Array(Math.max(at, 1)).subarray(0, at)
    Buffer.from(data.buffer, data.byteOffset, at).write(values.join(''), 'utf8')
    utf8ByDict.set(values, (u = { offsets, data }))
  }
  return u
}

function indexType(codes: Codes | Uint8Array | Int16Array): DataType {
  if (codes instanceof Int8Array) return new Int8()
  if (codes instanceof Int16Array) return new Int16()
  if (codes instanceof Uint8Array) return new Uint8()
  if (codes instanceof Uint16Array) return new Uint16()
  if (codes instanceof Uint32Array) return new Uint32()
  return new Int32()
}

export function typeOf(c: ExportColumn, dictId: number): DataType {
  switch (c.kind) {
    case 'int32': return new Int32()
    case 'date': return new DateDay()
    case 'timestamp': return new Timestamp(TimeUnit.MILLISECOND, 'UTC')
    case 'f64': return new Float64()
    case 'f32': return new Float32()
    case 'utf8':
    case 'image': return new Utf8()
    case 'dict': return new Dictionary(new Utf8(), indexType(c.col.codes) as never, dictId)
    case 'rover': return new Dictionary(new Utf8(), new Uint8(), dictId)
    case 'camera-name': return new Dictionary(new Utf8(), new Int16(), dictId)
  }
}
