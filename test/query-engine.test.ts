import { beforeAll, describe, expect, test } from 'bun:test'
import { listPhotos } from '../src/query'
import { listPhotosWithPlan } from '../src/query/answer/list-photos'
import { DEFAULT_SORT, Order } from '../src/query/order/order'
import { selectPage } from '../src/query/page/select-page'
import type { Store } from '../src/store/store'
import { bruteForce, plainPhotos, type PlainPhoto } from './support/brute-force'
import { testStore } from './setup/test-app'

/**
 * The planner's branches (which source counts, walk or collect, heap or quickselect, merge of
 * row lists, descending group walks, cursors) all have to give the brute force's answer. A
 * seeded generator of parameter combinations drives them through every branch; plan names
 * pin that narrowed queries are answered from ranges, not scans.
 */
let store: Store
let all: PlainPhoto[]

beforeAll(async () => {
  store = await testStore()
  all = plainPhotos(store)
})

/** Mulberry32: a small seeded PRNG, so a failure names a reproducible query. */
function rng(seed: number) {
  return () => {
    seed |= 0
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const SORTS = ['', 'sol', '-sol', 'camera', '-camera', 'rover,-sol', '-date_taken_utc', 'date_taken_utc', 'nasa_id', '-nasa_id', 'id', '-id', 'site', '-site',
  'drive', '-drive', 'date_taken_mars', '-date_taken_mars', 'earth_date', '-earth_date', 'width', '-mast_elevation', 'camera,-date_taken_mars', 'sol,camera,-id']

function randomQuery(r: () => number): string {
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]
  const q: string[] = []
  const ph = pick(all)
  if (r() < 0.35) q.push(`rovers=${pick([ph.rover, 'curiosity', 'perseverance', 'spirit,opportunity', 'curiosity,perseverance'])}`)
  if (r() < 0.25 && !q.some((x) => x.startsWith('rovers='))) q.push(`cameras=${pick([ph.camera, 'NAVCAM', 'FHAZ,RHAZ', 'MAST'])}`)
  if (r() < 0.3) {
    const s = ph.sol ?? 0
    q.push(pick([`sol=${s}`, `sol_min=${s}`, `sol_max=${s}`, `sol_min=${Math.max(0, s - 5)}&sol_max=${s + 5}`]))
  }
  if (r() < 0.2 && ph.earth_date) q.push(pick([`earth_date=${ph.earth_date}`, `date_min=${ph.earth_date}`, `date_max=${ph.earth_date}`]))
  if (r() < 0.15) q.push(`nasa_id=${encodeURIComponent(ph.nasa_id.slice(Math.floor(r() * 10), Math.floor(r() * 10) + 3 + Math.floor(r() * 4)))}`)
  if (r() < 0.15) q.push(pick(['mars_time_min=M11:00:00&mars_time_max=M13:30:00', 'mars_time_min=M15:00:00&mars_time_max=M10:00:00', 'mars_time_golden_hour=true', 'mars_time_max=M09:59:59']))
  if (r() < 0.15 && ph.site !== null) q.push(pick([`site=${ph.site}`, `site_min=${ph.site}`, `site=${ph.site}&drive=${ph.drive}&location_radius=${Math.floor(r() * 200)}`, `drive_max=${ph.drive}`]))
  if (r() < 0.08) q.push(pick(['sample_type=full', 'sample_type=subframe,downsampled', 'min_width=100', 'mast_elevation_max=0', 'aspect_ratio=4:3']))
  const sort = pick(SORTS)
  if (sort) q.push(`sort=${sort}`)
  q.push(`per_page=${pick([1, 7, 25, 100, 150])}`)
  return q.join('&')
}

describe('seeded random combinations: engine = brute force for the page, the total and the cursor continuation', () => {
  test('200 random queries over the real records, each at a random page', () => {
    const r = rng(20240807)
    let nonEmpty = 0
    for (let i = 0; i < 200; i++) {
      const query = randomQuery(r)
      const params = new URLSearchParams(query)
      const want = bruteForce(all, params).map((p) => p.id)
      const perPage = Math.min(100, Number(params.get('per_page')))
      const pages = Math.max(1, Math.ceil(want.length / perPage))
      const page = 1 + Math.floor(r() * (pages + 1)) // sometimes one past the end
      const doc = JSON.parse(listPhotos(store, new URLSearchParams(`${query}&page=${page}`), 'http://localhost'))
      const got = doc.data.map((p: { id: number }) => p.id)
      const slice = want.slice((page - 1) * perPage, page * perPage)
      if (JSON.stringify(got) !== JSON.stringify(slice) || doc.meta.total_count !== want.length) {
        throw new Error(`query ${i}: ${query}&page=${page}: got ${got.length} ids (total ${doc.meta.total_count}), want ${slice.length} (total ${want.length})`)
      }
      if (doc.pagination.cursor?.next) {
        const cont = JSON.parse(listPhotos(store, new URLSearchParams(`${query}&cursor=${doc.pagination.cursor.next}`), 'http://localhost'))
        expect(cont.data.map((p: { id: number }) => p.id)).toEqual(want.slice(page * perPage, (page + 1) * perPage))
      }
      if (want.length) nonEmpty++
    }
    expect(nonEmpty).toBeGreaterThan(100)
  }, 120_000)
})

describe('selectPage picks the rows of sorted positions [offset, offset + limit) without a full sort', () => {
  const ordered = (order: Order, rows: number[]) => [...rows].sort(order.compareRows)
  const cases: Array<[string, number, number]> = [['shallow page (heap)', 0, 25], ['middle page (heap)', 1000, 100], ['deep page (quickselect)', 5000, 100], ['last partial page', 0, 1e9]]
  for (const sort of ['-date_taken_utc', 'sol', '-sol', 'camera,-date_taken_mars', '-nasa_id', 'rover,site,-drive']) {
    for (const [name, offset, limit] of cases) {
      test(`sort=${sort}, ${name}`, () => {
        const keys = sort.split(',').map((s) => ({ field: s.replace(/^-/, '') as never, desc: s.startsWith('-') }))
        const order = new Order(keys, store.photos, store.paths)
        const r = rng(offset + limit)
        const rows = Array.from({ length: store.photos.length }, (_, i) => i).filter(() => r() < 0.7)
        const sel = Int32Array.from(rows)
        const want = ordered(order, rows).slice(offset, offset + limit)
        expect(Array.from(selectPage(sel, sel.length, order, offset, limit))).toEqual(want)
      })
    }
  }
  test('the default order packs keys as row numbers; an order too wide to pack selects on its prefix and sorts the ties', () => {
    expect(new Order(DEFAULT_SORT, store.photos, store.paths).packed).toBe(true)
    const keys = [{ field: 'camera' as const, desc: false }, { field: 'nasa_id' as const, desc: true }, { field: 'sol' as const, desc: false }]
    // Room for the camera rank and the id rank only: nasa_id and sol are left to the comparator.
    const narrow = new Order(keys, store.photos, store.paths, (store.paths.meta.distinct.camera + 1) * store.photos.length)
    expect(narrow.packed).toBe(false)
    const all = Int32Array.from({ length: store.photos.length }, (_, i) => i)
    const sorted = [...all].sort(narrow.compareRows)
    for (const [offset, limit] of [[0, 25], [2900, 50], [5000, 100], [store.photos.length - 10, 100]]) {
      expect(Array.from(selectPage(all, all.length, narrow, offset, limit))).toEqual(sorted.slice(offset, offset + limit))
    }
    expect(sorted).toEqual([...all].sort(new Order(keys, store.photos, store.paths).compareRows))
  })
})

describe('a cursor position as a packed-key bound (Order.cursorBound) selects exactly the rows after it', () => {
  const orders = ['sol', '-sol', '-date_taken_utc', 'date_taken_utc', 'nasa_id', '-nasa_id', 'camera,-sol', 'rover,-site', '-mast_elevation', 'id', '-id', 'date_taken_mars']
  for (const sort of orders) {
    test(`sort=${sort}: positions at present values, between values, beyond both ends and at absent (null) values`, () => {
      const keys = sort.split(',').map((s) => ({ field: s.replace(/^-/, '') as never, desc: s.startsWith('-') }))
      const order = new Order(keys, store.photos, store.paths)
      if (!order.packed) return
      const r = rng(sort.length)
      const n = store.photos.length
      const positions: Array<{ values: Array<number | string | null>; id: number }> = []
      for (let i = 0; i < 12; i++) {
        const row = Math.floor(r() * n)
        const values = order.valuesOf(row)
        positions.push({ values, id: store.photos.id[row] })
        // A value this index does not hold: nudge numbers, extend strings.
        // (An id key always holds the position's id: cursor.ts refuses anything else.)
        const id = store.photos.id[row]
        const forge = (f: (v: number | string | null) => number | string | null, pid: number) => ({ values: values.map((v, k) => (keys[k].field === 'id' ? pid : f(v))), id: pid })
        positions.push(forge((v) => (typeof v === 'number' ? v + 0.5 : typeof v === 'string' ? v + '~' : v), id))
        const other = Math.floor(r() * 3e9) - 1e9
        positions.push(forge(() => null, other))
      }
      const str = (k: { field: string }) => k.field === 'camera' || k.field === 'rover' || k.field === 'nasa_id'
      positions.push({ values: keys.map((k) => (k.field === 'id' ? 0 : str(k) ? '' : -1e12)), id: 0 })
      positions.push({ values: keys.map((k) => (k.field === 'id' ? 0 : str(k) ? '\uffff' : 1e15)), id: 0 })
      for (const pos of positions) {
        const bound = order.cursorBound(pos.values, pos.id)
        for (let row = 0; row < n; row += 3) {
          const after = order.compareToPosition(row, pos.values, pos.id) > 0
          if ((order.keyOf(row) >= bound) !== after) throw new Error(`sort=${sort} position ${JSON.stringify(pos)} row ${row}: bound says ${!after}`)
        }
      }
    })
  }
})

describe('narrowed queries are answered from precomputed ranges, not scans', () => {
  const plan = (q: string) => listPhotosWithPlan(store, new URLSearchParams(q), 'http://localhost').outcome.plan
  test('rover + sol: one slice of by_rover_sol, already in the default order', () => {
    expect(plan('rovers=curiosity&sol=1000')).toMatch(/^rover-sol:/)
  })
  test('rover + camera: the row list of by_rover_camera (one list: a slice; several: merged in the default order)', () => {
    expect(plan('rovers=perseverance&cameras=NAVCAM_LEFT')).toBe('rover-camera:slice')
    expect(plan('cameras=NAVCAM')).toBe('rover-camera:walk-rover-camera')
  })
  test('an Earth date: a slice of perm_earth_date', () => {
    expect(plan('earth_date=2004-01-05')).toMatch(/^perm-earth_date:/)
  })
  test('a sort with no filter walks that field\'s permutation only as far as the page', () => {
    expect(plan('sort=sol')).toBe('all:walk-perm-sol')
    expect(plan('sort=-mast_azimuth')).toBe('all:walk-perm-mast_azimuth')
    expect(plan('')).toBe('all:slice')
    expect(plan('sort=-sol&page=40')).toBe('all:walk-perm-sol')
  })
  test('a nasa_id fragment uses the trigram-filtered byte search when nothing narrower exists', () => {
    expect(plan('nasa_id=ncam')).toMatch(/^nasa-id-search:/)
    expect(plan('nasa_id=ncam&rovers=perseverance&sol=1300')).toMatch(/^rover-sol:/)
  })
  test('a page far past the end stops before any scan', () => {
    expect(plan('rovers=curiosity&page=2147483647')).toMatch(/past-end$/)
  })
  test('a site with a drive radius: one (rover, site, drive) slice of by_rover_site_drive, and the brute force\'s rows and total', () => {
    const located = all.filter((p) => p.site !== null && p.drive !== null)
    expect(located.length).toBeGreaterThan(0)
    const r = rng(7)
    for (let i = 0; i < 30; i++) {
      const ph = located[Math.floor(r() * located.length)]
      const radius = Math.floor(r() * 300)
      const rover = r() < 0.5 ? `rovers=${ph.rover}&` : ''
      const q = i % 3 === 2 ? `${rover}site_min=${ph.site}&site_max=${ph.site! + 2}&drive_max=${ph.drive}` : `${rover}site=${ph.site}&drive=${ph.drive}&location_radius=${radius}`
      const { text, outcome } = listPhotosWithPlan(store, new URLSearchParams(`${q}&per_page=100`), 'http://localhost')
      if (i % 3 !== 2) expect(outcome.plan).toMatch(/^rover-site-drive:/)
      const want = bruteForce(all, new URLSearchParams(q))
      const doc = JSON.parse(text)
      expect(doc.meta.total_count).toBe(want.length)
      expect(doc.data.map((p: { id: number }) => p.id)).toEqual(want.slice(0, 100).map((p) => p.id))
    }
  })
})

describe('two value ranges that together cover every filter are intersected through a bitset', () => {
  const QUERIES = [
    'mast_elevation_min=-10&mast_elevation_max=10&mast_azimuth_min=90&mast_azimuth_max=180',
    'mast_elevation_min=0&mast_azimuth_max=45',
    'min_width=1000&max_height=900',
    'site_min=10&site_max=40&mast_elevation_max=-20',
    'mast_elevation_min=-30&mast_elevation_max=30&mast_azimuth_min=200&sort=-sol',
    'site_min=1&drive_min=100',
    'site_min=1&drive_min=100&sort=-width',
    'site_min=3&site_max=80&drive_max=400&sort=sol',
    'earth_date=2016-01-25&drive_min=10',
  ]
  test('the plan names both sources, and the page, total and stats equal the brute force', async () => {
    const { photoStats } = await import('../src/query/stats/photo-stats')
    let paired = 0
    for (const q of QUERIES) {
      const { text, outcome } = listPhotosWithPlan(store, new URLSearchParams(`${q}&per_page=100&page=2`), 'http://localhost')
      if (outcome.plan.includes('&')) paired++
      const want = bruteForce(all, new URLSearchParams(q))
      const doc = JSON.parse(text)
      expect(doc.meta.total_count).toBe(want.length)
      expect(doc.data.map((p: { id: number }) => p.id)).toEqual(want.slice(100, 200).map((p) => p.id))
      const stats = JSON.parse(photoStats(store, new URLSearchParams(`group_by=camera&${q}`), 'http://localhost'))
      expect(stats.data.total_photos).toBe(want.length)
    }
    expect(paired).toBeGreaterThan(0)
  })
})

describe('generated row loops (one definition per filter, one compiled loop per combination) keep exactly the rows the brute force keeps', () => {
  const PLANS = [
    'min_width=1024&min_height=900&aspect_ratio_min=1.2&aspect_ratio_max=1.4',
    'mast_elevation_min=-10&mast_elevation_max=10&mast_azimuth_min=90&mast_azimuth_max=180',
    'mars_time_min=M16:30:00&mars_time_max=M08:30:00&rovers=curiosity,spirit',
    'mars_time_golden_hour=true',
    'sample_type=full&sol_min=10&sol_max=2000&date_min=2004-01-01&date_max=2021-12-31',
    'cameras=NAVCAM,FHAZ&site_min=0&site_max=50&drive_min=100&drive_max=3000',
    'aspect_ratio=4:3',
    'aspect_ratio_min=1&aspect_ratio_max=1.7778&max_width=1024',
    'nasa_id=ncam&sol_max=3000',
    'nasa_id=0&mast_azimuth_max=45',
  ]
  test('scan over rows and over a permutation, refine and refineRange, each filter alone and all together, with and without the aspect_ratio column', async () => {
    const { compileFilters } = await import('../src/query/scan/filters')
    const { RowTest } = await import('../src/query/scan/row-test')
    const { parsePhotoQuery } = await import('../src/query/params/photo-params')
    const p = store.photos
    const n = p.length
    const perm = store.paths.perm.mast_azimuth
    const rowOfId = new Map<number, number>()
    for (let r = 0; r < n; r++) rowOfId.set(p.id[r], r)
    let nonEmpty = 0
    for (const q of PLANS) {
      const f = parsePhotoQuery(new URLSearchParams(q), store).filters
      const want = bruteForce(all, new URLSearchParams(q)).map((x) => rowOfId.get(x.id)!)
      const inRowOrder = Int32Array.from(want).sort()
      const wanted = new Set(want)
      const inPermOrder = perm.filter((r) => wanted.has(r))
      if (want.length) nonEmpty++
      for (const ratio of [undefined, store.paths.aspectRatio]) {
        const filters = [...compileFilters(p, store.paths.nasaIdFolded, f, ratio).byName.values()]
        for (const subset of [filters, ...filters.map((x) => [x])]) {
          const t = new RowTest(subset)
          const solo = subset.length === 1 && filters.length > 1
          // Each filter alone keeps a superset; all together keep exactly the brute force's rows.
          const check = (got: Int32Array, expected: Int32Array) => {
            if (solo) for (const r of expected) expect(got.includes(r)).toBe(true)
            else expect(got).toEqual(expected)
          }
          const out = new Int32Array(n)
          const half = n >> 1
          check(out.slice(0, t.scan(half, n, null, out, t.scan(0, half, null, out, 0))), inRowOrder)
          check(out.slice(0, t.scan(half, n, perm, out, t.scan(0, half, perm, out, 0))), inPermOrder)
          check(out.slice(0, t.refineRange(0, n, out)), inRowOrder)
          const sel = perm.slice()
          check(sel.slice(0, t.refine(sel, n)), inPermOrder)
        }
      }
    }
    expect(nonEmpty).toBeGreaterThanOrEqual(8)
  }, 60_000)
})
