import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { FormatRegistry, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { makeTestApp, type TestApp } from './setup/test-app'
import { JourneySchema, TraverseSchema } from '../plugins/journeys/journey-schemas'
import { greatCircleM, MARS_RADIUS_M } from '../src/geo/great-circle'
import { LARGE_ANSWER_ENTRIES, LARGE_ANSWER_MAX_BYTES, largeAnswerCache } from '../plugins/journeys/large-answer-cache'
import { RESPONSE_CACHE_MAX_ENTRY_BYTES } from '../src/query/cache/response-cache'

/**
 * GET /api/v2/rovers/{slug}/journey and /traverse over the real test index, against NASA's own
 * figures read here straight from the MMGIS waypoint layers (SOURCES.md §2.8, §2.9).
 */
const RAW = join(import.meta.dir, '../../shared/data/raw')
for (const [name, check] of [['date', (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v)], ['uri', (v: string) => /^https?:\/\/\S+$/.test(v)]] as const)
  if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check)
function conforms(schema: TSchema, body: unknown): void {
  expect([...Value.Errors(schema, body)].map((e) => `${e.path}: ${e.message}`)).toEqual([])
}

interface NasaPoint {
  sol: number
  site: number
  drive: number
  lon: number
  lat: number
  elev: number
  dist: number
}

/** Curiosity's waypoints as NASA's layer states them, in driving order. */
function curiosityWaypoints(): NasaPoint[] {
  const doc = JSON.parse(gunzipSync(readFileSync(join(RAW, 'stattari__mars-rover-data/all_waypoints.geojson.gz'))).toString('utf8'))
  return (doc.features as Array<{ properties: Record<string, unknown> }>)
    .map(({ properties: p }) => ({ sol: Number(p.sol), site: Number(p.site), drive: Number(p.drive), lon: Number(p.lon), lat: Number(p.lat), elev: Number(p.elev_geoid), dist: Number(p.dist_total_m) }))
    .sort((a, b) => a.site - b.site || a.drive - b.drive)
}

let t: TestApp
let nasa: NasaPoint[]
const get = async (path: string) => {
  const r = await t.request(path)
  return { status: r.status, headers: r.headers, body: (await r.json()) as any }
}

beforeAll(async () => {
  t = await makeTestApp()
  nasa = curiosityWaypoints()
})
afterAll(() => t.close())

describe('traverse distance against NASA', () => {
  test("Curiosity's whole traverse is NASA's own dist_total_m of its last waypoint (37.87 km), measured by NASA's cumulative distance", async () => {
    const { status, body } = await get('/api/v2/rovers/curiosity/traverse')
    expect(status).toBe(200)
    conforms(TraverseSchema, body)
    const a = body.data.attributes
    expect(nasa.length).toBe(1366)
    expect(a.point_count).toBe(1366)
    expect(a.total_distance_m).toBeCloseTo(nasa[nasa.length - 1]!.dist - nasa[0]!.dist, 2)
    expect(a.total_distance_m).toBeCloseTo(37874.92, 2)
    expect(a.distance_method).toBe('nasa_dist_total_m')
    expect(a.distance_segments).toEqual({ nasa_dist_total_m: 1365, great_circle: 0 })
    expect(a.net_elevation_change_m).toBeCloseTo(nasa[nasa.length - 1]!.elev - nasa[0]!.elev, 3)
    // the path's cumulative distances agree with NASA's at every point whose stated total is credible
    const bySite = new Map(nasa.map((p) => [`${p.site}_${p.drive}`, p]))
    let checked = 0
    let best = 0
    for (const p of body.data.path) {
      const n = bySite.get(`${p.site}_${p.drive}`)!
      expect(p.lon).toBeCloseTo(n.lon, 6)
      expect(p.lat).toBeCloseTo(n.lat, 6)
      if (n.dist >= best) {
        best = n.dist
        expect(p.cumulative_distance_m).toBeCloseTo(n.dist, 2)
        checked++
      }
    }
    // a few mid-mission points state less than the point before (0, mostly): not credible, bridged
    expect(checked).toBeGreaterThan(1350)
  })

  test("a sol window's distance is NASA's total at its last waypoint minus the total where the rover stood when sol_min began", async () => {
    const [lo, hi] = [1000, 1100]
    const before = nasa.filter((p) => p.sol < lo).at(-1)!
    const last = nasa.filter((p) => p.sol <= hi).at(-1)!
    const { body } = await get(`/api/v2/rovers/curiosity/traverse?sol_min=${lo}&sol_max=${hi}`)
    const a = body.data.attributes
    expect(a.start_sol).toBe(before.sol)
    expect(a.total_distance_m).toBeCloseTo(last.dist - before.dist, 2)
    expect(a.net_elevation_change_m).toBeCloseTo(last.elev - before.elev, 3)
    expect(body.data.path.slice(1).every((p: { sol: number }) => p.sol >= lo && p.sol <= hi)).toBe(true)
    expect(a.total_elevation_gain_m - a.total_elevation_loss_m).toBeCloseTo(a.net_elevation_change_m, 3)
  })

  test("NASA's odometry is never shorter than the great-circle chords between the same waypoints, and within 15% of them", async () => {
    let chords = 0
    for (let i = 1; i < nasa.length; i++) chords += greatCircleM(nasa[i - 1]!.lon, nasa[i - 1]!.lat, nasa[i]!.lon, nasa[i]!.lat)
    const { body } = await get('/api/v2/rovers/curiosity/traverse')
    expect(body.data.attributes.total_distance_m).toBeGreaterThanOrEqual(chords)
    expect(body.data.attributes.total_distance_m).toBeLessThan(chords * 1.15)
  })

  test('great-circle distance on the 3,389.5 km sphere: a quarter meridian is πR/2, a degree of latitude 59.16 km, and it is symmetric', () => {
    expect(greatCircleM(0, 0, 0, 90)).toBeCloseTo((Math.PI * MARS_RADIUS_M) / 2, 3)
    expect(greatCircleM(137, -4, 137, -5)).toBeCloseTo((Math.PI * MARS_RADIUS_M) / 180, 3)
    expect(greatCircleM(10, 20, 11, 21)).toBeCloseTo(greatCircleM(11, 21, 10, 20), 9)
    expect(greatCircleM(175.5, -14.6, 175.5, -14.6)).toBe(0)
  })

  test("Spirit's waypoints state no cumulative distance: its traverse is a great-circle sum over the 8,804-row path placed by the drive table's projection", async () => {
    const { body } = await get('/api/v2/rovers/spirit/traverse')
    const a = body.data.attributes
    expect(a.distance_method).toBe('great_circle')
    expect(a.distance_segments.nasa_dist_total_m).toBe(0)
    expect(a.point_count).toBeGreaterThan(8000)
    expect(a.total_distance_m).toBeGreaterThan(6000)
    expect(a.total_distance_m).toBeLessThan(8000) // NASA's Spirit odometry: 7.73 km
    expect(a.total_elevation_gain_m).toBeUndefined()
    expect(a.elevation_note).toContain('no elevation')
    // its first point is the drive table's landing position (drives.tsv: -14.5658282, 175.4758369)
    expect(body.data.path[0].lat).toBeCloseTo(-14.5658282, 6)
    expect(body.data.path[0].lon).toBeCloseTo(175.4758369, 6)
  })
})

describe('journey', () => {
  test("Perseverance sols 1282–1311: every photo of the window, grouped by (sol, site, drive) in order, and the traverse's distance for the same window", async () => {
    const { status, body } = await get('/api/v2/rovers/perseverance/journey?sol_min=1282&sol_max=1311')
    expect(status).toBe(200)
    conforms(JourneySchema, body)
    const a = body.data.attributes
    const photos = await get('/api/v2/photos?rovers=perseverance&sol_min=1282&sol_max=1311&per_page=1')
    expect(a.total_photos).toBe(photos.body.meta.total_count)
    const path = body.data.path as Array<{ sol: number; site?: number; drive?: number; photos_taken: number; position?: unknown }>
    expect(path.reduce((s, p) => s + p.photos_taken, 0)).toBe(a.total_photos)
    for (let i = 1; i < path.length; i++) {
      const [p, q] = [path[i - 1]!, path[i]!]
      expect(p.sol < q.sol || (p.sol === q.sol && ((p.site ?? -1) < (q.site ?? -1) || (p.site === q.site && (p.drive ?? -1) < (q.drive ?? -1))))).toBe(true)
    }
    expect(path.every((p) => p.sol >= 1282 && p.sol <= 1311)).toBe(true)
    expect(path.filter((p) => p.position).length).toBeGreaterThan(20)
    const tr = await get('/api/v2/rovers/perseverance/traverse?sol_min=1282&sol_max=1311')
    expect(a.distance_traveled_m).toBe(tr.body.data.attributes.total_distance_m)
    expect(a.distance_traveled_km).toBeCloseTo(a.distance_traveled_m / 1000, 3)
    expect(a.distance_method).toBe('nasa_dist_total_m')
    expect(a.elevation_change_m).toBe(tr.body.data.attributes.net_elevation_change_m)
    expect(body.data.links.traverse).toBe('http://localhost/api/v2/rovers/perseverance/traverse?sol_min=1282&sol_max=1311')
  })

  test('a single sol: the photos of that sol only; its photo links are the photo query of that sol, site and drive', async () => {
    const { body } = await get('/api/v2/rovers/curiosity/journey?sol_min=1000&sol_max=1000')
    expect(body.data.attributes.total_photos).toBe((await get('/api/v2/photos?rovers=curiosity&sol=1000&per_page=1')).body.meta.total_count)
    const placed = body.data.path.find((p: { site?: number }) => p.site === 48)
    expect(placed.links.photos).toBe('http://localhost/api/v2/photos?rovers=curiosity&sol=1000&site=48&drive=1570')
    const linked = await get(placed.links.photos.replace('http://localhost', ''))
    expect(linked.body.meta.total_count).toBe(placed.photos_taken)
  })

  test('windows add up: the distance, elevation change and photos of sols a..b plus b+1..c are those of a..c, for every rover with waypoints', async () => {
    for (const [rover, cuts] of [['curiosity', [0, 999, 1000, 3027, 5000]], ['perseverance', [0, 394, 1282, 1300, 1311, 2000]], ['spirit', [1, 100, 500, 1500, 2300]]] as const) {
      const whole = (await get(`/api/v2/rovers/${rover}/journey?sol_min=${cuts[0]}&sol_max=${cuts.at(-1)}`)).body.data.attributes
      let distance = 0
      let elevation = 0
      let photos = 0
      for (let k = 1; k < cuts.length; k++) {
        const lo = k === 1 ? cuts[0]! : cuts[k - 1]! + 1
        const a = (await get(`/api/v2/rovers/${rover}/journey?sol_min=${lo}&sol_max=${cuts[k]}`)).body.data.attributes
        distance += a.distance_traveled_m ?? 0
        elevation += a.elevation_change_m ?? 0
        photos += a.total_photos
      }
      expect(distance).toBeCloseTo(whole.distance_traveled_m, 1)
      if (whole.elevation_change_m !== undefined) expect(elevation).toBeCloseTo(whole.elevation_change_m, 2)
      expect(photos).toBe(whole.total_photos)
    }
  })

  test('a rover without waypoints (Opportunity) keeps its photos but has no distance or elevation fields, and says why', async () => {
    const { body } = await get('/api/v2/rovers/opportunity/journey')
    conforms(JourneySchema, body)
    const a = body.data.attributes
    expect(a.total_photos).toBe((await get('/api/v2/photos?rovers=opportunity&per_page=1')).body.meta.total_count)
    for (const k of ['distance_traveled_m', 'distance_traveled_km', 'distance_method', 'elevation_change_m']) expect(a[k]).toBeUndefined()
    expect(a.distance_note).toContain('no waypoint table for Opportunity')
    const tr = await get('/api/v2/rovers/opportunity/traverse')
    expect(tr.body.data.attributes.point_count).toBe(0)
    expect(tr.body.data.path).toEqual([])
    expect(tr.body.data.attributes.note).toContain('no waypoint table')
  })

  test('a window before the first waypoint (Curiosity sols 0–2) or after the last has no distance, and says where the waypoints start or end', async () => {
    const early = (await get('/api/v2/rovers/curiosity/journey?sol_max=2')).body.data.attributes
    expect(early.total_photos).toBe((await get('/api/v2/photos?rovers=curiosity&sol_max=2&per_page=1')).body.meta.total_count)
    expect(early.distance_traveled_m).toBeUndefined()
    expect(early.distance_note).toContain('start at sol 3')
    const late = (await get('/api/v2/rovers/curiosity/journey?sol_min=5000')).body.data.attributes
    expect(late.distance_traveled_m).toBeUndefined()
    expect(late.distance_note).toContain('end at sol 4959')
  })
})

describe('errors, keys and caching', () => {
  test('bad parameters are one 400 problem naming each of them', async () => {
    const r = await get('/api/v2/rovers/curiosity/traverse?sol_min=9&sol_max=3&format=kml&simplify=abc')
    expect(r.status).toBe(400)
    expect(r.body.type).toBe('/errors/validation-error')
    expect(r.body.errors.map((e: { parameter: string }) => e.parameter).sort()).toEqual(['format', 'simplify', 'sol_min'])
    for (const q of ['sol_min=-1', 'sol_max=1.5', 'sol_min=99999999999']) {
      const j = await get(`/api/v2/rovers/curiosity/journey?${q}`)
      expect(j.status).toBe(400)
      expect(j.body.errors[0].parameter).toBe(q.split('=')[0])
    }
    const s = await get('/api/v2/rovers/curiosity/traverse?simplify=1e9')
    expect(s.status).toBe(400)
    expect(s.body.errors[0].parameter).toBe('simplify')
  })

  test('an unknown rover is a 404 problem on both; the slug is case-insensitive', async () => {
    for (const p of ['/api/v2/rovers/sojourner/journey', '/api/v2/rovers/sojourner/traverse?format=geojson', '/api/v2/rovers/%ZZ/traverse']) {
      const r = await get(p)
      expect(r.status).toBe(404)
      expect(r.body.type).toBe('/errors/not-found')
    }
    expect((await get('/api/v2/rovers/CURIOSITY/journey?sol_min=1000&sol_max=1000')).body.data.id).toBe('curiosity')
  })

  test('both need a key (401 without); answers carry an ETag and a repeat with If-None-Match is a 304', async () => {
    expect((await t.anonymous('/api/v2/rovers/curiosity/journey')).status).toBe(401)
    expect((await t.anonymous('/api/v2/rovers/curiosity/traverse')).status).toBe(401)
    const first = await t.request('/api/v2/rovers/spirit/traverse?format=geojson&simplify=2')
    const tag = first.headers.get('etag')!
    expect(tag).toBeTruthy()
    const again = await t.request('/api/v2/rovers/spirit/traverse?format=geojson&simplify=2', { headers: { 'if-none-match': tag } })
    expect(again.status).toBe(304)
    const other = await t.request('/api/v2/rovers/spirit/traverse?format=json&simplify=2')
    expect(other.headers.get('etag')).not.toBe(tag)
  })
})

describe('answers too large for the shared response cache', () => {
  test('a text over the shared cache entry limit is rendered once per URL and index version; small texts and other URLs are rendered again', () => {
    const large = largeAnswerCache(t.deps)
    let renders = 0
    const big = 'x'.repeat(RESPONSE_CACHE_MAX_ENTRY_BYTES + 1)
    const call = (url: string, text: string) => large(new Request(url), () => (renders++, text))
    expect(call('http://localhost/api/v2/rovers/spirit/traverse?format=geojson', big)).toBe(big)
    expect(call('http://localhost/api/v2/rovers/spirit/traverse?format=geojson', 'other')).toBe(big)
    expect(renders).toBe(1)
    call('http://localhost/api/v2/rovers/spirit/traverse?format=json', big)
    expect(renders).toBe(2)
    call('http://localhost/api/v2/rovers/curiosity/traverse', 'small')
    call('http://localhost/api/v2/rovers/curiosity/traverse', 'small')
    expect(renders).toBe(4)
  })

  test('once the texts it dropped add up to its byte bound, it asks once for them to be collected', () => {
    let asked = 0
    const large = largeAnswerCache(t.deps, () => asked++)
    const big = 'x'.repeat(RESPONSE_CACHE_MAX_ENTRY_BYTES + 1)
    let n = 0
    const next = () => large(new Request(`http://localhost/api/v2/rovers/spirit/traverse?format=geojson&simplify=${n++}`), () => big)
    for (let i = 0; i < LARGE_ANSWER_ENTRIES; i++) next()
    expect(asked).toBe(0) // full, nothing dropped yet
    let dropped = 0
    while (asked === 0 && dropped < 1000) {
      next()
      dropped++
    }
    // One per bound's worth of dropped texts (each text plus its key of ~100 bytes).
    expect(asked).toBe(1)
    expect(dropped).toBeGreaterThanOrEqual(Math.floor(LARGE_ANSWER_MAX_BYTES / (big.length + 200)))
    expect(dropped).toBeLessThanOrEqual(Math.ceil(LARGE_ANSWER_MAX_BYTES / big.length))
  })

  test("Spirit's whole traverse as GeoJSON is over that limit and repeats byte for byte", async () => {
    const a = await (await t.request('/api/v2/rovers/spirit/traverse?format=geojson')).text()
    expect(a.length).toBeGreaterThan(RESPONSE_CACHE_MAX_ENTRY_BYTES)
    const b = await (await t.request('/api/v2/rovers/spirit/traverse?format=geojson')).text()
    expect(b).toBe(a)
  })
})
