import { ARRIVAL_SORT_FIELDS, type AccessPaths, type RankArray } from '../store/access-paths'

/**
 * Sort paths (permutation, dense ranks, distinct count: the shape src/store/access-paths.ts
 * describes) of the two times the offline access paths do not hold: `added_at` comes from the
 * ledger, which is not part of the published content, and `date_received` joined it. Made on
 * the first query that sorts by one of them, once per snapshot: a native sort of the present
 * values, a binary search per row for its rank, and one counting pass in id order for the
 * permutation (absent values last, then id ascending, as every other field).
 */
export type ArrivalSortField = (typeof ARRIVAL_SORT_FIELDS)[number]

export interface SortPath {
  perm: Int32Array
  rank: RankArray
  distinct: number
}

export function sortPathOf(values: Float64Array, permId: Int32Array): SortPath {
  const n = values.length
  let present = 0
  for (let r = 0; r < n; r++) if (values[r] === values[r]) present++
  const sorted = new Float64Array(present)
  let k = 0
  for (let r = 0; r < n; r++) if (values[r] === values[r]) sorted[k++] = values[r]!
  sorted.sort()
  let d = 0
  for (let i = 0; i < present; i++) if (i === 0 || sorted[i] !== sorted[d - 1]) sorted[d++] = sorted[i]!
  const distinct = sorted.subarray(0, d)
  const rank = new Int32Array(n)
  const count = new Int32Array(d + 2)
  for (let r = 0; r < n; r++) {
    const v = values[r]!
    let q = d
    if (v === v) {
      let lo = 0
      let hi = d
      while (lo < hi) {
        const mid = (lo + hi) >>> 1
        if (distinct[mid]! < v) lo = mid + 1
        else hi = mid
      }
      q = lo
    }
    rank[r] = q
    count[q + 1]!++
  }
  for (let i = 1; i < count.length; i++) count[i]! += count[i - 1]!
  const perm = new Int32Array(n)
  for (let i = 0; i < permId.length; i++) {
    const r = permId[i]!
    perm[count[rank[r]!]!++] = r
  }
  return { perm, rank, distinct: d }
}

/**
 * Puts the two fields on a snapshot's access paths as lazy members: `perm`, `rank` and
 * `meta.distinct` read like the offline ones, and the work is done on first use.
 */
export function addArrivalSorts(paths: AccessPaths, columns: Record<ArrivalSortField, Float64Array>): void {
  for (const field of ARRIVAL_SORT_FIELDS) {
    let made: SortPath | undefined
    const path = () => (made ??= sortPathOf(columns[field], paths.perm.id))
    Object.defineProperty(paths.perm, field, { get: () => path().perm, enumerable: true })
    Object.defineProperty(paths.rank, field, { get: () => path().rank, enumerable: true })
    Object.defineProperty(paths.meta.distinct, field, { get: () => path().distinct, enumerable: true })
  }
}
