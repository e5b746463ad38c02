import { beforeAll, describe, expect, test } from 'bun:test'
import { listPhotos } from '../src/query'
import type { Store } from '../src/store/store'
import { bruteForce, plainPhotos, type PlainPhoto } from './support/brute-force'
import { testStore } from './setup/test-app'

/**
 * Every filter and sort of GET /photos against a plain brute-force reading of the real records
 * (test/support/brute-force.ts): the engine's ids, in order, over all pages, must equal the
 * brute force's, and meta.total_count its length.
 *
 * Where the real data is thin (say so, so nobody mistakes a pass for depth): only 2 photos carry
 * dimensions, mast angles and coordinates (the two rich Perseverance records); Mars time is
 * known for 6,231 photos (verbatim or derived LMST; none between 23:00 and 06:00), site/drive for
 * 6,059, sample_type for 432.
 * The brute force reads Mars time from the date_taken_mars text, not the engine's column.
 */
let store: Store
let all: PlainPhoto[]

beforeAll(async () => {
  store = await testStore()
  all = plainPhotos(store)
})

/** Every page of a query at per_page=100, concatenated; checks total_count on each page. */
function engineIds(query: string): { ids: number[]; total: number } {
  const ids: number[] = []
  let total = -1
  for (let page = 1; page < 1000; page++) {
    const p = new URLSearchParams(query)
    p.set('per_page', '100')
    p.set('page', String(page))
    const doc = JSON.parse(listPhotos(store, p, 'http://localhost'))
    if (total >= 0) expect(doc.meta.total_count).toBe(total)
    total = doc.meta.total_count
    for (const d of doc.data) ids.push(d.id)
    if (doc.data.length < 100) break
  }
  return { ids, total }
}

function expectSame(query: string, expectMatches: 'some' | 'none' | 'all') {
  const want = bruteForce(all, new URLSearchParams(query)).map((p) => p.id)
  const got = engineIds(query)
  expect(got.total).toBe(want.length)
  expect(got.ids).toEqual(want)
  if (expectMatches === 'some') {
    expect(want.length).toBeGreaterThan(0)
    expect(want.length).toBeLessThan(all.length)
  } else if (expectMatches === 'none') expect(want.length).toBe(0)
  else expect(want.length).toBe(all.length)
}

const cases: Record<string, Array<[string, 'some' | 'none' | 'all']>> = {
  'rovers (lower-cased, several)': [
    ['rovers=curiosity', 'some'],
    ['rovers=Spirit,OPPORTUNITY', 'some'],
    ['rovers= perseverance , curiosity ,', 'some'],
  ],
  'cameras (upper-cased, across rovers, within rovers)': [
    ['cameras=navcam', 'some'],
    ['cameras=FHAZ,RHAZ', 'some'],
    ['rovers=perseverance&cameras=NAVCAM_LEFT,navcam_right', 'some'],
    ['rovers=perseverance&cameras=LCAM', 'none'],
    ['rovers=spirit&cameras=ENTRY', 'some'],
  ],
  'nasa_id (partial, case-insensitive)': [
    ['nasa_id=ncam', 'some'],
    ['nasa_id=NRF_0', 'some'],
    ['nasa_id=_1311_', 'some'],
    ['nasa_id=zzzzqqq', 'none'],
    ['nasa_id=%C3%A9', 'none'],
    ['nasa_id=%E2%84%AA', 'none'], // KELVIN SIGN lower-cases to "k", which no id holds: both sides must agree
    ['nasa_id=ncam&rovers=perseverance&sol=1300', 'some'],
  ],
  'sol, sol_min, sol_max (exact and range AND-ed)': [
    ['sol=0', 'some'],
    ['sol=1000', 'some'],
    ['sol=2147483647', 'none'],
    ['sol_min=1282&sol_max=1290', 'some'],
    ['sol_min=3000', 'some'],
    ['sol_max=1', 'some'],
    ['sol=1000&sol_min=1001', 'none'],
    ['sol=1000&sol_min=0&sol_max=1000', 'some'],
    ['sol_min=0&sol_max=2147483647', 'all'],
    ['rovers=spirit,perseverance&sol_min=0&sol_max=1', 'some'],
  ],
  'earth_date, date_min, date_max': [
    ['earth_date=2004-01-05', 'some'],
    ['earth_date=1999-01-01', 'none'],
    ['date_min=2024-10-01&date_max=2024-10-20', 'some'],
    ['date_min=2020-01-01', 'some'],
    ['date_max=2012-08-06', 'some'],
    ['earth_date=2024-10-10&date_min=2024-10-11', 'none'],
  ],
  'Mars local time (to the second, across midnight, golden hour AND min/max)': [
    ['mars_time_min=M10:00:00&mars_time_max=M12:00:00', 'some'],
    ['mars_time_min=10:00:00.5&mars_time_max=12:00:00.999', 'some'],
    ['mars_time_min=18:00:00&mars_time_max=M06:00:00', 'some'],
    ['mars_time_min=M22:00:00', 'some'],
    ['mars_time_max=7:30:00', 'some'],
    ['mars_time_min=M23:00:00&mars_time_max=M06:00:00', 'none'],
    ['mars_time_min=M00:00:00&mars_time_max=M23:59:59', 'some'],
    ['mars_time_golden_hour=true', 'some'],
    ['mars_time_golden_hour=TRUE&mars_time_min=M06:30:00&mars_time_max=M18:30:00', 'some'],
    ['mars_time_golden_hour=true&mars_time_min=M09:00:00&mars_time_max=M16:00:00', 'none'],
    ['mars_time_golden_hour=false', 'all'],
  ],
  'sun elevation (stated by the labels, else Mars24; golden hour is the −4° … +6° band, ANDed)': [
    ['sun_elevation_min=30', 'some'],
    ['sun_elevation_max=-30', 'some'],
    ['sun_elevation_min=-4&sun_elevation_max=6', 'some'],
    ['sun_elevation_min=-90&sun_elevation_max=90', 'some'],
    ['mars_time_golden_hour=true&sun_elevation_min=0', 'some'],
    ['mars_time_golden_hour=true&sun_elevation_min=7', 'none'],
    ['mars_time_golden_hour=true&sort=-sun_elevation', 'some'],
  ],
  'site, drive, ranges and location_radius': [
    ['site=61', 'some'],
    ['site_min=17&site_max=60', 'some'],
    ['drive=1928', 'some'],
    ['drive_min=100&drive_max=2000', 'some'],
    ['site=61&drive=1928&location_radius=50', 'some'],
    ['site=61&drive=1928&location_radius=0', 'some'],
    ['site=61&drive=1928&location_radius=1000', 'some'],
    ['site=61&drive=0&location_radius=1000&drive_max=1900', 'some'],
    ['site=2147483647', 'none'],
  ],
  'width and height bounds (PDS3 labels, the v1 table and the feeds give dimensions)': [
    ['min_width=1000', 'some'],
    ['max_width=1288&min_width=1288', 'some'],
    ['min_height=969', 'some'],
    ['min_height=5000', 'none'],
    ['min_width=1&max_width=10000&min_height=1&max_height=10000', 'some'],
  ],
  'sample_type (case-insensitive)': [
    ['sample_type=full', 'some'],
    ['sample_type=SUBFRAME,downsampled', 'some'],
    ['sample_type=Thumbnail', 'some'],
    ['sample_type=chemcam prc&rovers=perseverance', 'none'],
    ['sample_type=chemcam prc', 'some'],
  ],
  'aspect ratio (within 1%) and its bounds': [
    ['aspect_ratio=4:3', 'some'],
    ['aspect_ratio= 4 : 3 ', 'some'],
    ['aspect_ratio=16:9', 'none'],
    ['aspect_ratio_min=1.3&aspect_ratio_max=1.34', 'some'],
    ['aspect_ratio_min=1.4', 'some'],
    ['aspect_ratio_min=50', 'none'],
    ['aspect_ratio=4:3&aspect_ratio_max=1.3', 'none'],
  ],
  'mast elevation and azimuth bounds (feed and PDS3 records give angles, azimuths in [0, 360))': [
    ['mast_elevation_min=-20', 'some'],
    ['mast_elevation_max=-20', 'some'],
    ['mast_elevation_min=-90&mast_elevation_max=90', 'some'],
    ['mast_azimuth_min=100&mast_azimuth_max=360', 'some'],
    ['mast_azimuth_max=2', 'some'],
    ['mast_azimuth_min=200', 'some'],
    ['mast_azimuth_min=359.9999', 'none'],
  ],
  'combinations': [
    ['rovers=perseverance&cameras=NAVCAM_LEFT,NAVCAM_RIGHT&sol_min=1290&sol_max=1300&sort=-sol', 'some'],
    ['rovers=perseverance&site=61&mars_time_golden_hour=true&sort=date_taken_mars', 'some'],
    ['cameras=MAST&sol_min=1000&date_max=2015-12-31&sort=camera,-sol', 'some'],
    ['rovers=curiosity&nasa_id=flb&sort=-nasa_id', 'some'],
    ['sample_type=full&rovers=curiosity,perseverance&sort=rover,-date_taken_utc', 'some'],
    ['site_min=60&drive_max=1900&mars_time_min=M12:00:00&sort=-drive', 'some'],
  ],
}

describe('GET /photos filters give the same ids, in order, as a brute-force filter of the real records', () => {
  for (const [group, list] of Object.entries(cases)) {
    for (const [query, expectation] of list) {
      test(`${group}: ${decodeURIComponent(query)} (${expectation} match)`, () => expectSame(query, expectation))
    }
  }
})

describe('angle bounds are inclusive of the value a client reads (float32 columns served as their shortest text)', () => {
  // Rows spread over each column's values; the served text of most float32 values (89.4581) is
  // not the float32 itself (89.45809936…), so a bound equal to it must still take the photo in.
  const ANGLES = [['sun_elevation', 'sun', 'elevation'], ['mast_elevation', 'telemetry', 'mast_elevation'], ['mast_azimuth', 'telemetry', 'mast_azimuth']] as const
  for (const [param, attr, key] of ANGLES) {
    test(`${param}_min, _max and both equal to a served value keep that photo, over a scan and over the rover access path`, () => {
      const known = all.filter((p) => p[param] !== null)
      expect(known.length).toBeGreaterThan(1)
      const picks = [0, 0.25, 0.5, 0.75, 1].map((f) => known[Math.floor(f * (known.length - 1))]!)
      let exactInFloat32 = 0
      for (const photo of picks) {
        const v = photo[param]!
        if (Math.fround(v) === v) exactInFloat32++
        for (const bounds of [`${param}_min=${v}`, `${param}_max=${v}`, `${param}_min=${v}&${param}_max=${v}`]) {
          for (const query of [bounds, `rovers=${photo.rover}&${bounds}`]) {
            expectSame(query, 'some')
            expect(engineIds(query).ids).toContain(photo.id)
          }
        }
        const doc = JSON.parse(listPhotos(store, new URLSearchParams(`${param}_min=${v}&${param}_max=${v}&fields=${attr}&per_page=100`), 'http://localhost'))
        for (const d of doc.data) expect(d.attributes[attr][key]).toBe(v)
      }
      // Not a test of round numbers only: most picks are values float32 cannot hold exactly.
      expect(exactInFloat32).toBeLessThan(picks.length)
    })
  }
})

const SORT_FIELDS = ['id', 'sol', 'earth_date', 'date_taken_utc', 'date_taken_mars', 'camera', 'rover', 'nasa_id', 'site', 'drive', 'width', 'height', 'mast_azimuth', 'mast_elevation', 'sun_elevation']

describe('sort: every sortable field in both directions, absent values last, id ascending last', () => {
  for (const f of SORT_FIELDS) {
    test(`sort=${f} over every photo equals the brute-force order`, () => expectSame(`sort=${f}`, 'all'))
    test(`sort=-${f} over every photo equals the brute-force order`, () => expectSame(`sort=-${f}`, 'all'))
  }
  test('several keys, upper-case names and repeated keys: sort=ROVER,-sol,camera,sol', () => expectSame('sort=ROVER,-sol,camera,sol', 'all'))
  test('keys after id change nothing: sort=-id,sol equals sort=-id', () => {
    expect(engineIds('sort=-id,sol').ids).toEqual(engineIds('sort=-id').ids)
  })
  test('the default order is -date_taken_utc, a photo without a capture time placed at the last instant of its earth_date (before the photos of that day that state a time)', () => {
    const ids = engineIds('').ids
    expect(ids).toEqual(engineIds('sort=-date_taken_utc').ids)
    const byId = new Map(all.map((p) => [p.id, p]))
    const withoutTime = all.filter((p) => p.date_taken_utc === null)
    expect(withoutTime.length).toBeGreaterThan(0)
    // Never at the end as a block: each one sits among its own day's photos.
    const key = (id: number) => {
      const p = byId.get(id)!
      return p.date_taken_utc ?? Date.parse(`${p.earth_date}T23:59:59.999Z`)
    }
    for (let i = 1; i < ids.length; i++) {
      const a = key(ids[i - 1]), b = key(ids[i])
      if (a < b || (a === b && ids[i - 1] > ids[i])) throw new Error(`${ids[i - 1]} before ${ids[i]} breaks the order`)
    }
    expect(byId.get(ids[ids.length - 1])!.date_taken_utc === null && ids.slice(-withoutTime.length).every((id) => byId.get(id)!.date_taken_utc === null)).toBe(false)
  })
  test('absent values sort last in the descending direction too (sort=-site)', () => {
    const ids = engineIds('sort=-site').ids
    const noSite = new Set(all.filter((p) => p.site === null).map((p) => p.id))
    const firstAbsent = ids.findIndex((id) => noSite.has(id))
    expect(firstAbsent).toBeGreaterThan(0)
    expect(ids.slice(firstAbsent).every((id) => noSite.has(id))).toBe(true)
  })
})

describe('output and unknown parameters do not change which photos match', () => {
  test('fields, field_set, include, image_sizes, exclude_images, unknown and derived names leave the ids as they are', () => {
    const base = engineIds('rovers=spirit,opportunity').ids
    expect(engineIds('rovers=spirit,opportunity&fields=sol&include=rover,camera&image_sizes=full&exclude_images=true&field_set=minimal').ids).toEqual(base)
    expect(engineIds('rovers=spirit,opportunity&foo=bar&RoverList=curiosity&PageSize=3&Rovers=curiosity').ids).toEqual(base)
  })
})
