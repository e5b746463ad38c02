import type { Store } from '../../store/store'
import type { Filter, PhotoFilters } from '../scan/filters'
import type { Order } from '../order/order'
import { planQuery, type QueryPlan } from '../plan/query-plan'
import { intersectSources } from '../plan/intersect-sources'
import { RowTest } from '../scan/row-test'
import { selectPage } from './select-page'
import { partition, type Source } from '../plan/sources'
import { walk, walkable, type CursorPosition } from '../order/walk'

/**
 * The executor shared by list, cursor and stats:
 *  1. plan (query-plan.ts): compile the filters, find the index sources and value grids
 *     (binary searches and per-cell arithmetic only);
 *  2. count: the best source's size when it satisfies every filter, or the grid's count when a
 *     grid answers every filter, else a scan of its rows through the remaining filters (one
 *     generated loop, row-test.ts);
 *  3. take the page: straight from the matches when they are already in order, by walking a
 *     source that is in the requested order when that touches fewer rows (with a budget, so a
 *     walk whose matches bunch at the far end gives up early), else by selecting the page's
 *     rows from the matches (heap / quickselect on packed keys).
 * Nothing per row is allocated; the page's rows are the only output.
 */
export interface PageRequest {
  /** Rows to skip (page mode). */
  offset: number
  /** Rows wanted. The caller asks for one more than the page to learn whether more follow. */
  limit: number
  /** Continue after this position (cursor mode; offset is then 0). */
  after?: CursorPosition
}

export interface QueryOutcome {
  /** Photos matching the filters (the cursor does not change it). */
  total: number
  rows: Int32Array
  /** How the rows were found (for tests and the bench). */
  plan: string
}

let selScratch = new Int32Array(0)
function scratch(len: number): Int32Array {
  if (selScratch.length < len) selScratch = new Int32Array(Math.max(len, 1024))
  return selScratch
}

/** Rows per chunk of a scan: small enough for the chunk and its column reads to stay in cache. */
const CHUNK = 16_384
const chunkBuf = new Int32Array(CHUNK)

/**
 * Streams the rows of `src` that pass `test` to `sink`, chunk by chunk (the chunk buffer is
 * reused: the sink must copy what it keeps). Every filter runs in one compiled pass per chunk.
 */
function scan(src: Source, test: RowTest, sink: (rows: Int32Array, len: number) => void): void {
  const perm = src.perm
  for (let i = 0; i < src.slices.length; i += 2) {
    const e = src.slices[i + 1]
    for (let a = src.slices[i]; a < e; a += CHUNK) {
      const len = test.scan(a, Math.min(e, a + CHUNK), perm, chunkBuf, 0)
      if (len > 0) sink(chunkBuf, len)
    }
  }
}

/** Every matching row into the scratch buffer: sel[0..len) in no particular order (copy before the next query). */
function collect(prep: QueryPlan): { sel: Int32Array; len: number } {
  const sel = scratch(prep.best.size)
  let m = 0
  if (prep.marked) {
    // Every filter is covered by the pair (prepare() only pairs sources that cover them all).
    return { sel, len: intersectSources(prep.marked, prep.best, prep.tableRows, sel) }
  }
  const test = new RowTest(prep.residual)
  const { slices, perm } = prep.best
  for (let i = 0; i < slices.length; i += 2) m = test.scan(slices[i], slices[i + 1], perm, sel, m)
  return { sel, len: m }
}

/**
 * Streams every matching row to the aggregation sinks of stats: `rows(sel, len)` for row
 * lists, `range(from, to)` when every row of a stretch of the table matches (no filter to run:
 * the aggregation then reads the columns in order, without a row list).
 */
export function scanMatches(store: Store, f: PhotoFilters, sink: { rows(sel: Int32Array, len: number): void; range(from: number, to: number): void }): void {
  const prep = planQuery(store, f)
  if (prep.empty) return
  if (prep.marked) {
    const { sel, len } = collect(prep)
    if (len > 0) sink.rows(sel, len)
    return
  }
  if (prep.best.perm === null && prep.residual.length === 0) {
    for (let i = 0; i < prep.best.slices.length; i += 2) sink.range(prep.best.slices[i], prep.best.slices[i + 1])
    return
  }
  scan(prep.best, new RowTest(prep.residual), (rows, len) => sink.rows(rows, len))
}

export function runQuery(store: Store, f: PhotoFilters, order: Order, req: PageRequest): QueryOutcome {
  const prep = planQuery(store, f)
  if (prep.empty) return { total: 0, rows: new Int32Array(0), plan: 'empty' }
  const { best, residual } = prep
  const want = req.offset + req.limit
  // A cursor is a bound on the packed sort key (every order that can be walked packs).
  const minKey = req.after && order.packed ? order.cursorBound(req.after.values, req.after.id) : -Infinity

  // Count: free when the source satisfies every filter or a grid answers them all, else one
  // scan that also collects.
  const covered = residual.length === 0 && !prep.marked
  let collected: { sel: Int32Array; len: number } | undefined
  let total = best.size
  if (!covered) {
    if (prep.count !== undefined) total = prep.count
    else {
      collected = collect(prep)
      total = collected.len
    }
  }
  if (!req.after && req.offset >= total) return { total, rows: new Int32Array(0), plan: `${best.label}:past-end` }

  // The matches are one stretch already in order: the page is a slice of it.
  const inOrder = order.isDefault && best.rowOrdered && best.slices.length === 2
  if (inOrder && covered) {
    const [a, b] = best.slices
    const perm = best.perm
    let from = a + req.offset
    if (req.after) from = perm === null ? Math.max(a, minKey) : partition(a, b, (pos) => perm[pos] < minKey)
    const to = Math.min(b, from + req.limit)
    const rows = new Int32Array(Math.max(0, to - from))
    for (let i = 0; i < rows.length; i++) rows[i] = perm === null ? from + i : perm[from + i]
    return { total, rows, plan: `${best.label}:slice` }
  }

  // Walk a source that is in the requested order when that reads fewer rows than selecting.
  if (!inOrder && order.packed && total > 0) {
    let walkSrc: Source | undefined
    let walkCost = Infinity
    const candidates = prep.sources.filter((s) => walkable(s, order))
    if (!order.isDefault && order.single) candidates.push(fullPerm(store, order))
    for (const s of candidates) {
      const uncovered = [...prep.filters.keys()].filter((n) => !s.covers.has(n)).length
      // Rows visited until `want` matches, if matches are spread evenly over the source, plus
      // the heap of a merge of several row lists in the default order.
      const runs = order.isDefault && s.perm !== null ? s.slices.length / 2 : 0
      const cost = (uncovered === 0 ? want : (want * s.size) / total) + (runs > 1 ? runs : 0)
      if (cost < walkCost) { walkSrc = s; walkCost = cost }
    }
    const selectCost = collected ? collected.len : best.size
    if (walkSrc && walkCost < selectCost / 2) {
      // A skewed walk (matches bunched at the far end) gives up after the cost of a select.
      const rows = walkPage(store, walkSrc, order, prep.testsFor(walkSrc), req, minKey, selectCost / 2)
      if (rows) return { total, rows, plan: `${best.label}:walk-${walkSrc.label}` }
    }
  }

  // Select the page from every match.
  collected ??= collect(prep)
  const sel = collected.sel
  let m = collected.len
  if (req.after) {
    if (order.packed && !inOrder) {
      const rows = selectPage(sel, m, order, 0, req.limit, minKey)
      return { total, rows, plan: `${best.label}:select-after` }
    }
    m = afterCursor(order, req.after, minKey, sel, m)
  }
  const offset = req.after ? 0 : req.offset
  const rows = inOrder ? sel.slice(offset, Math.min(m, offset + req.limit)) : selectPage(sel, m, order, offset, req.limit)
  return { total, rows, plan: `${best.label}:${inOrder ? 'slice' : 'select'}` }
}

function fullPerm(store: Store, order: Order): Source {
  const field = order.single!.field
  const perm = store.paths.perm[field]
  return { perm, slices: [0, perm.length], size: perm.length, covers: new Set(), rowOrdered: false, scattered: true, field, label: `perm-${field}` }
}

/** Keeps the rows after the cursor position (row numbers in the default order, else values compared). */
function afterCursor(order: Order, after: CursorPosition, minKey: number, sel: Int32Array, len: number): number {
  let m = 0
  if (order.isDefault) {
    for (let i = 0; i < len; i++) if (sel[i] >= minKey) sel[m++] = sel[i]
    return m
  }
  for (let i = 0; i < len; i++) {
    const r = sel[i]
    if (order.compareToPosition(r, after.values, after.id) > 0) sel[m++] = r
  }
  return m
}

/**
 * Walks `src` in order through `filters`, skipping `offset` matches and keeping `limit`.
 * Gives up (undefined) after `budget` rows so a badly skewed walk never costs more than a collect.
 */
function walkPage(store: Store, src: Source, order: Order, filters: Filter[], req: PageRequest, minKey: number, budget: number): Int32Array | undefined {
  const out = new Int32Array(req.limit)
  let kept = 0
  let skip = req.after ? 0 : req.offset
  let visited = 0
  let gaveUp = false
  const test = new RowTest(filters)
  walk(src, order, store.paths, minKey, (batch, len) => {
    visited += len
    const m = test.refine(batch, len)
    let i = 0
    if (skip > 0) {
      const k = Math.min(skip, m)
      skip -= k
      i = k
    }
    for (; i < m && kept < req.limit; i++) out[kept++] = batch[i]
    if (kept >= req.limit) return false
    if (visited > budget) { gaveUp = true; return false }
    return true
  })
  if (gaveUp) return undefined
  return out.subarray(0, kept)
}
