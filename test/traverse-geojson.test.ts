import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { makeTestApp, type TestApp } from './setup/test-app'
import { douglasPeucker, segmentDistance } from '../src/geo/douglas-peucker'
import { MARS_RADIUS_M } from '../src/geo/great-circle'

/**
 * format=geojson against the RFC 7946 rules, and simplify=<m> against what Douglas–Peucker
 * promises: fewer points, the ends kept, every dropped point within the tolerance of the line.
 */
let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(() => t.close())

const GEOMETRY_TYPES = new Set(['Point', 'MultiPoint', 'LineString', 'MultiLineString', 'Polygon', 'MultiPolygon', 'GeometryCollection'])

/** Every rule of RFC 7946 this answer can break; returns the positions of each feature. */
function checkRfc7946(doc: any): { line?: number[][]; points: Array<{ position: number[]; properties: any }> } {
  expect(doc.type).toBe('FeatureCollection') // §3.3
  expect(Array.isArray(doc.features)).toBe(true)
  for (const k of ['geometry', 'properties', 'coordinates']) expect(doc).not.toHaveProperty(k) // §7.1: no Feature/Geometry members on a collection
  const positions: number[][] = []
  let line: number[][] | undefined
  const points: Array<{ position: number[]; properties: any }> = []
  for (const f of doc.features) {
    expect(f.type).toBe('Feature') // §3.2
    expect(f).toHaveProperty('properties')
    expect(typeof f.properties === 'object').toBe(true)
    expect(GEOMETRY_TYPES.has(f.geometry.type)).toBe(true)
    expect(f.geometry).not.toHaveProperty('properties') // §7.1
    const position = (p: unknown) => {
      // §3.1.1: [longitude, latitude], two or three numbers, degrees in range
      expect(Array.isArray(p)).toBe(true)
      const q = p as number[]
      expect(q.length).toBeGreaterThanOrEqual(2)
      expect(q.length).toBeLessThanOrEqual(3)
      expect(q.every((v) => typeof v === 'number' && Number.isFinite(v))).toBe(true)
      expect(q[0]!).toBeGreaterThanOrEqual(-180)
      expect(q[0]!).toBeLessThanOrEqual(180)
      expect(q[1]!).toBeGreaterThanOrEqual(-90)
      expect(q[1]!).toBeLessThanOrEqual(90)
      positions.push(q)
    }
    if (f.geometry.type === 'LineString') {
      expect(f.geometry.coordinates.length).toBeGreaterThanOrEqual(2) // §3.1.4
      f.geometry.coordinates.forEach(position)
      line = f.geometry.coordinates
    } else {
      expect(f.geometry.type).toBe('Point')
      position(f.geometry.coordinates)
      points.push({ position: f.geometry.coordinates, properties: f.properties })
    }
  }
  if (positions.length > 0) {
    // §5: bbox of 2·n numbers, west/south before east/north, containing every position
    expect(doc.bbox).toHaveLength(4)
    const [w, s, e, n] = doc.bbox
    expect(w).toBeLessThanOrEqual(e)
    expect(s).toBeLessThanOrEqual(n)
    for (const [lon, lat] of positions) {
      expect(lon!).toBeGreaterThanOrEqual(w - 1e-9)
      expect(lon!).toBeLessThanOrEqual(e + 1e-9)
      expect(lat!).toBeGreaterThanOrEqual(s - 1e-9)
      expect(lat!).toBeLessThanOrEqual(n + 1e-9)
    }
  }
  return { line, points }
}

async function fetchBoth(query: string): Promise<{ geo: any; json: any; type: string }> {
  const g = await t.request(`/api/v2/rovers/${query}&format=geojson`)
  expect(g.status).toBe(200)
  const type = g.headers.get('content-type')!
  const j = await t.request(`/api/v2/rovers/${query}`)
  return { geo: JSON.parse(await g.text()), json: await j.json(), type }
}

describe('format=geojson (RFC 7946)', () => {
  for (const query of ['curiosity/traverse?sol_min=100&sol_max=400', 'perseverance/traverse?sol_max=2000', 'spirit/traverse?sol_min=400&sol_max=600']) {
    test(`${query}: a FeatureCollection served as application/geo+json, one LineString and one Point per waypoint, [lon, lat] positions inside the bbox`, async () => {
      const { geo, json, type } = await fetchBoth(query)
      expect(type).toBe('application/geo+json; charset=utf-8')
      const { line, points } = checkRfc7946(geo)
      const path = json.data.path
      expect(points.length).toBe(path.length)
      expect(line).toHaveLength(path.length)
      points.forEach((p, i) => {
        // longitude first: the JSON answer names them
        expect(p.position).toEqual([path[i].lon, path[i].lat])
        expect(p.properties.sol).toBe(path[i].sol)
        expect(p.properties.site).toBe(path[i].site)
        expect(p.properties.drive).toBe(path[i].drive)
      })
      const box = json.data.attributes.bounding_box
      expect(geo.bbox).toEqual([box.min.lon, box.min.lat, box.max.lon, box.max.lat])
    })
  }

  test('a window with one waypoint has its Point but no LineString (a LineString needs two positions); a rover without waypoints is an empty collection that says why', async () => {
    const one = await t.request('/api/v2/rovers/curiosity/traverse?sol_max=3&format=geojson')
    const doc = await one.json()
    const { line, points } = checkRfc7946(doc)
    expect(line).toBeUndefined()
    expect(points).toHaveLength(1)
    const none = (await (await t.request('/api/v2/rovers/opportunity/traverse?format=geojson')).json()) as any
    checkRfc7946(none)
    expect(none.features).toEqual([])
    expect(none.bbox).toBeUndefined()
    expect(none.note).toContain('Opportunity')
  })
})

/** Local metric frame of the test's own, to measure what the simplification dropped. */
function metres(lon0: number, lat0: number) {
  const k = (Math.PI / 180) * MARS_RADIUS_M
  return (p: number[]) => [(p[0]! - lon0) * k * Math.cos((lat0 * Math.PI) / 180), (p[1]! - lat0) * k]
}

describe('simplify=<m> (Douglas–Peucker)', () => {
  for (const [query, tolerance] of [['spirit/traverse?sol_min=1&sol_max=2200', 2], ['curiosity/traverse?sol_min=0&sol_max=5000', 25], ['perseverance/traverse?sol_min=0&sol_max=2000', 10]] as const) {
    test(`${query} at ${tolerance} m: fewer points, both ends kept, every dropped point within ${tolerance} m of the simplified line, distances unchanged`, async () => {
      const full = (await (await t.request(`/api/v2/rovers/${query}`)).json()) as any
      const simple = (await (await t.request(`/api/v2/rovers/${query}&simplify=${tolerance}`)).json()) as any
      const all = full.data.path as Array<{ lon: number; lat: number; site: number; drive: number }>
      const kept = simple.data.path as typeof all
      expect(kept.length).toBeLessThan(all.length)
      expect(simple.data.attributes.simplified_point_count).toBe(kept.length)
      expect(simple.data.attributes.point_count).toBe(all.length)
      expect(simple.data.attributes.total_distance_m).toBe(full.data.attributes.total_distance_m)
      expect(kept[0]).toEqual(all[0]!)
      expect(kept.at(-1)).toEqual(all.at(-1)!)
      const toXY = metres(all[0]!.lon, all[0]!.lat)
      const index = new Map(all.map((p, i) => [`${p.site}_${p.drive}`, i]))
      const keptIdx = kept.map((p) => index.get(`${p.site}_${p.drive}`)!)
      let worst = 0
      for (let k = 1; k < keptIdx.length; k++) {
        const [a, b] = [toXY([all[keptIdx[k - 1]!]!.lon, all[keptIdx[k - 1]!]!.lat]), toXY([all[keptIdx[k]!]!.lon, all[keptIdx[k]!]!.lat])]
        for (let i = keptIdx[k - 1]! + 1; i < keptIdx[k]!; i++) {
          const p = toXY([all[i]!.lon, all[i]!.lat])
          worst = Math.max(worst, segmentDistance(p[0]!, p[1]!, a[0]!, a[1]!, b[0]!, b[1]!))
        }
      }
      // the answer's coordinates are rounded to 1e-7 degrees (6 mm)
      expect(worst).toBeLessThanOrEqual(tolerance + 0.01)
      // and the GeoJSON of the same request holds the same simplified line
      const geo = await (await t.request(`/api/v2/rovers/${query}&simplify=${tolerance}&format=geojson`)).json()
      expect(checkRfc7946(geo).line).toEqual(kept.map((p) => [p.lon, p.lat]))
    })
  }

  test('on random paths: kept indices ascend from the first to the last point, and every dropped point lies within the tolerance of the kept segment spanning it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: -1000, max: 1000, noNaN: true }), fc.double({ min: -1000, max: 1000, noNaN: true })), { minLength: 0, maxLength: 200 }),
        fc.double({ min: 0, max: 300, noNaN: true }),
        (pts, tol) => {
          const xs = pts.map((p) => p[0])
          const ys = pts.map((p) => p[1])
          const kept = douglasPeucker(xs, ys, tol)
          if (pts.length === 0) return kept.length === 0
          if (kept[0] !== 0 || kept.at(-1) !== pts.length - 1) return false
          for (let k = 1; k < kept.length; k++) {
            if (kept[k]! <= kept[k - 1]!) return false
            const [a, b] = [kept[k - 1]!, kept[k]!]
            for (let i = a + 1; i < b; i++) if (segmentDistance(xs[i]!, ys[i]!, xs[a]!, ys[a]!, xs[b]!, ys[b]!) > tol + 1e-9) return false
          }
          return true
        },
      ),
      { numRuns: 300 },
    )
  })

  test('a single bump 5 m off the chord is kept at 4 m and dropped at 6 m; a zig-zag of 5 m turns collapses to its ends at 6 m', () => {
    expect(douglasPeucker([0, 10, 20], [0, 5, 0], 4)).toEqual([0, 1, 2])
    expect(douglasPeucker([0, 10, 20], [0, 5, 0], 6)).toEqual([0, 2])
    const xs = Array.from({ length: 21 }, (_, i) => i * 10)
    const ys = xs.map((_, i) => (i % 2 ? 5 : 0))
    expect(douglasPeucker(xs, ys, 6)).toEqual([0, 20])
    expect(douglasPeucker(xs, ys, 4).length).toBeGreaterThan(2)
  })

  test('longitudes of 0..360 maps become -180..180 and values in range stay exactly as they are', async () => {
    const { lon180 } = await import('../plugins/journeys/traverse-answer')
    expect(lon180(354.4734)).toBeCloseTo(-5.5266, 9)
    expect(lon180(77.45258735)).toBe(77.45258735)
    expect(lon180(180)).toBe(180)
    expect(lon180(-180)).toBe(180)
    expect(lon180(540)).toBe(180)
  })
})
