import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Store } from '../src/store/store'
import { bruteForce, plainPhotos, type PlainPhoto } from './support/brute-force'
import { makeTestApp, testStore, type TestApp } from './setup/test-app'

/**
 * GET /api/v2/photos/stats through the assembled app (decisions.md, Other endpoints): every
 * photo filter applies, groups sum to total_photos, which equals the list's total_count for the
 * same filters; percentages are to 4 decimals by largest remainder (sum exactly 100, a non-empty
 * group never 0); groups are ordered and keyed as decided, and
 * their counts equal a brute-force grouping of the real records.
 */
let t: TestApp
let store: Store
let all: PlainPhoto[]

beforeAll(async () => {
  store = await testStore()
  all = plainPhotos(store)
  t = await makeTestApp()
})
afterAll(() => t.close())

interface Group { key: string; count: number; percentage: number; avg_per_sol?: number; earth_date?: string }

async function stats(query: string) {
  const res = await t.request(`/api/v2/photos/stats?${query}`)
  expect(res.status).toBe(200)
  return (await res.json() as any) as { data: { total_photos: number; period: { from?: string; to?: string }; groups: Group[] }; meta: { returned_count: number; timestamp: string } }
}

async function listTotal(query: string): Promise<number> {
  const res = await t.request(`/api/v2/photos?${query}&per_page=1`)
  return (await res.json() as any).meta.total_count
}

const FILTERS = ['', 'rovers=perseverance', 'cameras=NAVCAM,FHAZ', 'sol_min=1290&sol_max=1300', 'nasa_id=ncam', 'mars_time_golden_hour=true', 'site=61&drive=1928&location_radius=100', 'sample_type=full,subframe', 'earth_date=2004-01-05', 'rovers=spirit&sol=5']

describe('stats: totals and groups', () => {
  for (const f of FILTERS) {
    for (const by of ['camera', 'rover', 'sol']) {
      test(`group_by=${by}${f ? '&' + f : ''}: groups sum to total_photos = the list's total_count = the brute-force count, percentages to 4 decimals summing to 100, none 0`, async () => {
        const s = await stats(`group_by=${by}&${f}`)
        const want = bruteForce(all, new URLSearchParams(f))
        expect(s.data.total_photos).toBe(want.length)
        expect(s.data.total_photos).toBe(await listTotal(f))
        expect(s.data.groups.reduce((a, g) => a + g.count, 0)).toBe(s.data.total_photos)
        expect(s.meta.returned_count).toBe(s.data.groups.length)
        // Largest remainder in units of 0.0001 %: each share is its exact value floored or raised by one
        // unit (or raised to the 1-unit minimum, paid by the largest group), and the units sum to 1,000,000.
        const units = s.data.groups.map((g) => Math.round(g.percentage * 10_000))
        if (s.data.groups.length > 0) expect(units.reduce((a, u) => a + u, 0)).toBe(1_000_000)
        const raised = s.data.groups.filter((g) => Math.floor((g.count * 1_000_000) / s.data.total_photos) === 0).length
        for (const [i, g] of s.data.groups.entries()) {
          expect(String(g.percentage)).toMatch(/^\d+(\.\d{1,4})?$/)
          expect(units[i]!).toBeGreaterThanOrEqual(1)
          const exact = (g.count * 1_000_000) / s.data.total_photos
          expect(Math.abs(units[i]! - exact)).toBeLessThanOrEqual(1 + raised)
        }
        const dates = want.map((p) => p.earth_date!).sort()
        expect(s.data.period).toEqual(want.length ? { from: dates[0], to: dates[dates.length - 1] } : {})
      })
    }
  }
})

describe('stats: group keys, extras and order', () => {
  test('group_by defaults to camera; camera groups are keyed by name across rovers, by count descending then key', async () => {
    const s = await stats('')
    const byName = new Map<string, number>()
    for (const p of all) byName.set(p.camera, (byName.get(p.camera) ?? 0) + 1)
    const want = [...byName].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    expect(s.data.groups.map((g) => [g.key, g.count])).toEqual(want)
    expect(s.data.groups.every((g) => g.avg_per_sol === undefined && g.earth_date === undefined)).toBe(true)
  })

  test('rover groups are keyed by slug, with avg_per_sol = count / distinct sols to one decimal', async () => {
    const s = await stats('group_by=ROVER')
    for (const g of s.data.groups) {
      const mine = all.filter((p) => p.rover === g.key)
      expect(mine.length).toBe(g.count)
      const sols = new Set(mine.map((p) => p.sol)).size
      expect(g.avg_per_sol).toBe(Math.round((g.count / sols) * 10) / 10)
    }
    expect(s.data.groups.map((g) => g.key).sort()).toEqual(['curiosity', 'opportunity', 'perseverance', 'spirit'])
    const counts = s.data.groups.map((g) => g.count)
    expect(counts).toEqual([...counts].sort((a, b) => b - a))
  })

  test('sol groups are ordered by sol ascending, keyed by the sol, with the earliest earth_date of the group', async () => {
    const s = await stats('group_by=sol&rovers=perseverance,spirit')
    const sols = s.data.groups.map((g) => Number(g.key))
    expect(sols).toEqual([...sols].sort((a, b) => a - b))
    for (const g of s.data.groups) {
      const mine = all.filter((p) => (p.rover === 'perseverance' || p.rover === 'spirit') && String(p.sol) === g.key)
      expect(g.count).toBe(mine.length)
      expect(g.earth_date).toBe(mine.map((p) => p.earth_date!).sort()[0])
    }
    // sol 1 of Spirit and sol 0/1 of Perseverance share numbers with other rovers: one group per sol.
    expect(new Set(s.data.groups.map((g) => g.key)).size).toBe(s.data.groups.length)
  })

  test('no matching photo: total 0, no groups, empty period', async () => {
    const s = await stats('group_by=rover&sol=2147483647')
    expect(s.data).toEqual({ total_photos: 0, period: {}, groups: [] })
    expect(s.meta.returned_count).toBe(0)
  })

  test('a bad group_by and bad filters are one 400 naming each parameter; sort, page, fields are validated too', async () => {
    const res = await t.request('/api/v2/photos/stats?group_by=planet&rovers=pluto&sort=nope&page=0')
    expect(res.status).toBe(400)
    const body = await res.json() as any
    expect(body.type).toBe('/errors/validation-error')
    expect(body.errors.map((e: { parameter: string }) => e.parameter).sort()).toEqual(['group_by', 'page', 'rovers', 'sort'])
  })
})

describe('stats: the aggregate cube and the row scan agree', () => {
  // Filters the cube answers (rovers, cameras, sol and earth_date bounds), plus edge bounds.
  const CUBE_FILTERS = [
    '', 'rovers=perseverance', 'rovers=curiosity,spirit', 'cameras=NAVCAM,FHAZ', 'rovers=opportunity&cameras=PANCAM',
    'sol_min=1290&sol_max=1300', 'sol=0', 'sol_max=3', 'rovers=spirit&sol=5', 'earth_date=2004-01-05',
    'date_min=2012-01-01&date_max=2016-12-31', 'rovers=perseverance&date_min=2021-03-01', 'rovers=spirit&cameras=NAVCAM&sol_max=2',
    'sol=2147483647', 'rovers=curiosity&cameras=MAST&sol_min=100&sol_max=2000&date_max=2015-01-01',
    // Date windows that skip blocks of cells (the cube's day zones), sol bounds that cut a rover's cells.
    'date_min=2021-02-20&date_max=2021-03-05', 'rovers=curiosity&date_min=2013-01-01&date_max=2013-02-01',
    'rovers=perseverance&sol_min=0&sol_max=12&date_max=2021-02-25', 'sol_min=1&sol_max=1', 'rovers=curiosity,perseverance&sol_min=1&sol_max=400',
  ]
  for (const f of CUBE_FILTERS) {
    test(`${f || '(no filter)'}: group_by camera, rover and sol give byte-identical text from the cube and from the row scan`, async () => {
      const { photoStats } = await import('../src/query/stats/photo-stats')
      const { cubeAnswers } = await import('../src/query/stats/stats-cube')
      const { parsePhotoQuery } = await import('../src/query/params/photo-params')
      expect(cubeAnswers(parsePhotoQuery(new URLSearchParams(f), store, []).filters)).toBe(true)
      for (const by of ['camera', 'rover', 'sol']) {
        const params = new URLSearchParams(`group_by=${by}&${f}`)
        expect(photoStats(store, params, 'http://x')).toBe(photoStats(store, params, 'http://x', true))
      }
    })
  }
  test('any other filter (nasa_id, site, mars time) is not answered from the cube', async () => {
    const { cubeAnswers } = await import('../src/query/stats/stats-cube')
    const { parsePhotoQuery } = await import('../src/query/params/photo-params')
    for (const f of ['nasa_id=ncam', 'site=61', 'mars_time_golden_hour=true', 'min_width=100', 'rovers=spirit&sample_type=full'])
      expect(cubeAnswers(parsePhotoQuery(new URLSearchParams(f), store, []).filters)).toBe(false)
  })
})
