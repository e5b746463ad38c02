import type { RankArray } from './access-paths'

/** An axis with at most this many distinct values gets a bucket per value (exact). */
export const EXACT_BUCKETS = 255
/**
 * Otherwise sqrt(present values) / BUCKET_ROOT_DIVISOR buckets of about equal row counts, within
 * MIN_QUANTILE_BUCKETS..MAX_QUANTILE_BUCKETS: 84 for the mast angles of 1.9M photos, 255 from
 * 17M values on. A box query tests the rows of the cells its edges cross: a few bucket columns
 * and bucket rows of about rows / buckets rows each. With buckets growing as sqrt(rows), that
 * work grows as sqrt(rows), not with the rows (until the cap: a cell must fit a Uint16). The steps of classifying the cells grow only
 * with one axis's buckets (grid-match.ts walks each bucket column's cells as a few runs), the
 * build's passes are linear in the rows whatever the buckets, and a grid's memory per row does
 * not depend on them (only `start`, 4 bytes a cell, at most 256 KiB). Small tables keep 63
 * buckets: their boxes are cheap either way.
 */
export const MIN_QUANTILE_BUCKETS = 63
export const MAX_QUANTILE_BUCKETS = 255
const BUCKET_ROOT_DIVISOR = 16

/** Buckets of a non-exact axis over this many present values. */
export function quantileBuckets(present: number): number {
  return Math.min(MAX_QUANTILE_BUCKETS, Math.max(MIN_QUANTILE_BUCKETS, Math.round(Math.sqrt(present) / BUCKET_ROOT_DIVISOR)))
}

export interface GridAxis {
  /** Present buckets; bucket `buckets` holds the absent values. */
  buckets: number
  /** Smallest and largest value of each present bucket (ascending, disjoint). */
  min: Float64Array
  max: Float64Array
}

/**
 * A grid over two columns of the photo table, to count the rows inside a box of both columns
 * (width × height with an aspect ratio, mast azimuth × elevation) without reading every row:
 *  - each column's present values are cut into buckets of consecutive values: every distinct
 *    value its own bucket when there are at most EXACT_BUCKETS, else quantileBuckets(present)
 *    buckets of about equal row counts that never split a value; one more bucket holds the
 *    absent values (so at most 256 x 256 cells: a cell fits a Uint16);
 *  - `cell[row]` is the row's (x bucket, y bucket) as one Uint16: x * stride + y;
 *  - `start` holds where each cell starts in the cell order (its differences are the counts);
 *    an exact grid (both axes exact) lists the rows in that order, ascending inside a cell, so
 *    each cell's list is in the default order; any other grid keeps both columns' values in that
 *    order instead, for the rows that must be tested.
 * A box query then adds the counts of the cells wholly inside the box and tests only the rows of
 * the cells its edges cross (grid-match.ts).
 *
 * Made once per snapshot from the access paths' ranks and sort permutations in a few linear passes (no sort):
 * 6 bytes a row for an exact grid, 10 for another.
 */
export interface ValueGrid {
  x: GridAxis
  y: GridAxis
  /** Every present bucket of both axes holds one value: no box has an edge inside a cell. */
  exact: boolean
  /**
   * When not exact, both columns' values cell by cell (rows ascending inside each cell): the
   * rows of the cells a box's edge crosses are then tested by reading memory in order.
   */
  xs?: ArrayLike<number>
  ys?: ArrayLike<number>
  /** y buckets including the absent one: cell = xBucket * stride + yBucket. */
  stride: number
  /** Number of cells: (x.buckets + 1) * stride. */
  cells: number
  /** Cell of each row. */
  cell: Uint16Array
  /** Where each cell's rows start in the cell order (cells + 1 entries): start[c + 1] - start[c] rows are in cell c. */
  start: Int32Array
  /** When exact: the rows cell by cell, ascending inside each cell. */
  rows?: Int32Array
}

/** A column as the access paths order it: values, their ascending permutation (absent last) and dense ranks. */
export interface AxisColumn {
  values: ArrayLike<number>
  perm: Int32Array
  /** Dense rank of each row's value; `distinct` for an absent value. */
  rank: RankArray
  distinct: number
}

/**
 * `buckets` overrides the number of quantile buckets of a non-exact axis (at most
 * MAX_QUANTILE_BUCKETS), so small tables can be checked at the bucket counts of large ones.
 */
export function buildValueGrid(xc: AxisColumn, yc: AxisColumn, buckets?: number): ValueGrid {
  const n = xc.perm.length
  if (buckets !== undefined && !(buckets >= 1 && buckets <= MAX_QUANTILE_BUCKETS)) throw new RangeError(`quantile buckets ${buckets} outside 1..${MAX_QUANTILE_BUCKETS}`)
  const xa = bucketsOf(xc, buckets)
  const ya = bucketsOf(yc, buckets)
  const stride = ya.axis.buckets + 1
  const cells = (xa.axis.buckets + 1) * stride
  const cell = new Uint16Array(n)
  const start = new Int32Array(cells + 1)
  const bx = xa.ofRow
  const by = ya.ofRow
  for (let r = 0; r < n; r++) {
    const c = bx[r] * stride + by[r]
    cell[r] = c
    start[c + 1]++
  }
  for (let c = 0; c < cells; c++) start[c + 1] += start[c]
  const next = start.slice(0, cells)
  const exact = xa.exact && ya.exact
  const grid: ValueGrid = { x: xa.axis, y: ya.axis, exact, stride, cells, cell, start }
  // One pass in row order, each write going to its cell's next slot (few write streams).
  if (exact) {
    const rows = new Int32Array(n)
    for (let r = 0; r < n; r++) rows[next[cell[r]]++] = r
    grid.rows = rows
  } else {
    const xv = xc.values
    const yv = yc.values
    const xs = sameType(xv, n)
    const ys = sameType(yv, n)
    for (let r = 0; r < n; r++) {
      const q = next[cell[r]]++
      xs[q] = xv[r]
      ys[q] = yv[r]
    }
    grid.xs = xs
    grid.ys = ys
  }
  return grid
}

/** A new array of n elements of the column's type (Int32Array or Float32Array). */
function sameType(values: ArrayLike<number>, n: number): Int32Array | Float32Array | Float64Array {
  return new (values.constructor as new (n: number) => Int32Array | Float32Array | Float64Array)(n)
}

/**
 * The buckets of one column, and the bucket of each row: its dense rank when every value has
 * its own bucket, else written by walking the permutation bucket by bucket (sequential reads; a
 * lookup per row from rank to bucket measured 5 times slower).
 */
function bucketsOf(c: AxisColumn, quantiles?: number): { axis: GridAxis; ofRow: RankArray; exact: boolean } {
  const { perm, rank, distinct: d, values } = c
  // First position in perm whose rank is >= k (perm is ascending by rank, absent last).
  const firstOf = (k: number) => {
    let lo = 0
    let hi = perm.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (rank[perm[mid]] < k) lo = mid + 1
      else hi = mid
    }
    return lo
  }
  const present = firstOf(d)
  // Position where each bucket starts: every value's first when few, else about present / q rows apart.
  const exact = d <= EXACT_BUCKETS
  const starts: number[] = []
  if (exact) for (let k = 0; k < d; k++) starts.push(firstOf(k))
  else {
    const q = quantiles ?? quantileBuckets(present)
    for (let b = 0; b < q; b++) {
      // The first position of the value found at the quantile: equal values stay in one bucket.
      const pos = b === 0 ? 0 : firstOf(rank[perm[Math.floor((b * present) / q)]])
      if (starts.length === 0 || pos > starts[starts.length - 1]) starts.push(pos)
    }
  }
  const buckets = starts.length
  starts.push(present)
  const min = new Float64Array(buckets)
  const max = new Float64Array(buckets)
  for (let b = 0; b < buckets; b++) {
    min[b] = values[perm[starts[b]]]
    max[b] = values[perm[starts[b + 1] - 1]]
  }
  // Exact: a value's bucket is its dense rank (the absent rank, d, is the absent bucket).
  if (exact) return { axis: { buckets, min, max }, ofRow: rank, exact }
  const ofRow = new Uint8Array(perm.length)
  for (let b = 0; b < buckets; b++) for (let pos = starts[b]; pos < starts[b + 1]; pos++) ofRow[perm[pos]] = b
  for (let pos = present; pos < perm.length; pos++) ofRow[perm[pos]] = buckets
  return { axis: { buckets, min, max }, ofRow, exact }
}
