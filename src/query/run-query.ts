import type { Store } from '../store/store'
import { compileFilters, type Filter, type FilterName, type PhotoFilters } from './filters'
import type { Order } from './order'
import { intersectSources } from './intersect-sources'
import { RowTest } from './row-test'
import { selectPage } from './select-page'
import { allRows, indexSources, nasaIdSource, partition, type Source } from './sources'
import { walk, walkable, type CursorPosition } from './walk'

/**
 * The planner and executor shared by list, cursor and stats:
 *  1. compile the filters and find the index sources (binary searches only);
 *  2. count on the smallest source: its size when it satisfies every filter, else a scan of
 *     its rows through the remaining filters (typed-array loops over a selection vector);
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

/** Sources larger than this share of all rows make the nasa_id byte search worth running. */
const NASA_SEARCH_SHARE = 1 / 16

interface Prepared {
  filters: Map<FilterName, Filter>
  sources: Source[]
  best: Source
  /** Rows must also be in this source (bitset intersection); the residual filters exclude what it covers. */
  marked?: Source
  residual: Filter[]
  empty: boolean
  /** Rows in the table. */
  tableRows: number
}

function prepare(store: Store, f: PhotoFilters): Prepared {
  const p = store.photos
  const paths = store.paths
  const compiled = compileFilters(p, paths.nasaIdFolded, f, paths.aspectRatio)
  let cameraCodes: number[] | undefined
  if (f.cameras) {
    const want = new Set(f.cameras)
    cameraCodes = []
    p.camera.dict.forEach((name, i) => { if (name !== '' && want.has(name)) cameraCodes!.push(i) })
  }
  const sources = [allRows(p.length), ...(compiled.empty ? [] : indexSources(p, paths, f, cameraCodes))]
  const filterCount = compiled.byName.size
  let best = smallest(sources, filterCount)
  if (f.nasaId !== undefined && f.nasaId !== '' && best.size > p.length * NASA_SEARCH_SHARE && !compiled.empty) {
    const s = nasaIdSource(paths, f.nasaId)
    sources.push(s)
    best = smallest(sources, filterCount)
  }
  // Two sources that together satisfy every filter, intersected through a bitset, when that
  // reads fewer rows than counting on the best one (intersect-sources.ts).
  let marked: Source | undefined
  if (best.covers.size < filterCount) {
    let pairCost = cost(best, filterCount)
    for (const a of sources) for (const b of sources) {
      if (a === b || (a.perm === null && a.slices[1] - a.slices[0] === p.length)) continue
      const union = new Set([...a.covers, ...b.covers])
      const c = (a.size + b.size) * BITSET_COST
      if (union.size === filterCount && c < pairCost) { pairCost = c; marked = a; best = b }
    }
  }
  // The remaining filters, most selective first: a source covering only one filter tells
  // exactly how many rows pass it; the others are guessed.
  const passing = new Map<FilterName, number>()
  for (const s of sources) if (s.covers.size === 1) for (const n of s.covers) passing.set(n, Math.min(passing.get(n) ?? Infinity, s.size))
  const guess = (n: FilterName) => passing.get(n) ?? (n === 'nasaId' ? p.length / 20 : p.length / 2)
  const residual = [...compiled.byName]
    .filter(([name]) => !best.covers.has(name) && !marked?.covers.has(name))
    .sort((a, b) => guess(a[0]) - guess(b[0]))
    .map(([, f]) => f)
  if (marked) best = { ...best, label: `${best.label}&${marked.label}` }
  return { filters: compiled.byName, sources, best, marked, residual, empty: compiled.empty, tableRows: p.length }
}

/**
 * The cheapest source to count on. A source that satisfies every filter is counted by its size
 * without reading a row, so among those the smallest wins over any scan. Otherwise the cost is
 * the rows read, weighted by how scattered they are: a permutation of a field unrelated to time
 * reads rows in random order, about 3.5 times the cost of a sequential read on the reference
 * machine (also with the fused scans of row-test.ts: a quarter of the rows through
 * perm_mast_azimuth took about as long as every row in order).
 */
function smallest(sources: Source[], filters: number): Source {
  let best = sources[0]
  for (const s of sources) if (cost(s, filters) < cost(best, filters) || (cost(s, filters) === cost(best, filters) && s.covers.size > best.covers.size)) best = s
  return best
}

function cost(s: Source, filters: number): number {
  return s.covers.size === filters ? s.size * COVERED_COST : s.size * (s.scattered ? SCATTERED_COST : 1)
}

const SCATTERED_COST = 3.5
/** Per row of a source that needs no scan (its size is the count; only the page's rows are read). */
const COVERED_COST = 1 / 1024
/** Per row of either source of a bitset intersection (sequential reads, bit operations in cache). */
const BITSET_COST = 0.5

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
function collect(prep: Prepared): { sel: Int32Array; len: number } {
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
  const prep = prepare(store, f)
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
  const prep = prepare(store, f)
  if (prep.empty) return { total: 0, rows: new Int32Array(0), plan: 'empty' }
  const { best, residual } = prep
  const want = req.offset + req.limit
  // A cursor is a bound on the packed sort key (every order that can be walked packs).
  const minKey = req.after && order.packed ? order.cursorBound(req.after.values, req.after.id) : -Infinity

  // Count: free when the source satisfies every filter, else one scan that also collects.
  let collected: { sel: Int32Array; len: number } | undefined
  let total = best.size
  if (residual.length > 0 || prep.marked) {
    collected = collect(prep)
    total = collected.len
  }
  if (!req.after && req.offset >= total) return { total, rows: new Int32Array(0), plan: `${best.label}:past-end` }

  // The matches are one stretch already in order: the page is a slice of it.
  const inOrder = order.isDefault && best.rowOrdered && best.slices.length === 2
  if (inOrder && !collected) {
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
      // Rows visited until `want` matches, if matches are spread evenly over the source.
      const cost = uncovered === 0 ? want : (want * s.size) / total
      if (cost < walkCost) { walkSrc = s; walkCost = cost }
    }
    const selectCost = collected ? collected.len : best.size
    if (walkSrc && walkCost < selectCost / 2) {
      const filters = [...prep.filters.entries()].filter(([n]) => !walkSrc!.covers.has(n)).map(([, x]) => x)
      // A skewed walk (matches bunched at the far end) gives up after the cost of a select.
      const rows = walkPage(store, walkSrc, order, filters, req, minKey, selectCost / 2)
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
