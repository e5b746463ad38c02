import { describe, expect, test } from 'bun:test'
import { deriveTraverses } from '../index-builder/derive/traverses'
import { traverseSums } from '../index-builder/derive/traverse-sums'
import { merMapProjection } from '../index-builder/derive/mer-map-projection'
import { type Waypoint } from '../index-builder/sources/read-sources'
import { readSources } from '../index-builder/normalize/normalize-sources'
import { greatCircleM } from '../src/geo/great-circle'

/** The builder's traverse derivation: which table, which order, which distance, on hand-made rows and on the real tables. */
const flat = (_a: number, _b: number, _c: number, _d: number) => 10 // every segment 10 m as the crow flies

describe('traverseSums', () => {
  test("NASA's stated totals give each segment's length; a total that goes back (a mid-mission 0) is bridged so the stretch still sums to NASA's figure", () => {
    const s = traverseSums([0, 0, 0, 0, 0], [0, 0, 0, 0, 0], [1, 3, 2, NaN, 5], [0, 12, 0, 40, 52], flat)
    expect([...s.statedTotal].map((v) => (Number.isNaN(v) ? null : v))).toEqual([0, 12, null, 40, 52])
    expect([...s.distance]).toEqual([0, 12, 26, 40, 52]) // 12..40 shared over two 10 m chords: 14 + 14
    expect([...s.nasaSegments]).toEqual([0, 1, 2, 3, 4])
    // elevation: +2, -1, (unknown skipped), +3
    expect([...s.gain]).toEqual([0, 2, 2, 2, 5])
    expect([...s.loss]).toEqual([0, 0, 1, 1, 1])
  })

  test('before the first and after the last stated total, and without any, segments are great-circle lengths and not counted as NASA-measured', () => {
    const s = traverseSums([0, 0, 0, 0], [0, 0, 0, 0], [NaN, NaN, NaN, NaN], [NaN, 5, 9, NaN], flat)
    expect([...s.distance]).toEqual([0, 10, 14, 24])
    expect([...s.nasaSegments]).toEqual([0, 0, 1, 1])
    const none = traverseSums([0, 1], [0, 0], [NaN, NaN], [NaN, NaN], greatCircleM)
    expect(none.distance[1]).toBeCloseTo((Math.PI * 3_389_500) / 180, 3)
  })
})

const wp = (w: Partial<Waypoint>): Waypoint => ({ rover: 'curiosity', site: 0, drive: 0, format: 'waypoints', source: 'x/y/layer.json', ...w }) as Waypoint

describe('deriveTraverses', () => {
  test('one point per (site, drive) in motion-counter order: repeated positions merge (earliest sol, latest stay, stated fields kept); a sol going back is left out and counted', () => {
    const { columns: c, report } = deriveTraverses([
      wp({ site: 2, drive: 10, sol: 7, lon: 1, lat: 1 }),
      wp({ site: 1, drive: 0, sol: 3, lon: 0, lat: 0, dist_total_m: 0 }),
      wp({ site: 2, drive: 10, sol: 5, lon: 1, lat: 1, dist_total_m: 100, elevation_m: -10 }), // same position, reached on sol 5
      wp({ site: 2, drive: 4, sol: 4, lon: 0.5, lat: 0.5 }),
      wp({ site: 3, drive: 0, sol: 4, lon: 2, lat: 2 }), // sol 4 after sol 5: goes back
      wp({ site: 4, drive: 0, lon: 3, lat: 3 }), // no sol: cannot be placed in time
    ])
    expect([...c.site]).toEqual([1, 2, 2])
    expect([...c.drive]).toEqual([0, 4, 10])
    expect([...c.sol]).toEqual([3, 4, 5])
    expect([...c.last_sol]).toEqual([3, 4, 7])
    expect([...c.dist_total_m].map((v) => (Number.isNaN(v) ? null : v))).toEqual([0, null, 100])
    expect([...c.elevation_m].map((v) => (Number.isNaN(v) ? null : v))).toEqual([null, null, -10])
    expect(c.cum_distance_m[2]).toBeCloseTo(100, 9) // NASA: 100 m from (1,0), shared over two chords
    expect(c.source.dict).toEqual(['y/layer.json'])
    expect(report).toEqual([{ rover: 'curiosity', format: 'waypoints', points: 3, dropped_unplaced: 1, dropped_sol_order: 1 }])
  })

  test('the real tables: Curiosity from the MMGIS layer, Perseverance from its snapshot and daily layers, Spirit from the MER path placed by a fit exact to a millimetre; no Opportunity', async () => {
    const real = await readSources()
    const { columns: c, report } = deriveTraverses(real.waypoints)
    const by = Object.fromEntries(report.map((r) => [r.rover, r]))
    expect(by.curiosity).toMatchObject({ format: 'waypoints', points: 1366, dropped_sol_order: 0 })
    expect(by.perseverance).toMatchObject({ format: 'waypoints', points: 515, dropped_sol_order: 0 })
    expect(by.spirit).toMatchObject({ format: 'mer-traverse-table', points: 8528, dropped_unplaced: 0, dropped_sol_order: 0 })
    expect(by.opportunity).toBeUndefined()
    for (let i = 1; i < c.length; i++) if (c.rover[i] === c.rover[i - 1]) expect(c.sol[i]!).toBeGreaterThanOrEqual(c.sol[i - 1]!)
    // the fitted projection lands every drive-table row within 1 mm of its stated lon/lat
    const rmc = real.waypoints.filter((w) => w.rover === 'spirit' && w.format === 'mer-rmc-table')
    const project = merMapProjection(rmc)!
    let worst = 0
    for (const w of rmc) {
      const p = project(w.x!, w.y!)
      worst = Math.max(worst, greatCircleM(p.lon, p.lat, w.lon!, w.lat!))
    }
    expect(rmc.length).toBe(729)
    expect(worst).toBeLessThan(0.001)
  })

  test('a map projection that misses a row by more than a metre is refused, so the path is not placed wrongly', () => {
    const rows = [0, 1, 2, 3].map((k) => wp({ rover: 'spirit', format: 'mer-rmc-table', x: k * 100, y: k * 100, lon: 175 + k * 0.001, lat: -14 + k * 0.001 }))
    expect(merMapProjection(rows)).toBeDefined()
    rows[2]!.lat = rows[2]!.lat! + 0.001 // about 59 m off the line through the others
    expect(merMapProjection(rows)).toBeUndefined()
  })
})
