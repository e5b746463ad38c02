import type { AccessPaths, SortField } from '../../store/access-paths'
import type { Order } from './order'
import { partition, type Source } from '../plan/sources'
import type { SortValue } from './sort-values'

/**
 * Ordered walks: rows of a source produced in the requested order, in batches, so a page can
 * be taken after looking at only as many rows as it needs. A source is walkable when it is
 * already in the order:
 *  - default order: all rows, or row lists that are each in row order (k-way merged);
 *  - one sort key: slices of that field's permutation, ascending as stored, descending by
 *    walking the groups of equal values backwards (ids stay ascending inside a group, absent
 *    values stay last).
 * A cursor is a packed-key bound (Order.cursorBound): the walk starts at the first row whose
 * key reaches it, found by binary search, so a deep cursor costs no more than a first page.
 */
export interface CursorPosition {
  values: SortValue[]
  id: number
}

export type BatchSink = (batch: Int32Array, len: number) => boolean

export function walkable(src: Source, order: Order): boolean {
  if (order.isDefault) return src.rowOrdered
  const s = order.single
  if (!s) return false
  return src.field === s.field
}

const BATCH = 1024

/** Walks `src` in `order` from the first row whose packed key is >= minKey, in batches; stops when the sink returns false. */
export function walk(src: Source, order: Order, paths: AccessPaths, minKey: number, sink: BatchSink): void {
  const batch = new Int32Array(BATCH)
  let len = 0
  const push = (row: number): boolean => {
    batch[len++] = row
    if (len === BATCH) {
      const go = sink(batch, len)
      len = 0
      return go
    }
    return true
  }
  const flush = () => { if (len > 0) sink(batch, len); len = 0 }

  if (order.isDefault) {
    // Keys are row numbers.
    const from = Math.max(0, minKey)
    if (src.perm === null) {
      for (let i = 0; i < src.slices.length; i += 2) {
        for (let r = Math.max(src.slices[i], from); r < src.slices[i + 1]; r++) if (!push(r)) return
      }
      return flush()
    }
    if (mergeRuns(src.perm, src.slices, from, push)) flush()
    return
  }

  const perm = src.perm!
  const { field, desc } = order.single!
  const n = paths.perm.id.length
  if (!desc) {
    // Ascending as stored: keys increase along the permutation.
    for (let i = 0; i < src.slices.length; i += 2) {
      const e = src.slices[i + 1]
      const s = minKey > 0 ? partition(src.slices[i], e, (pos) => order.keyOf(perm[pos]) < minKey) : src.slices[i]
      for (let pos = s; pos < e; pos++) if (!push(perm[pos])) return
    }
    return flush()
  }
  if (field === 'id') {
    // perm_id backwards (ids are unique); key = n-1-position.
    const last = n - 1 - Math.max(0, minKey)
    for (let i = src.slices.length - 2; i >= 0; i -= 2) {
      for (let pos = Math.min(src.slices[i + 1] - 1, last); pos >= src.slices[i]; pos--) if (!push(perm[pos])) return
    }
    return flush()
  }
  if (walkDescending(perm, src.slices, paths, field, n, minKey, push)) flush()
}

/**
 * Descending by groups of equal rank, ids ascending inside a group, absent values (rank === d)
 * last. key = K * n + idRank with K = d-1-rank (absent: d); rows from minKey on.
 */
function walkDescending(perm: Int32Array, slices: number[], paths: AccessPaths, field: Exclude<SortField, 'id'>, n: number, minKey: number, push: (row: number) => boolean): boolean {
  const rank = paths.rank[field]
  const d = paths.meta.distinct[field]
  const idRank = paths.idRank()
  const kb = Math.max(0, Math.floor(minKey / n))
  const ib = Math.max(0, minKey - kb * n)
  // Present values: groups of rank <= rb (rank rb from idRank ib on); none when the bound is in the absent block.
  const rb = kb < d ? d - 1 - kb : -1
  const nullStart = partition(0, perm.length, (pos) => rank[perm[pos]] < d)
  const nulls: Array<[number, number]> = []
  for (let i = slices.length - 2; i >= 0; i -= 2) {
    const s = slices[i]
    let e = slices[i + 1]
    if (e > nullStart) { nulls.unshift([Math.max(s, nullStart), e]); e = Math.max(s, nullStart) }
    // Skip the groups that sort before the bound (rank above rb).
    if (e > s) e = partition(s, e, (pos) => rank[perm[pos]] <= rb)
    let j = e
    while (j > s) {
      const g = rank[perm[j - 1]]
      let gs = j - 1
      while (gs > s && rank[perm[gs - 1]] === g) gs--
      const from = g === rb ? partition(gs, j, (pos) => idRank[perm[pos]] < ib) : gs
      for (let pos = from; pos < j; pos++) if (!push(perm[pos])) return false
      j = gs
    }
  }
  for (const [s, e] of nulls) {
    const from = kb === d ? partition(s, e, (pos) => idRank[perm[pos]] < ib) : kb > d ? e : s
    for (let pos = from; pos < e; pos++) if (!push(perm[pos])) return false
  }
  return true
}

/** k-way merge of row-ascending slices of perm, rows >= from. Returns false when stopped early. */
function mergeRuns(perm: Int32Array, slices: number[], from: number, push: (row: number) => boolean): boolean {
  const k = slices.length / 2
  const pos = new Int32Array(k)
  const end = new Int32Array(k)
  for (let i = 0; i < k; i++) {
    const s = slices[2 * i]
    const e = slices[2 * i + 1]
    pos[i] = from > 0 ? partition(s, e, (p) => perm[p] < from) : s
    end[i] = e
  }
  if (k === 1) {
    for (let p = pos[0]; p < end[0]; p++) if (!push(perm[p])) return false
    return true
  }
  // Min-heap of run indices keyed by their current row.
  const heap = new Int32Array(k)
  let size = 0
  const head = (run: number) => perm[pos[run]]
  const up = (j: number) => {
    const x = heap[j]
    while (j > 0) {
      const parent = (j - 1) >> 1
      if (head(heap[parent]) <= head(x)) break
      heap[j] = heap[parent]
      j = parent
    }
    heap[j] = x
  }
  const down = () => {
    const x = heap[0]
    let j = 0
    for (;;) {
      let c = 2 * j + 1
      if (c >= size) break
      if (c + 1 < size && head(heap[c + 1]) < head(heap[c])) c++
      if (head(heap[c]) >= head(x)) break
      heap[j] = heap[c]
      j = c
    }
    heap[j] = x
  }
  for (let i = 0; i < k; i++) if (pos[i] < end[i]) { heap[size] = i; up(size++) }
  while (size > 0) {
    const run = heap[0]
    if (!push(perm[pos[run]])) return false
    pos[run]++
    if (pos[run] >= end[run]) {
      heap[0] = heap[--size]
      if (size > 0) down()
    } else down()
  }
  return true
}
