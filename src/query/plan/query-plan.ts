import type { Store } from '../../store/store'
import { compileFilters, type Filter, type FilterName, type PhotoFilters } from '../scan/filters'
import { planGrids, type PlanGrid } from './photo-grids'
import { nasaIdSource } from './nasa-id-source'
import { allRows, indexSources, type Source } from './sources'

/**
 * The plan of a photo query (shared by list, cursor and stats), made with binary searches and
 * per-cell arithmetic only:
 *  - the compiled filters, and the index sources that can produce candidate rows;
 *  - the source to count on: its size is the count when it satisfies every filter, else its rows
 *    go through the remaining (residual) filters;
 *  - optionally a second source whose rows the first must also be in (bitset intersection);
 *  - the count itself when a value grid answers every filter of the plan (photo-grids.ts).
 */
export interface QueryPlan {
  filters: Map<FilterName, Filter>
  sources: Source[]
  best: Source
  /** Rows must also be in this source (bitset intersection); the residual filters exclude what it covers. */
  marked?: Source
  /** The filters `best` (and `marked`) leave to test, most selective first. */
  residual: Filter[]
  /** Rows passing every filter, when known without a scan of the rows. */
  count?: number
  empty: boolean
  /** Rows in the table. */
  tableRows: number
  /** The filters to test on the rows of `src`: those it does not cover, most selective first. */
  testsFor(src: Source): Filter[]
}

/** Sources larger than this share of all rows make the nasa_id byte search worth running. */
const NASA_SEARCH_SHARE = 1 / 16

export function planQuery(store: Store, f: PhotoFilters): QueryPlan {
  const p = store.photos
  const paths = store.paths
  const compiled = compileFilters(p, paths.nasaIdFolded, f, paths.aspectRatio)
  let cameraCodes: number[] | undefined
  if (f.cameras) {
    const want = new Set(f.cameras)
    cameraCodes = []
    p.camera.dict.forEach((name, i) => { if (name !== '' && want.has(name)) cameraCodes!.push(i) })
  }
  const grids = compiled.empty ? [] : planGrids(store, f, compiled.byName)
  const sources = [allRows(p.length), ...(compiled.empty ? [] : indexSources(store, f, cameraCodes)), ...grids.flatMap((g) => (g.match.source ? [g.match.source] : []))]
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
  // Most selective first: a source covering only one filter tells exactly how many rows pass
  // it, a grid how many pass its filters; the others are guessed.
  const passing = new Map<FilterName, number>()
  for (const s of sources) if (s.covers.size === 1) for (const n of s.covers) passing.set(n, Math.min(passing.get(n) ?? Infinity, s.size))
  const guess = (n: FilterName) => passing.get(n) ?? (n === 'nasaId' ? p.length / 20 : p.length / 2)
  const testsFor = (covered: (n: FilterName) => boolean): Filter[] => {
    const tests: Array<[number, Filter]> = []
    const viaGrid = new Set<PlanGrid>()
    for (const [name, filter] of compiled.byName) {
      if (covered(name)) continue
      // The filters of a grid run as its one cell test (exact on the rows of edge cells).
      const g = grids.find((x) => x.names.has(name))
      if (!g) tests.push([guess(name), filter])
      else if (!viaGrid.has(g)) { viaGrid.add(g); tests.push([g.match.estimate, g.match.filter]) }
    }
    return tests.sort((a, b) => a[0] - b[0]).map(([, t]) => t)
  }
  const residual = testsFor((n) => best.covers.has(n) || !!marked?.covers.has(n))
  // A grid that answers every filter counts them, unless scanning the best source reads fewer rows.
  const g = grids.length === 1 && grids[0].names.size === filterCount ? grids[0].match : undefined
  const count = g && g.edgeRows <= cost(best, filterCount) ? g.count() : undefined
  if (marked) best = { ...best, label: `${best.label}&${marked.label}` }
  return {
    filters: compiled.byName,
    sources,
    best,
    marked,
    residual,
    count,
    empty: compiled.empty,
    tableRows: p.length,
    testsFor: (src) => testsFor((n) => src.covers.has(n)),
  }
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
