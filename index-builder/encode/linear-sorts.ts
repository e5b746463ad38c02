import type { Utf8Column } from '../../src/store/schema'

/**
 * The sorts behind the access paths, each linear (or linear in the bytes read) in the rows, so a
 * 19M-row build does not pay a comparator call per comparison: counting sorts on small dense
 * keys, an LSD radix sort on 31-bit ints, an MSD radix sort on UTF-8 bytes. Every sort is stable
 * with respect to the order the rows are visited in (`visit`, or row order), which is how ties
 * are broken by id or by row.
 */

export type Keys = ArrayLike<number>

/**
 * The rows visited in `visit` order (default 0..n-1), stably sorted by `key[row]`, an integer in
 * 0..range-1. One pass to count, one to place: O(n + range).
 */
export function countingSort(key: Keys, range: number, n: number, visit?: Int32Array, into?: Int32Array, counts?: Int32Array): Int32Array {
  const start = counts && counts.length > range ? counts.fill(0, 0, range + 1) : new Int32Array(range + 1)
  for (let r = 0; r < n; r++) start[key[r]! + 1]++
  for (let k = 0; k < range; k++) start[k + 1] += start[k]!
  const out = into ?? new Int32Array(n)
  if (visit) {
    for (let i = 0; i < n; i++) {
      const r = visit[i]!
      out[start[key[r]!]!++] = r
    }
  } else {
    for (let r = 0; r < n; r++) out[start[key[r]!]!++] = r
  }
  return out
}

/** Rows 0..n-1 sorted by `values[row]` (non-negative int32), ties by row: two 16-bit counting passes. */
export function radixSortRows(values: Int32Array, n: number): Int32Array {
  const low = new Uint16Array(n)
  const high = new Uint16Array(n)
  for (let r = 0; r < n; r++) {
    const v = values[r]!
    if (v < 0) throw new Error(`radixSortRows: negative key ${v} at row ${r}`)
    low[r] = v & 0xffff
    high[r] = v >>> 16
  }
  return countingSort(high, 0x10000, n, countingSort(low, 0x10000, n))
}

/** A numeric column and how absent values are marked in it (schema.ts): negative ints, NaN floats. */
export type NumberColumn = Int32Array | Float64Array | Float32Array

/**
 * Working arrays of the radix sorts, allocated once per table and reused by every column's
 * sort: at 19M rows a fresh set per column would be ~1 GB of garbage per column, which the
 * allocator does not hand back to the system quickly enough to keep the peak down.
 */
export class SortScratch {
  readonly hi: Uint32Array
  readonly lo: Uint32Array
  readonly digit: Uint16Array
  readonly ping: Int32Array
  readonly pong: Int32Array
  readonly counts = new Int32Array(0x10001)
  readonly ranks: Int32Array
  constructor(readonly n: number) {
    this.ranks = new Int32Array(n)
    this.hi = new Uint32Array(n)
    this.lo = new Uint32Array(n)
    this.digit = new Uint16Array(n)
    this.ping = new Int32Array(n)
    this.pong = new Int32Array(n)
  }
}

/**
 * Order-preserving unsigned keys of a numeric column, most significant word first: a row's
 * keys compare (as unsigned ints) like its values, absent values (negative ints, NaN) above
 * every present one, and -0 equal to 0. With `descending`, present values compare reversed
 * (absent still last).
 */
function sortableKeys(values: NumberColumn, n: number, descending: boolean, scratch: SortScratch): Uint32Array[] {
  if (values instanceof Int32Array) {
    const k = scratch.hi
    for (let r = 0; r < n; r++) {
      const v = values[r]!
      k[r] = v < 0 ? 0xffffffff : descending ? 0x7fffffff - v : v
    }
    return [k]
  }
  if (values instanceof Float32Array) {
    const bits = new Uint32Array(values.buffer, values.byteOffset, n)
    const k = scratch.hi
    for (let r = 0; r < n; r++) {
      const v = values[r]!
      if (v !== v) { k[r] = 0xffffffff; continue }
      const b = v === 0 ? 0 : bits[r]!
      const key = b & 0x80000000 ? ~b >>> 0 : (b | 0x80000000) >>> 0
      k[r] = descending ? (0xfffffffe - key) >>> 0 : key
    }
    return [k]
  }
  const words = new Uint32Array(values.buffer, values.byteOffset, 2 * n)
  const { hi, lo } = scratch
  for (let r = 0; r < n; r++) {
    const v = values[r]!
    if (v !== v) { hi[r] = 0xffffffff; lo[r] = 0xffffffff; continue }
    let h = v === 0 ? 0 : words[2 * r + 1]!
    let l = v === 0 ? 0 : words[2 * r]!
    if (h & 0x80000000) { h = ~h >>> 0; l = ~l >>> 0 } else h = (h | 0x80000000) >>> 0
    if (descending) { h = (0xfffffffe - h) >>> 0; l = (0xffffffff - l) >>> 0 }
    hi[r] = h
    lo[r] = l
  }
  return [hi, lo]
}

/**
 * The rows visited in `visit` order (default row order), stably sorted by value ascending
 * (`descending`: descending), absent values last: an LSD radix sort over 16-bit digits of the
 * sortable keys, skipping digits every row shares.
 */
export function numberOrder(values: NumberColumn, n: number, visit?: Int32Array, descending = false, scratch = new SortScratch(n)): Int32Array {
  const keys = sortableKeys(values, n, descending, scratch)
  let order = visit ?? identity(n)
  const { digit, counts } = scratch
  let into = scratch.ping
  for (let w = keys.length - 1; w >= 0; w--) {
    const k = keys[w]!
    for (const shift of [0, 16]) {
      let same = true
      const first = (k[0]! >>> shift) & 0xffff
      for (let r = 0; r < n; r++) {
        const d = (k[r]! >>> shift) & 0xffff
        digit[r] = d
        if (d !== first) same = false
      }
      if (same) continue
      order = countingSort(digit, 0x10000, n, order, into, counts)
      into = into === scratch.ping ? scratch.pong : scratch.ping
    }
  }
  return order === scratch.ping || order === scratch.pong ? order.slice(0, n) : order === visit ? order.slice() : order
}

/** Dense ranks along rows sorted by value (absent last): equal neighbours share a rank; absent rows get the count of distinct present values. */
export function ranksAlong(order: Int32Array, values: NumberColumn, n: number, into?: Int32Array): { ranks: Int32Array; count: number } {
  const ranks = into ?? new Int32Array(n)
  const absent = values instanceof Int32Array ? (v: number) => v < 0 : (v: number) => v !== v
  let count = 0
  let prev = NaN
  let i = 0
  for (; i < n; i++) {
    const v = values[order[i]!]!
    if (absent(v)) break
    if (count === 0 || v !== prev) count++
    prev = v
    ranks[order[i]!] = count - 1
  }
  for (; i < n; i++) ranks[order[i]!] = count
  return { ranks, count }
}

function identity(n: number): Int32Array {
  const out = new Int32Array(n)
  for (let r = 0; r < n; r++) out[r] = r
  return out
}

/**
 * Dense ranks of the non-empty values of a Utf8 column in byte order; "" is absent (rank =
 * count). Byte order of UTF-8 is code point order, which is JS string (UTF-16) order unless a
 * value holds a character above U+FFFF: the caller checks `utf8OrderIsStringOrder` first.
 */
export function utf8Ranks(col: Utf8Column, n: number): { ranks: Int32Array; count: number } {
  const { data, offsets } = col
  let m = 0
  for (let r = 0; r < n; r++) if (offsets[r + 1]! > offsets[r]!) m++
  const rows = new Int32Array(m)
  let j = 0
  for (let r = 0; r < n; r++) if (offsets[r + 1]! > offsets[r]!) rows[j++] = r
  msdSort(rows, new Int32Array(m), 0, m, 0, data, offsets, [])
  const ranks = new Int32Array(n)
  let count = 0
  for (let i = 0; i < m; i++) {
    if (i === 0 || compareFrom(rows[i - 1]!, rows[i]!, 0, data, offsets) !== 0) count++
    ranks[rows[i]!] = count - 1
  }
  for (let r = 0; r < n; r++) if (offsets[r + 1] === offsets[r]) ranks[r] = count
  return { ranks, count }
}

/** No 4-byte UTF-8 sequence (a character above U+FFFF), so byte order equals JS string order. */
export function utf8OrderIsStringOrder(col: Utf8Column): boolean {
  const d = col.data
  for (let i = 0; i < d.length; i++) if (d[i]! >= 0xf0) return false
  return true
}

const SMALL = 24

/** Sorts rows[lo..hi) by their bytes from `depth` on (all share bytes before it). */
/** `counts[depth]`: the bucket counters of one level, reused by every call at that depth (no allocation per call). */
function msdSort(rows: Int32Array, tmp: Int32Array, lo: number, hi: number, depth: number, data: Uint8Array, offsets: Int32Array, counts: Int32Array[]): void {
  if (hi - lo <= SMALL) {
    for (let i = lo + 1; i < hi; i++) {
      const r = rows[i]!
      let k = i - 1
      while (k >= lo && compareFrom(rows[k]!, r, depth, data, offsets) > 0) {
        rows[k + 1] = rows[k]!
        k--
      }
      rows[k + 1] = r
    }
    return
  }
  // Bucket 0: the value ends at `depth`; bucket b + 1: next byte b.
  const level = (counts[depth] ??= new Int32Array(2 * 258))
  const start = level.subarray(0, 258).fill(0)
  const bucketStart = level.subarray(258)
  for (let i = lo; i < hi; i++) {
    const r = rows[i]!
    const p = offsets[r]! + depth
    start[(p < offsets[r + 1]! ? data[p]! + 1 : 0) + 1]++
  }
  if (start[1] === hi - lo) return
  for (let b = 0; b < 257; b++) start[b + 1] += start[b]!
  bucketStart.set(start)
  for (let i = lo; i < hi; i++) {
    const r = rows[i]!
    const p = offsets[r]! + depth
    tmp[lo + start[p < offsets[r + 1]! ? data[p]! + 1 : 0]!++] = r
  }
  rows.set(tmp.subarray(lo, hi), lo)
  for (let b = 1; b < 257; b++) {
    const a = lo + bucketStart[b]!
    const z = lo + start[b]!
    if (z - a > 1) msdSort(rows, tmp, a, z, depth + 1, data, offsets, counts)
  }
}

function compareFrom(a: number, b: number, depth: number, data: Uint8Array, offsets: Int32Array): number {
  let i = offsets[a]! + depth
  let k = offsets[b]! + depth
  const ea = offsets[a + 1]!
  const eb = offsets[b + 1]!
  while (i < ea && k < eb) {
    const d = data[i++]! - data[k++]!
    if (d !== 0) return d
  }
  return ea - i - (eb - k)
}
