import { ROVER_SLUGS } from '../../catalog/rovers'

/**
 * Row ranges of the derived tables (locations, panoramas), which the builder writes ordered by
 * rover code first (src/store/schema.ts). Memoised per column array: a store snapshot never
 * changes, so each snapshot computes its ranges once.
 */
const roverStarts = new WeakMap<Uint8Array, Int32Array>()

/** starts[r]..starts[r + 1] are the rows of rover code r (length ROVER_SLUGS.length + 1). */
export function roverRanges(rover: Uint8Array, length: number): Int32Array {
  let starts = roverStarts.get(rover)
  if (!starts) {
    starts = new Int32Array(ROVER_SLUGS.length + 1)
    for (let r = 0; r <= ROVER_SLUGS.length; r++) starts[r] = lowerBound(rover, 0, length, r)
    roverStarts.set(rover, starts)
  }
  return starts
}

/** First index in [lo, hi) whose value is >= v, for `values` ascending over [lo, hi). */
export function lowerBound(values: ArrayLike<number>, lo: number, hi: number, v: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (values[mid]! < v) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** A lower bound on an Int32 column: keep rows whose value is >= min. */
export type Bound = readonly [values: Int32Array, min: number]

/**
 * The rows of one page over a list of row ranges, keeping only rows that pass every bound (at
 * most two; all rows when none), and the total count. Tight loops over typed arrays, no closure
 * per row: a full scan of ~100k panoramas takes well under a millisecond.
 */
export function pageRows(ranges: ReadonlyArray<readonly [number, number]>, bounds: readonly Bound[], offset: number, limit: number): { total: number; rows: number[] } {
  const rows: number[] = []
  let total = 0
  if (bounds.length === 0) {
    for (const [lo, hi] of ranges) {
      const size = hi - lo
      for (let i = Math.max(0, offset - total); i < size && rows.length < limit; i++) rows.push(lo + i)
      total += size
    }
    return { total, rows }
  }
  if (bounds.length > 2) throw new Error('pageRows takes at most two bounds')
  const [a, amin] = bounds[0]!
  const [b, bmin] = bounds.length === 2 ? bounds[1]! : bounds[0]!
  let seen = 0
  const end = offset + limit
  for (const [lo, hi] of ranges) {
    total += countPassing(a, amin, b, bmin, lo, hi)
    if (seen < end) seen = collectPassing(a, amin, b, bmin, lo, hi, seen, offset, end, rows)
  }
  return { total, rows }
}

/** Rows of [lo, hi) with a >= amin and b >= bmin, counted without a branch per row. */
function countPassing(a: Int32Array, amin: number, b: Int32Array, bmin: number, lo: number, hi: number): number {
  let c = 0
  for (let row = lo; row < hi; row++) c += +(a[row]! >= amin) & +(b[row]! >= bmin)
  return c
}

/** Pushes the passing rows numbered [offset, end) (counting from `seen`) into `rows`; returns the new count, stopping at `end`. */
function collectPassing(a: Int32Array, amin: number, b: Int32Array, bmin: number, lo: number, hi: number, seen: number, offset: number, end: number, rows: number[]): number {
  for (let row = lo; row < hi && seen < end; row++) {
    if (a[row]! < amin || b[row]! < bmin) continue
    if (seen >= offset) rows.push(row)
    seen++
  }
  return seen
}

/**
 * The page and the total over the rows of `ranges` whose `values` are >= min, without a scan:
 * the rows passing the bound, in table order, are listed once per column and threshold
 * (rowsAtLeast), so each row range maps to a range of that list by two binary searches.
 */
export function pageRowsAtLeast(ranges: ReadonlyArray<readonly [number, number]>, values: Int32Array, min: number, offset: number, limit: number): { total: number; rows: number[] } {
  const list = rowsAtLeast(values, min)
  const within = ranges.map(([lo, hi]): [number, number] => [lowerBound(list, 0, list.length, lo), lowerBound(list, 0, list.length, hi)])
  const hit = pageRows(within, [], offset, limit)
  for (let i = 0; i < hit.rows.length; i++) hit.rows[i] = list[hit.rows[i]!]!
  return hit
}

/**
 * Rows with values[row] >= min, ascending, memoised per column and threshold (thresholds above
 * the largest value share one empty entry; at most MAX_THRESHOLDS are kept per column, then the
 * memo starts again), so a bound costs one scan of the column per threshold, not per request.
 */
const passing = new WeakMap<Int32Array, { max: number; byMin: Map<number, Int32Array> }>()
const MAX_THRESHOLDS = 64

export function rowsAtLeast(values: Int32Array, min: number): Int32Array {
  let memo = passing.get(values)
  if (!memo) {
    let max = 0
    for (let row = 0; row < values.length; row++) if (values[row]! > max) max = values[row]!
    passing.set(values, (memo = { max, byMin: new Map() }))
  }
  const key = Math.min(min, memo.max + 1)
  let list = memo.byMin.get(key)
  if (!list) {
    const out = new Int32Array(values.length)
    let n = 0
    for (let row = 0; row < values.length; row++) if (values[row]! >= key) out[n++] = row
    list = out.slice(0, n)
    if (memo.byMin.size >= MAX_THRESHOLDS) memo.byMin.clear()
    memo.byMin.set(key, list)
  }
  return list
}
