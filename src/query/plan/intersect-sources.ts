import type { Source } from './sources'

/**
 * Two index sources that together satisfy every filter (e.g. the value ranges of perm_mast_azimuth
 * and perm_mast_elevation) are intersected through a bitset of the table's rows: the rows of the
 * first set bits, the rows of the second are kept when their bit is set. Both permutations are
 * read in order and the bitset (n / 8 bytes: 240 kB at 1.9M rows) stays in cache, so each row
 * costs a fraction of reading its column values at random or scanning the whole table (angle
 * bounds: about 4 times faster than either, measured).
 */
let bits = new Int32Array(0)

/**
 * Rows of `keep` (in its order) that are also in `mark`, appended to out from 0; returns how many.
 * `rows` is the table's row count.
 */
export function intersectSources(mark: Source, keep: Source, rows: number, out: Int32Array): number {
  const words = (rows + 31) >>> 5
  if (bits.length < words) bits = new Int32Array(words)
  const b = bits
  b.fill(0, 0, words)
  setBits(b, mark)
  let m = 0
  const perm = keep.perm
  for (let i = 0; i < keep.slices.length; i += 2) m = perm === null ? keepRange(b, keep.slices[i], keep.slices[i + 1], out, m) : keepPerm(b, perm, keep.slices[i], keep.slices[i + 1], out, m)
  return m
}

function setBits(b: Int32Array, s: Source): void {
  const perm = s.perm
  for (let i = 0; i < s.slices.length; i += 2) {
    const to = s.slices[i + 1]
    if (perm === null) for (let r = s.slices[i]; r < to; r++) b[r >>> 5] |= 1 << (r & 31)
    else for (let pos = s.slices[i]; pos < to; pos++) { const r = perm[pos]; b[r >>> 5] |= 1 << (r & 31) }
  }
}

function keepPerm(b: Int32Array, perm: Int32Array, from: number, to: number, out: Int32Array, m: number): number {
  for (let pos = from; pos < to; pos++) {
    const r = perm[pos]
    out[m] = r
    m += (b[r >>> 5] >>> (r & 31)) & 1
  }
  return m
}

function keepRange(b: Int32Array, from: number, to: number, out: Int32Array, m: number): number {
  for (let r = from; r < to; r++) {
    out[m] = r
    m += (b[r >>> 5] >>> (r & 31)) & 1
  }
  return m
}
