import { beforeAll, describe, expect, test } from 'bun:test'
import { listPhotosWithPlan } from '../src/query/answer/list-photos'
import { formatDay } from '../src/query/bytes/day-text'
import { planQuery } from '../src/query/plan/query-plan'
import { indexSources } from '../src/query/plan/sources'
import type { Store } from '../src/store/store'
import { bruteForce, plainPhotos, type PlainPhoto } from './support/brute-force'
import { testStore } from './setup/test-app'

/**
 * The (rover, camera, earth_date) access path (by_rover_camera_date): every query with cameras
 * and Earth dates it answers gives the brute force's page, total and cursor continuation, on
 * the real index and at its edges (no match, one match, the first and last dates of the
 * catalogue, ranges cut per day and ranges too wide for that), and the same answer as the index
 * without that path (the row scans it replaces).
 */
let store: Store
/** The same snapshot without by_rover_camera_date, as an index of access-path format 4 loads. */
let withoutPath: Store
let all: PlainPhoto[]
let firstDay: string
let lastDay: string

beforeAll(async () => {
  store = await testStore()
  withoutPath = { ...store, paths: { ...store.paths, byRoverCameraDate: undefined } }
  all = plainPhotos(store)
  const days = all.flatMap((p) => (p.earth_date ? [p.earth_date] : [])).sort()
  firstDay = days[0]!
  lastDay = days[days.length - 1]!
})

const BASE = 'http://localhost'

function ids(text: string): number[] {
  return JSON.parse(text).data.map((p: { id: number }) => p.id)
}

/** Pages 1 and 2 and the cursor after page 1 equal the brute force's, and the answer without the path; returns the plan of page 1. */
function expectSameAnswers(query: string): string {
  const params = new URLSearchParams(query)
  const want = bruteForce(all, params).map((p) => p.id)
  const perPage = Math.min(100, Number(params.get('per_page') ?? 25))
  const first = listPhotosWithPlan(store, params, BASE)
  const doc = JSON.parse(first.text)
  if (JSON.stringify(ids(first.text)) !== JSON.stringify(want.slice(0, perPage)) || doc.meta.total_count !== want.length) {
    throw new Error(`${query}: got ${doc.data.length} ids (total ${doc.meta.total_count}), want ${Math.min(perPage, want.length)} (total ${want.length}); plan ${first.outcome.plan}`)
  }
  expect(ids(listPhotosWithPlan(store, new URLSearchParams(`${query}&page=2`), BASE).text)).toEqual(want.slice(perPage, 2 * perPage))
  if (doc.pagination.cursor?.next) {
    const cont = listPhotosWithPlan(store, new URLSearchParams(`${query}&cursor=${doc.pagination.cursor.next}`), BASE).text
    expect(ids(cont)).toEqual(want.slice(perPage, 2 * perPage))
  }
  expect(listPhotosWithPlan(withoutPath, params, BASE).text).toBe(first.text)
  return first.outcome.plan
}

/** The last day (days since 1970) on which a camera has photos and also had some the day before, and that camera. */
function consecutiveDays(): { camera: string; day: number } {
  const counts = pairCounts()
  const days = (d: string) => Date.parse(`${d}T00:00:00Z`) / 86_400_000
  const hit = [...counts.keys()].map((k) => k.split('|')).filter(([c, d]) => counts.has(`${c}|${formatDay(days(d!) - 1)}`)).sort((a, b) => (a[1]! < b[1]! ? 1 : -1))[0]
  if (!hit) throw new Error('no camera with photos on two consecutive days in the test index')
  return { camera: hit[0]!, day: days(hit[1]!) }
}

/** (camera, earth_date) pairs of the real index with their photo counts. */
function pairCounts(): Map<string, number> {
  const counts = new Map<string, number>()
  for (const p of all) if (p.earth_date) counts.set(`${p.camera}|${p.earth_date}`, (counts.get(`${p.camera}|${p.earth_date}`) ?? 0) + 1)
  return counts
}

describe('by_rover_camera_date answers cameras + earth dates exactly as a scan does', () => {
  test('every (camera, earth_date) of 120 spread over the real index: page, total and cursor equal the brute force, counted without a scan', () => {
    const pairs = [...pairCounts().keys()].sort()
    const step = Math.max(1, Math.floor(pairs.length / 120))
    let checked = 0
    for (let i = 0; i < pairs.length; i += step) {
      const [camera, day] = pairs[i]!.split('|')
      const plan = expectSameAnswers(`cameras=${camera}&earth_date=${day}`)
      expect(plan.startsWith('rover-camera-date')).toBe(true)
      checked++
    }
    expect(checked).toBeGreaterThanOrEqual(100)
  })

  test('a (camera, date) with exactly one photo is one row, and a camera on a day without its photos is none', () => {
    const counts = pairCounts()
    const one = [...counts].find(([, n]) => n === 1)
    expect(one).toBeDefined()
    const [camera, day] = one![0].split('|')
    expect(expectSameAnswers(`cameras=${camera}&earth_date=${day}`)).toBe('rover-camera-date:slice')
    expect(JSON.parse(listPhotosWithPlan(store, new URLSearchParams(`cameras=${camera}&earth_date=${day}`), BASE).text).meta.total_count).toBe(1)
    // A day with photos, but none by this camera.
    const other = [...counts.keys()].map((k) => k.split('|')).find(([c, d]) => c !== camera && !counts.has(`${camera}|${d}`))!
    expectSameAnswers(`cameras=${camera}&earth_date=${other[1]}`)
    expect(JSON.parse(listPhotosWithPlan(store, new URLSearchParams(`cameras=${camera}&earth_date=${other[1]}`), BASE).text).meta.total_count).toBe(0)
  })

  test('the first and last dates of the catalogue, and dates before and after it', () => {
    const camerasOn = (day: string) => [...new Set(all.filter((p) => p.earth_date === day).map((p) => p.camera))]
    for (const day of [firstDay, lastDay]) {
      for (const camera of camerasOn(day)) expectSameAnswers(`cameras=${camera}&earth_date=${day}`)
      expectSameAnswers(`cameras=${camerasOn(day).join(',')}&earth_date=${day}&per_page=7`)
    }
    const camera = camerasOn(lastDay)[0]!
    expectSameAnswers(`cameras=${camera}&date_min=${lastDay}`)
    expectSameAnswers(`cameras=${camerasOn(firstDay)[0]}&date_max=${firstDay}`)
    expectSameAnswers(`cameras=${camera}&earth_date=1990-01-01`)
    expectSameAnswers(`cameras=${camera}&earth_date=2099-12-31`)
    expectSameAnswers(`cameras=${camera}&date_min=2099-01-01`)
    expectSameAnswers(`cameras=${camera}&date_max=1990-01-01`)
  })

  test('several cameras, rovers, short ranges (cut per day and merged in the default order) and wide ranges, in several sorts', () => {
    const navcam = all.find((p) => p.camera === 'NAVCAM' && p.earth_date)!
    const day = navcam.earth_date!
    const shift = (d: string, n: number) => formatDay(Date.parse(`${d}T00:00:00Z`) / 86_400_000 + n)
    const queries = [
      `cameras=NAVCAM,FHAZ,RHAZ&earth_date=${day}`,
      `cameras=NAVCAM&rovers=${navcam.rover}&earth_date=${day}`,
      `cameras=NAVCAM&rovers=${navcam.rover === 'spirit' ? 'opportunity' : 'spirit'}&earth_date=${day}`,
      `cameras=NAVCAM&date_min=${shift(day, -3)}&date_max=${shift(day, 3)}&per_page=100`,
      `cameras=NAVCAM,MAST&date_min=${shift(day, -40)}&date_max=${shift(day, 20)}&per_page=13`,
      `cameras=NAVCAM&date_min=${shift(day, -400)}&date_max=${shift(day, 400)}&per_page=100`,
      `cameras=NAVCAM&date_min=${day}`,
      `cameras=NAVCAM&earth_date=${day}&sort=sol`,
      `cameras=NAVCAM&date_min=${shift(day, -10)}&date_max=${day}&sort=-earth_date&per_page=50`,
      `cameras=NAVCAM&date_min=${shift(day, -10)}&date_max=${day}&sort=earth_date,-id`,
      `cameras=NAVCAM&earth_date=${day}&sol=${navcam.sol}`,
      `cameras=NAVCAM&date_min=${shift(day, -5)}&date_max=${day}&mars_time_golden_hour=true`,
    ]
    const { camera, day: last } = consecutiveDays()
    queries.push(`cameras=${camera}&date_min=${formatDay(last - 1)}&date_max=${formatDay(last)}&per_page=100`)
    queries.push(`cameras=${camera}&date_min=${formatDay(last - 6)}&date_max=${formatDay(last)}&per_page=3`)
    for (const q of queries) expectSameAnswers(q)
    expect(expectSameAnswers(`cameras=NAVCAM&date_min=${shift(day, -3)}&date_max=${shift(day, 3)}&per_page=5`)).toMatch(/^rover-camera-date/)
  })

  test('the source holds exactly the rows a scan of the table keeps, one slice per day for a short range', () => {
    const p = store.photos
    // A camera with photos on two consecutive days: slices of a range ending there must not mix them.
    const { camera, day } = consecutiveDays()
    const code = p.camera.dict.indexOf(camera)
    for (const [lo, hi] of [[day, day], [day - 1, day], [day - 5, day], [day - 5, day + 5], [day - 100, day + 100], [day + 1, day]]) {
      const src = indexSources(store, { cameras: [camera], earthDate: { lo, hi } }, [code]).find((s) => s.label === 'rover-camera-date')!
      const got: number[] = []
      for (let i = 0; i < src.slices.length; i += 2) for (let pos = src.slices[i]; pos < src.slices[i + 1]; pos++) got.push(src.perm![pos])
      const want: number[] = []
      for (let r = 0; r < p.length; r++) if (p.camera.codes[r] === code && p.earth_date[r] >= lo && p.earth_date[r] <= hi) want.push(r)
      expect(got.slice().sort((a, b) => a - b)).toEqual(want)
      expect(src.size).toBe(want.length)
      if (hi - lo < 64 && hi >= lo) {
        expect(src.slices.length / 2).toBe(new Set(want.map((r) => p.earth_date[r])).size)
        expect(src.rowOrdered).toBe(true)
        for (let i = 0; i < src.slices.length; i += 2) {
          for (let pos = src.slices[i] + 1; pos < src.slices[i + 1]; pos++) {
            expect(src.perm![pos]).toBeGreaterThan(src.perm![pos - 1])
            expect(p.earth_date[src.perm![pos]]).toBe(p.earth_date[src.perm![pos - 1]])
          }
        }
      }
    }
  })

  test('the planner counts on the path (no residual filter) for cameras with an Earth date', () => {
    const day = all.find((x) => x.camera === 'NAVCAM' && x.earth_date)!.earth_date!
    const days = Date.parse(`${day}T00:00:00Z`) / 86_400_000
    const plan = planQuery(store, { cameras: ['NAVCAM'], earthDate: { lo: days, hi: days } })
    expect(plan.best.label).toBe('rover-camera-date')
    expect(plan.residual).toEqual([])
    // Few rows satisfying every filter: no other source is looked up.
    expect(plan.sources.map((s) => s.label)).toEqual(['all', 'rover-camera-date'])
    // Many rows (every NAVCAM photo): the other sources stay, for ordered walks.
    const wide = planQuery(store, { cameras: ['NAVCAM'], earthDate: { lo: 0, hi: 100_000 } })
    expect(wide.best.size).toBeGreaterThan(1024)
    expect(wide.sources.map((s) => s.label)).toContain('perm-earth_date')
    // A filter the path does not cover keeps them too.
    expect(planQuery(store, { cameras: ['NAVCAM'], earthDate: { lo: days, hi: days }, sol: { lo: 0, hi: 100_000 } }).sources.length).toBeGreaterThan(2)
  })
})
