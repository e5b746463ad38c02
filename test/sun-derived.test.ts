import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { angleDiff, AZIMUTH_MIN_ELEVATION, deriveSunAt, summarise } from '../index-builder/sun/derive-sun'
import { RoverPlaces } from '../index-builder/sun/rover-places'
import { roverCode } from '../src/catalog/rovers'
import type { Store } from '../src/store/store'
import { makeTestApp, testStore, type TestApp } from './setup/test-app'

/**
 * The sun per photo on the real index (docs/derived-fields.md, "Sun"). The 2,282 Curiosity PDS3
 * labels state the sun (SITE_DERIVED_GEOMETRY_PARMS SOLAR_ELEVATION / SOLAR_AZIMUTH, local level,
 * from north clockwise) and SOLAR_LONGITUDE: the index serves those, and here each is derived
 * again as if its label had not stated it (Mars24 at the rover's place from the index's own
 * traverse, the builder's code) and compared. The goals of the error table: p95 |err| ≤ 0.5° in
 * elevation, ≤ 1° in azimuth with the sun above 5°, ≤ 0.1° in solar longitude.
 */
const GOALS = { elevation: 0.5, azimuth: 1, solar_longitude: 0.1 }
// One label read by hand (curiosityvo/417/NLB_434515143EDR_D0180446TRAV00110M1.LBL).
const LABELLED = { nasa_id: 'NLB_434515143EDR_D0180446TRAV00110M_', elevation: 65.1347, azimuth: 316.556, solar_longitude: 32.8375 }

let store: Store
let t: TestApp
let labelled: number[]
const decoder = new TextDecoder()

beforeAll(async () => {
  store = await testStore()
  t = await makeTestApp()
  const p = store.photos
  const curiosity = roverCode('curiosity')
  labelled = []
  for (let row = 0; row < p.length; row++) {
    if (p.rover[row] !== curiosity) continue
    const raw = decoder.decode(p.raw.data.subarray(p.raw.offsets[row], p.raw.offsets[row + 1]))
    if (raw.includes('"label":')) labelled.push(row)
  }
})
afterAll(() => t.close())

async function json(path: string): Promise<{ status: number; body: any }> {
  const res = await t.request(path)
  return { status: res.status, body: await res.json() }
}

describe('derived vs stated sun on the labelled Curiosity photos', () => {
  test('every one of the 2,282 labelled photos serves the sun and season its label states', () => {
    expect(labelled.length).toBe(2282)
    const p = store.photos
    for (const row of labelled) {
      expect(Number.isNaN(p.sun_elevation[row]!)).toBe(false)
      expect(Number.isNaN(p.sun_azimuth[row]!)).toBe(false)
      expect(Number.isNaN(p.solar_longitude[row]!)).toBe(false)
    }
  })

  test('Mars24 at the traverse position meets the goals: p95 |err| elevation ≤ 0.5°, azimuth ≤ 1° (sun above 5°), solar longitude ≤ 0.1°', () => {
    const p = store.photos
    const places = new RoverPlaces(store.traverses)
    const el: number[] = []
    const az: number[] = []
    const ls: number[] = []
    for (const row of labelled) {
      const { sun } = deriveSunAt(places, p, row)
      el.push(sun.elevation - p.sun_elevation[row]!)
      if (p.sun_elevation[row]! > AZIMUTH_MIN_ELEVATION) az.push(angleDiff(sun.azimuth, p.sun_azimuth[row]!))
      ls.push(angleDiff(sun.solarLongitude, p.solar_longitude[row]!))
    }
    const e = { elevation: summarise(el), azimuth: summarise(az), solar_longitude: summarise(ls) }
    // The figures of docs/derived-fields.md (to their printed precision).
    expect(e.elevation.n).toBe(2282)
    expect(e.azimuth.n).toBe(2282)
    expect(e.elevation.p95).toBeLessThanOrEqual(GOALS.elevation)
    expect(e.azimuth.p95).toBeLessThanOrEqual(GOALS.azimuth)
    expect(e.solar_longitude.p95).toBeLessThanOrEqual(GOALS.solar_longitude)
    expect(e.elevation.p95).toBeCloseTo(0.26, 2)
    expect(e.azimuth.p95).toBeCloseTo(0.43, 2)
    expect(e.solar_longitude.p95).toBeCloseTo(0.007, 3)
  })

  test('the time scale matters: the same derivation fed UTC as if it were TT (67.184 s early) misses the azimuth goal', () => {
    const p = store.photos
    const places = new RoverPlaces(store.traverses)
    const az: number[] = []
    for (const row of labelled) {
      if (!(p.sun_elevation[row]! > AZIMUTH_MIN_ELEVATION)) continue
      const { sun } = deriveSunAt(places, p, row, p.date_taken_utc[row]! - 67_184)
      az.push(angleDiff(sun.azimuth, p.sun_azimuth[row]!))
    }
    expect(summarise(az).p95).toBeGreaterThan(GOALS.azimuth)
  })
})

describe('sun and solar_longitude in the photo JSON (beyond the interface: complete and fields)', () => {
  let id: number
  beforeAll(async () => {
    const r = await json(`/api/v2/photos?nasa_id=${LABELLED.nasa_id}&fields=nasa_id`)
    expect(r.body.data.length).toBe(1)
    id = r.body.data[0].id
  })

  test('field_set=complete serves the label\'s own sun and solar longitude', async () => {
    const r = await json(`/api/v2/photos/${id}?field_set=complete`)
    expect(r.body.data.attributes.sun).toEqual({ elevation: LABELLED.elevation, azimuth: LABELLED.azimuth })
    expect(r.body.data.attributes.solar_longitude).toBe(LABELLED.solar_longitude)
  })

  test('the default output and the presets up to scientific leave them out; fields=sun,solar_longitude names them', async () => {
    for (const q of ['', 'field_set=minimal', 'field_set=standard', 'field_set=extended', 'field_set=scientific']) {
      const a = (await json(`/api/v2/photos/${id}?${q}`)).body.data.attributes
      expect(a.sun).toBeUndefined()
      expect(a.solar_longitude).toBeUndefined()
    }
    const a = (await json(`/api/v2/photos/${id}?fields=sun,solar_longitude`)).body.data.attributes
    expect(Object.keys(a).sort()).toEqual(['solar_longitude', 'sun'])
  })

  test('a photo without a capture time has no sun (never invented): Curiosity MSSS photos state no time', async () => {
    const p = store.photos
    let row = -1
    for (let r = 0; r < p.length && row < 0; r++) if (Number.isNaN(p.date_taken_utc[r]!)) row = r
    expect(row).toBeGreaterThanOrEqual(0)
    expect(Number.isNaN(p.sun_elevation[row]!)).toBe(true)
    const a = (await json(`/api/v2/photos/${p.id[row]}?field_set=complete`)).body.data.attributes
    expect(a.sun).toBeUndefined()
    expect(a.solar_longitude).toBeUndefined()
  })

  test('a lean photo with a capture time gets a derived sun within its range', async () => {
    const r = await json('/api/v2/photos?rovers=perseverance&sol=1300&per_page=5&fields=sun,solar_longitude')
    expect(r.body.data.length).toBe(5)
    for (const d of r.body.data) {
      expect(d.attributes.sun.elevation).toBeGreaterThanOrEqual(-90)
      expect(d.attributes.sun.elevation).toBeLessThanOrEqual(90)
      expect(d.attributes.sun.azimuth).toBeGreaterThanOrEqual(0)
      expect(d.attributes.sun.azimuth).toBeLessThan(360)
      expect(d.attributes.solar_longitude).toBeGreaterThanOrEqual(0)
    }
  })
})

describe('sun_elevation_min / _max and golden hour by the sun', () => {
  test('bounded -90..90 and min not above max: 400 naming the parameter', async () => {
    for (const [q, name] of [['sun_elevation_min=91', 'sun_elevation_min'], ['sun_elevation_max=-90.5', 'sun_elevation_max'], ['sun_elevation_min=abc', 'sun_elevation_min'], ['sun_elevation_min=10&sun_elevation_max=5', 'sun_elevation_min']]) {
      const r = await json(`/api/v2/photos?${q}`)
      expect(r.status).toBe(400)
      expect(JSON.stringify(r.body)).toContain(name!)
    }
  })

  test('golden hour keeps exactly the photos whose sun is within -4..+6 degrees; photos whose sun is unknown never match', async () => {
    const p = store.photos
    let want = 0
    let unknown = 0
    for (let r = 0; r < p.length; r++) {
      const el = p.sun_elevation[r]!
      if (Number.isNaN(el)) unknown++
      else if (el >= -4 && el <= 6) want++
    }
    expect(unknown).toBeGreaterThan(0)
    expect(want).toBeGreaterThan(0)
    const r = await json('/api/v2/photos?mars_time_golden_hour=true&per_page=100&fields=sun')
    expect(r.body.meta.total_count).toBe(want)
    for (const d of r.body.data) {
      expect(d.attributes.sun.elevation).toBeGreaterThanOrEqual(-4)
      expect(d.attributes.sun.elevation).toBeLessThanOrEqual(6)
    }
  })

  test('sort=sun_elevation orders by the sun, absent last', async () => {
    const r = await json('/api/v2/photos?sort=sun_elevation&sun_elevation_min=-4&per_page=100&fields=sun')
    const els = r.body.data.map((d: any) => d.attributes.sun.elevation)
    expect(els.length).toBe(100)
    expect(els[0]).toBeGreaterThanOrEqual(-4)
    for (let i = 1; i < els.length; i++) expect(els[i]).toBeGreaterThanOrEqual(els[i - 1])
  })
})
