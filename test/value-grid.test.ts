import { beforeAll, describe, expect, test } from 'bun:test'
import { compileFilters, type PhotoFilters } from '../src/query/scan/filters'
import { listPhotosWithPlan } from '../src/query/answer/list-photos'
import { parsePhotoQuery } from '../src/query/params/photo-params'
import { buildPhotoGrids, photoGrids, planGrids, type PhotoGrids } from '../src/query/plan/photo-grids'
import { RowTest } from '../src/query/scan/row-test'
import type { Store } from '../src/store/store'
import { MAX_QUANTILE_BUCKETS, MIN_QUANTILE_BUCKETS, quantileBuckets, type ValueGrid } from '../src/store/value-grid'
import { bruteForce, plainPhotos, type PlainPhoto } from './support/brute-force'
import { testStore } from './setup/test-app'

/**
 * The value grids (width × height, mast azimuth × elevation) answer box filters with counts of
 * whole cells and tests of the rows along the box's edges: every count, row test and source must
 * equal a plain reading of the filters, for bounds inside buckets, exactly on bucket edges and
 * beyond the data, on the real test index (exact dimensions, bucketed angles) and on columns with
 * too many distinct values for a bucket each (bucketed on both axes, aspect ratio across cells).
 */
let store: Store
let all: PlainPhoto[]

beforeAll(async () => {
  store = await testStore()
  all = plainPhotos(store)
})

function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Every row of the grid lies in its cell's buckets, and the cells' counts add up to the table. */
function checkGrid(g: ValueGrid, x: ArrayLike<number>, y: ArrayLike<number>, absent: (v: number) => boolean) {
  const n = g.cell.length
  expect(g.start[g.cells]).toBe(n)
  for (const a of [g.x, g.y]) for (let b = 0; b < a.buckets; b++) {
    expect(a.min[b]).toBeLessThanOrEqual(a.max[b])
    if (b > 0) expect(a.max[b - 1]).toBeLessThan(a.min[b])
  }
  const seen = new Int32Array(g.cells)
  for (let r = 0; r < n; r++) {
    const c = g.cell[r]
    seen[c]++
    const bx = Math.floor(c / g.stride)
    const by = c % g.stride
    for (const [a, b, v] of [[g.x, bx, x[r]], [g.y, by, y[r]]] as const) {
      if (absent(v)) expect(b).toBe(a.buckets)
      else expect(v >= a.min[b] && v <= a.max[b]).toBe(true)
    }
  }
  for (let c = 0; c < g.cells; c++) expect(seen[c]).toBe(g.start[c + 1] - g.start[c])
  if (g.exact) {
    const rows = g.rows!
    for (let c = 0; c < g.cells; c++) for (let i = g.start[c]; i < g.start[c + 1]; i++) {
      expect(g.cell[rows[i]]).toBe(c)
      if (i > g.start[c]) expect(rows[i]).toBeGreaterThan(rows[i - 1])
    }
  } else {
    // The values in cell order are the rows' values, rows ascending inside each cell.
    const next = g.start.slice(0, g.cells)
    for (let r = 0; r < n; r++) {
      const q = next[g.cell[r]]++
      expect(Object.is(g.xs![q], x[r]) || (Number.isNaN(g.xs![q]) && Number.isNaN(x[r]))).toBe(true)
      expect(Object.is(g.ys![q], y[r]) || (Number.isNaN(g.ys![q]) && Number.isNaN(y[r]))).toBe(true)
    }
  }
}

/** The grids' answers for a plan against the rows that pass it (sorted row numbers). */
function checkPlan(s: Store, f: PhotoFilters, want: number[], over?: PhotoGrids) {
  const compiled = compileFilters(s.photos, s.paths.nasaIdFolded, f, s.paths.aspectRatio)
  const grids = planGrids(s, f, compiled.byName, over)
  expect(grids.length).toBe(1)
  const { match } = grids[0]
  expect(match.count()).toBe(want.length)
  const out = new Int32Array(s.photos.length)
  const m = new RowTest([match.filter]).refineRange(0, s.photos.length, out)
  expect([...out.subarray(0, m)]).toEqual(want)
  if (match.source) {
    const rows: number[] = []
    for (let i = 0; i < match.source.slices.length; i += 2) for (let p = match.source.slices[i]; p < match.source.slices[i + 1]; p++) rows.push(match.source.perm![p])
    expect(rows.sort((a, b) => a - b)).toEqual(want)
    expect(match.source.size).toBe(want.length)
  }
  return grids[0]
}

describe('value grids of the real test index', () => {
  test('every row lies in the buckets of its cell, the counts add up; dimensions are exact, angles bucketed', () => {
    const g = photoGrids(store)
    const p = store.photos
    checkGrid(g.dimensions, p.width, p.height, (v) => v < 0)
    checkGrid(g.angles, p.mast_azimuth, p.mast_elevation, Number.isNaN)
    expect(g.dimensions.exact).toBe(true)
    expect(g.angles.exact).toBe(false)
  })

  test('random boxes (bounds inside buckets, on bucket edges, beyond the data): count, row test, source and the listed page equal the brute force', () => {
    const r = rng(7)
    const g = photoGrids(store).angles
    const rowOfId = new Map<number, number>()
    for (let i = 0; i < store.photos.length; i++) rowOfId.set(store.photos.id[i], i)
    const edge = (a: ValueGrid['x']) => (r() < 0.5 ? a.min : a.max)[Math.floor(r() * a.buckets)]
    const pickWidth = () => all[Math.floor(r() * all.length)].width ?? 1024
    const queries: string[] = ['min_width=1024&min_height=900&aspect_ratio_min=1.2&aspect_ratio_max=1.4', 'aspect_ratio=4:3', 'mast_elevation_min=-10&mast_elevation_max=10&mast_azimuth_min=90&mast_azimuth_max=180']
    for (let i = 0; i < 30; i++) {
      const q = new URLSearchParams()
      if (i % 2 === 0) {
        const [a, b] = [edge(g.x), edge(g.x)].sort((u, v) => u - v)
        const [c, d] = [edge(g.y), edge(g.y)].sort((u, v) => u - v)
        q.set('mast_azimuth_min', String(r() < 0.3 ? Math.floor(a) : a))
        q.set('mast_azimuth_max', String(r() < 0.3 ? Math.min(360, Math.ceil(b)) : b))
        q.set('mast_elevation_min', String(r() < 0.2 ? -90 : c))
        q.set('mast_elevation_max', String(d))
      } else {
        const [w0, w1] = [pickWidth(), pickWidth()].sort((u, v) => u - v)
        if (r() < 0.7) q.set('min_width', String(Math.max(1, w0)))
        if (r() < 0.5) q.set('max_width', String(Math.max(1, w1)))
        if (r() < 0.5) q.set('min_height', String(1 + Math.floor(r() * 1200)))
        const lo = Math.round(r() * 200) / 100
        if (r() < 0.6) { q.set('aspect_ratio_min', String(lo)); q.set('aspect_ratio_max', String(lo + Math.round(r() * 100) / 100)) }
        if (!q.has('aspect_ratio_min') && !(q.has('min_height') && (q.has('min_width') || q.has('max_width')))) q.set('aspect_ratio', r() < 0.5 ? '16:9' : '4:3')
      }
      queries.push(q.toString())
    }
    let nonEmpty = 0
    for (const [i, query] of queries.entries()) {
      const params = new URLSearchParams(query)
      const want = bruteForce(all, params)
      const rows = want.map((x) => rowOfId.get(x.id)!).sort((a, b) => a - b)
      checkPlan(store, parsePhotoQuery(params, store).filters, rows)
      for (const sort of ['', i % 2 ? 'sol' : '-mast_azimuth']) {
        const ps = new URLSearchParams(`${query}${sort ? `&sort=${sort}` : ''}&per_page=7&page=2`)
        const wantPage = sort ? bruteForce(all, ps).slice(7, 14) : want.slice(7, 14)
        const { text } = listPhotosWithPlan(store, ps, 'http://localhost')
        const doc = JSON.parse(text)
        expect(doc.meta.total_count).toBe(want.length)
        expect(doc.data.map((x: { id: number }) => x.id)).toEqual(wantPage.map((x) => x.id))
      }
      if (want.length > 14) nonEmpty++
    }
    expect(nonEmpty).toBeGreaterThan(15)
  }, 60_000)
})

/** The access paths' order of a column: ascending, absent last, then by row; dense ranks (absent = distinct). */
function order(v: ArrayLike<number>, absent: (x: number) => boolean) {
  const n = v.length
  const perm = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => {
    const [x, y] = [v[a], v[b]]
    if (absent(x) || absent(y)) return absent(x) === absent(y) ? a - b : absent(x) ? 1 : -1
    return x - y || a - b
  })
  const rank = new Int32Array(n)
  let d = 0
  for (let i = 0; i < n; i++) {
    const x = v[perm[i]]
    if (absent(x)) { rank[perm[i]] = -1; continue }
    if (i > 0 && x !== v[perm[i - 1]]) d++
    rank[perm[i]] = d
  }
  const distinct = absent(v[perm[0]]) ? 0 : d + 1
  for (let i = 0; i < n; i++) if (rank[i] < 0) rank[i] = distinct
  return { perm, rank, distinct }
}

const intAbsent = (x: number) => x < 0

/** A table of n random photos whose four grid columns have far more than 255 distinct values (some absent), as a store. */
function wideTable(n: number, r: () => number) {
  const width = new Int32Array(n)
  const height = new Int32Array(n)
  const az = new Float32Array(n)
  const el = new Float32Array(n)
  for (let i = 0; i < n; i++) {
    width[i] = r() < 0.05 ? -1 : Math.floor(r() * 3000)
    height[i] = r() < 0.05 ? -1 : r() < 0.01 ? 0 : Math.floor(r() * 2000)
    az[i] = r() < 0.05 ? NaN : Math.fround(r() * 360)
    el[i] = r() < 0.05 ? NaN : Math.fround(r() * 180 - 90)
  }
  const w = order(width, intAbsent)
  const h = order(height, intAbsent)
  const a = order(az, Number.isNaN)
  const e = order(el, Number.isNaN)
  const store = {
    photos: { length: n, width, height, mast_azimuth: az, mast_elevation: el },
    paths: {
      perm: { width: w.perm, height: h.perm, mast_azimuth: a.perm, mast_elevation: e.perm },
      rank: { width: w.rank, height: h.rank, mast_azimuth: a.rank, mast_elevation: e.rank },
      meta: { distinct: { width: w.distinct, height: h.distinct, mast_azimuth: a.distinct, mast_elevation: e.distinct } },
      nasaIdFolded: { data: new Uint8Array(0), offsets: new Int32Array(n + 1) },
    },
  } as unknown as Store
  return { store, width, height, az, el }
}

/**
 * Random boxes over a wide table's grids (bounds on bucket edges, between them, beyond the
 * data; aspect ratios across cells) against a linear reading of the filters: the count, the
 * row test over every row (so any page of the matches) and, for exact grids, the source.
 */
function checkWideBoxes(t: ReturnType<typeof wideTable>, grids: PhotoGrids, r: () => number, boxes: number) {
  const { store: s, width, height, az, el } = t
  const n = s.photos.length
  const edgeOf = (ax: ValueGrid['x']) => (r() < 0.5 ? ax.min : ax.max)[Math.floor(r() * ax.buckets)]
  // Rows at a corner of their width x height cell: the least ratio (smallest width, largest
  // height) or the most (largest width, smallest height) a cell's test compares with the bounds.
  const narrowest: number[] = []
  const widest: number[] = []
  const dg = grids.dimensions
  for (let row = 0; row < n; row++) {
    const bx = Math.floor(dg.cell[row] / dg.stride)
    const by = dg.cell[row] % dg.stride
    if (bx >= dg.x.buckets || by >= dg.y.buckets || height[row] <= 0) continue
    if (width[row] === dg.x.min[bx] && height[row] === dg.y.max[by]) narrowest.push(row)
    if (width[row] === dg.x.max[bx] && height[row] === dg.y.min[by]) widest.push(row)
  }
  // Small cells have rows on their corners (a grid of a few big cells may have none).
  if (dg.x.buckets > 50) expect(Math.min(narrowest.length, widest.length)).toBeGreaterThan(10)
  const pickRatio = (rows: number[]) => {
    const row = rows[Math.floor(r() * rows.length)]
    return rows.length === 0 ? r() * 2 : width[row] / height[row]
  }
  let edgeBoxes = 0
  for (let i = 0; i < boxes; i++) {
    const f: PhotoFilters = {}
    const dims = i % 2 === 0
    if (dims) {
      const gx = grids.dimensions
      if (r() < 0.6) f.width = { lo: r() < 0.5 ? edgeOf(gx.x) : Math.floor(r() * 3000), hi: r() < 0.3 ? 2 ** 31 - 1 : edgeOf(gx.x) + Math.floor(r() * 500) }
      if (r() < 0.6) f.height = { lo: r() < 0.5 ? edgeOf(gx.y) : Math.floor(r() * 2000), hi: 2 ** 31 - 1 }
      // aspect_ratio_min alone leaves the upper bound infinite (heights of 0 must still fail).
      // Bounds equal to the ratio of a row at its cell's narrowest corner (least ratio) or widest (most).
      const lo = r() < 0.1 ? 0 : r() < 0.3 ? pickRatio(widest) : r() * 2
      const hi = r() < 0.2 ? Infinity : r() < 0.3 ? pickRatio(narrowest) : lo + r()
      f.aspectRatio = { lo: Math.min(lo, hi), hi: Math.max(lo, hi) }
    } else {
      const gx = grids.angles
      const [x0, x1] = [edgeOf(gx.x), r() < 0.2 ? 400 : r() * 360].sort((u, v) => u - v)
      const [y0, y1] = [r() < 0.2 ? -100 : edgeOf(gx.y), edgeOf(gx.y)].sort((u, v) => u - v)
      f.mastAzimuth = { lo: x0, hi: x1 }
      f.mastElevation = { lo: y0, hi: y1 }
    }
    const want: number[] = []
    for (let row = 0; row < n; row++) {
      const in_ = (v: number, rg?: { lo: number; hi: number }) => !rg || (v >= rg.lo && v <= rg.hi)
      const wv = width[row]
      const hv = height[row]
      const ok = dims
        ? (!f.width || (wv >= 0 && in_(wv, f.width))) && (!f.height || (hv >= 0 && in_(hv, f.height))) && wv >= 0 && hv > 0 && in_(wv / hv, f.aspectRatio)
        : in_(az[row], f.mastAzimuth) && in_(el[row], f.mastElevation)
      if (ok) want.push(row)
    }
    const { match } = checkPlan(s, f, want, grids)
    expect(match.source).toBeUndefined()
    if (match.edgeRows > 0) edgeBoxes++
  }
  // The boxes did cross cells, so rows along their edges were tested one by one.
  expect(edgeBoxes).toBeGreaterThan(boxes / 2)
}

describe('value grids of columns with too many distinct values for a bucket each', () => {
  test('bucketed widths and heights: counts and row tests of ranges and aspect ratios across cells equal a plain reading, edges included', () => {
    const r = rng(11)
    const t = wideTable(30_000, r)
    const grids = photoGrids(t.store)
    expect(grids.dimensions.exact).toBe(false)
    checkGrid(grids.dimensions, t.width, t.height, intAbsent)
    checkGrid(grids.angles, t.az, t.el, Number.isNaN)
    checkWideBoxes(t, grids, r, 60)
  }, 60_000)

  test('quantile buckets grow as the square root of the rows, from 63 up to 255 (a Uint16 cell with the absent bucket)', () => {
    expect(quantileBuckets(30_000)).toBe(MIN_QUANTILE_BUCKETS)
    const at1 = quantileBuckets(1_900_000)
    const at10 = quantileBuckets(19_000_000)
    expect(at1).toBeGreaterThan(MIN_QUANTILE_BUCKETS)
    expect(at10).toBe(MAX_QUANTILE_BUCKETS)
    expect(MAX_QUANTILE_BUCKETS).toBe(255)
    // Rows a bucket holds grow slower than the rows: half as fast in the exponent until the cap.
    expect(19_000_000 / at10 / (1_900_000 / at1)).toBeLessThan(5)
    expect(() => buildPhotoGrids(wideTable(100, rng(3)).store, 256)).toThrow(RangeError)
  })

  for (const buckets of [255, 170, 1]) {
    test(`forced to ${buckets} quantile buckets a side: every row in its cell's buckets, and counts and row tests of random boxes equal a plain reading`, () => {
      const r = rng(100 + buckets)
      const t = wideTable(20_000, r)
      const grids = buildPhotoGrids(t.store, buckets)
      for (const g of [grids.dimensions, grids.angles]) {
        expect(g.exact).toBe(false)
        // A quantile never splits a value: the heights' many zeros merge a few buckets.
        for (const a of [g.x, g.y]) {
          expect(a.buckets).toBeLessThanOrEqual(buckets)
          expect(a.buckets).toBeGreaterThanOrEqual(buckets - 3)
        }
      }
      // Random angles never repeat: every quantile bucket stays (at 255, 256 x 256 cells: all of the
      // Uint16; at 1, edge runs longer than the chunks edge rows are tested in).
      expect(grids.angles.cells).toBe((buckets + 1) ** 2)
      checkGrid(grids.dimensions, t.width, t.height, intAbsent)
      checkGrid(grids.angles, t.az, t.el, Number.isNaN)
      checkWideBoxes(t, grids, r, 40)
    }, 60_000)
  }
})

describe('the real test index at other bucket counts', () => {
  test('angles forced to 255 and 7 buckets a side: counts and row tests of random boxes, and of the bench\'s angle box, equal the brute force', () => {
    const rowOfId = new Map<number, number>()
    for (let i = 0; i < store.photos.length; i++) rowOfId.set(store.photos.id[i], i)
    const p = store.photos
    for (const buckets of [255, 7]) {
      const r = rng(buckets)
      const grids = buildPhotoGrids(store, buckets)
      const g = grids.angles
      expect(g.exact).toBe(false)
      expect(g.x.buckets).toBeLessThanOrEqual(buckets)
      expect(g.x.buckets).toBeGreaterThan(buckets / 2)
      checkGrid(g, p.mast_azimuth, p.mast_elevation, Number.isNaN)
      const edge = (a: ValueGrid['x']) => (r() < 0.5 ? a.min : a.max)[Math.floor(r() * a.buckets)]
      const queries = ['mast_elevation_min=-10&mast_elevation_max=10&mast_azimuth_min=90&mast_azimuth_max=180']
      for (let i = 0; i < 20; i++) {
        const [a, b] = [edge(g.x), edge(g.x)].sort((u, v) => u - v)
        const [c, d] = [edge(g.y), r() < 0.2 ? 90 : edge(g.y)].sort((u, v) => u - v)
        queries.push(`mast_azimuth_min=${r() < 0.3 ? Math.floor(a) : a}&mast_azimuth_max=${b}&mast_elevation_min=${c}&mast_elevation_max=${d}`)
      }
      for (const query of queries) {
        const params = new URLSearchParams(query)
        const want = bruteForce(all, params).map((x) => rowOfId.get(x.id)!).sort((u, v) => u - v)
        checkPlan(store, parsePhotoQuery(params, store).filters, want, grids)
      }
    }
  }, 60_000)
})
