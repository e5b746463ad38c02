import { describe, expect, test } from 'bun:test'
import { derivePanoramas } from '../index-builder/derive/panoramas'
import { circularCoverage, roundHalfEven } from '../index-builder/derive/azimuth-coverage'
import { INT_ABSENT, type PanoramaColumns, type PhotoColumns, type Utf8Column } from '../src/store/schema'
import { ROVER_SLUGS, type RoverSlug } from '../src/catalog/rovers'

/** One hand-made photo: only what detection reads. */
interface Shot {
  id: number
  rover?: RoverSlug
  camera?: string
  sol?: number
  site?: number
  drive?: number
  az?: number
  el?: number
  sclk?: number
  marsMs?: number
}

const emptyUtf8 = (n: number): Utf8Column => ({ data: new Uint8Array(0), offsets: new Int32Array(n + 1) })

/** Tiny PhotoColumns from shots (rows in the given order; detection must not depend on it). */
function columns(shots: Shot[]): PhotoColumns {
  const n = shots.length
  const cams = [...new Set(shots.map((s) => s.camera ?? 'NAVCAM'))]
  const num = (f: (s: Shot) => number | undefined, absent: number) => shots.map((s) => f(s) ?? absent)
  return {
    length: n,
    id: Int32Array.from(shots.map((s) => s.id)),
    rover: Uint8Array.from(shots.map((s) => ROVER_SLUGS.indexOf(s.rover ?? 'curiosity'))),
    camera: { codes: Int16Array.from(shots.map((s) => cams.indexOf(s.camera ?? 'NAVCAM'))), dict: cams },
    nasa_id: emptyUtf8(n),
    sol: Int32Array.from(num((s) => s.sol, 100)),
    earth_date: new Int32Array(n),
    date_taken_utc: new Float64Array(n).fill(NaN),
    date_taken_mars: emptyUtf8(n),
    mars_time_ms: Int32Array.from(num((s) => s.marsMs, -1)),
    sample_type: { codes: new Uint8Array(n), dict: ['Full'] },
    width: new Int32Array(n).fill(INT_ABSENT),
    lat: new Float64Array(n).fill(NaN),
    lon: new Float64Array(n).fill(NaN),
    stereo_partner: new Int32Array(n).fill(INT_ABSENT),
    sequence: { codes: new Uint8Array(n), dict: [''] },
    height: new Int32Array(n).fill(INT_ABSENT),
    site: Int32Array.from(num((s) => s.site, 7)),
    drive: Int32Array.from(num((s) => s.drive, 42)),
    coord_x: Float64Array.from(shots.map(() => 1.5)),
    coord_y: Float64Array.from(shots.map(() => -2.5)),
    coord_z: Float64Array.from(shots.map(() => 0.25)),
    mast_azimuth: Float32Array.from(num((s) => s.az, NaN)),
    mast_elevation: Float32Array.from(num((s) => s.el, -10)),
    sclk: Float64Array.from(num((s) => s.sclk, NaN)),
    sun_elevation: new Float32Array(n).fill(NaN),
    sun_azimuth: new Float32Array(n).fill(NaN),
    solar_longitude: new Float32Array(n).fill(NaN),
    date_received: new Float64Array(shots.length).fill(NaN),
    image_dir: { codes: new Uint8Array(n), dict: [''] },
    image_small: emptyUtf8(n),
    image_medium: emptyUtf8(n),
    image_large: emptyUtf8(n),
    image_full: emptyUtf8(n),
    title: { codes: new Uint8Array(n), dict: [''] },
    caption: { codes: new Uint8Array(n), dict: [''] },
    credit: { codes: new Uint8Array(n), dict: [''] },
    raw: emptyUtf8(n),
  }
}

/** A sweep: one shot per azimuth, `step` seconds apart, ids from `firstId`. */
function sweep(firstId: number, azimuths: number[], base: Partial<Shot> = {}, step = 10, t0 = 1_000_000): Shot[] {
  return azimuths.map((az, i) => ({ ...base, id: firstId + i, az, sclk: t0 + i * step }))
}

function photoIds(p: PanoramaColumns, row: number): number[] {
  return [...p.photo_ids_values.subarray(p.photo_ids_offsets[row]!, p.photo_ids_offsets[row + 1]!)]
}

const text = (c: Utf8Column, row: number) => new TextDecoder().decode(c.data.subarray(c.offsets[row]!, c.offsets[row + 1]!))

describe('panorama detection (behaviour.md §15.2 thresholds)', () => {
  test('a five-photo sweep of 80° on one camera, site and drive is one panorama with its §15.3 fields', () => {
    const shots = sweep(1, [0, 20, 40, 60, 80], { el: -10, marsMs: 13 * 3600_000 + 5 * 60_000 + 7_900 }).reverse()
    shots[0]!.marsMs = 13 * 3600_000 + 6 * 60_000 // the last in time
    const p = derivePanoramas(columns(shots))
    expect(p.length).toBe(1)
    expect(photoIds(p, 0)).toEqual([1, 2, 3, 4, 5])
    expect(p.total_photos[0]).toBe(5)
    expect(p.coverage_degrees[0]).toBe(80)
    expect(p.unique_positions[0]).toBe(5)
    expect(p.avg_position_spacing[0]).toBe(20)
    expect(p.avg_elevation[0]).toBe(-10)
    expect(p.quality.dict[p.quality.codes[0]!]).toBe('partial')
    expect(p.camera.dict[p.camera.codes[0]!]).toBe('NAVCAM')
    expect([p.sol[0], p.n[0], p.site[0], p.drive[0], p.rover[0]]).toEqual([100, 1, 7, 42, 0])
    expect([p.coord_x[0], p.coord_y[0], p.coord_z[0]]).toEqual([1.5, -2.5, 0.25])
    expect(text(p.mars_time_start, 0)).toBe('M13:05:07')
    expect(text(p.mars_time_end, 0)).toBe('M13:06:00')
  })

  test('a 301-second gap closes the sequence; a 300-second gap does not', () => {
    const broken = [...sweep(1, [0, 20, 40]), ...sweep(4, [60, 80, 100], {}, 10, 1_000_020 + 301)]
    const p = derivePanoramas(columns(broken))
    expect(p.length).toBe(2)
    expect([photoIds(p, 0), photoIds(p, 1)]).toEqual([[1, 2, 3], [4, 5, 6]])
    expect([p.n[0], p.n[1]]).toEqual([1, 2])

    const joined = [...sweep(1, [0, 20, 40]), ...sweep(4, [60, 80, 100], {}, 10, 1_000_020 + 300)]
    const q = derivePanoramas(columns(joined))
    expect(q.length).toBe(1)
    expect(q.total_photos[0]).toBe(6)
  })

  test('a 301-second gap that leaves two short halves yields no panorama', () => {
    const shots = [...sweep(1, [0, 20]), ...sweep(3, [40, 60], {}, 10, 1_000_010 + 301)]
    expect(derivePanoramas(columns(shots)).length).toBe(0)
  })

  test('a 16° jump from the base elevation closes the sequence; 15° joins', () => {
    const jump = sweep(1, [0, 20, 40, 60, 80, 100]).map((s, i) => ({ ...s, el: i < 3 ? 0 : 16 }))
    const p = derivePanoramas(columns(jump))
    expect(p.length).toBe(2)
    expect([photoIds(p, 0), photoIds(p, 1)]).toEqual([[1, 2, 3], [4, 5, 6]])
    expect([p.avg_elevation[0], p.avg_elevation[1]]).toEqual([0, 16])

    // the base is the first photo's elevation, not the previous photo's: 0, 8, 15 joins, then 16 breaks
    const drift = sweep(1, [0, 20, 40, 60]).map((s, i) => ({ ...s, el: [0, 8, 15, 16][i]! }))
    const q = derivePanoramas(columns(drift))
    expect(q.length).toBe(1)
    expect(photoIds(q, 0)).toEqual([1, 2, 3])
  })

  test('a sweep covering under 30° is not a panorama; exactly 30° is', () => {
    expect(derivePanoramas(columns(sweep(1, [0, 10, 20, 29.5]))).length).toBe(0)
    const p = derivePanoramas(columns(sweep(1, [100, 110, 120, 130])))
    expect(p.length).toBe(1)
    expect(p.coverage_degrees[0]).toBe(30)
  })

  test('a sweep across north (350° -> 20°) covers 30°, not 340°', () => {
    const p = derivePanoramas(columns(sweep(1, [350, 0, 10, 20])))
    expect(p.length).toBe(1)
    expect(p.coverage_degrees[0]).toBe(30)
    expect(p.avg_position_spacing[0]).toBe(10)
    // Perseverance reports -180..180: -10..20 is the same 30° arc
    const q = derivePanoramas(columns(sweep(1, [-10, 0, 10, 20], { rover: 'perseverance', camera: 'NAVCAM_LEFT' })))
    expect(q.coverage_degrees[0]).toBe(30)
    // and a 25° arc across north is still too narrow
    expect(derivePanoramas(columns(sweep(1, [345, 355, 5, 10]))).length).toBe(0)
  })

  test('fewer than 3 unique rounded azimuths is not a panorama, however wide', () => {
    // rounds to 0, 0, 90, 90: two positions over 90°
    expect(derivePanoramas(columns(sweep(1, [0, 0.4, 90, 89.6]))).length).toBe(0)
    // bracketed exposures (equal clocks) join and count in total_photos, not in unique_positions
    const bracketed = sweep(1, [0, 0, 20, 20, 40]).map((s, i) => ({ ...s, sclk: 5000 + [0, 0, 10, 10, 20][i]! }))
    const p = derivePanoramas(columns(bracketed))
    expect([p.length, p.total_photos[0], p.unique_positions[0]]).toEqual([1, 5, 3])
  })

  test('photos of different cameras, sites or drives never share a sequence', () => {
    const shots = [
      ...sweep(1, [0, 40], { camera: 'NAVCAM' }),
      { id: 3, az: 80, sclk: 1_000_015, camera: 'MAST' },
      ...sweep(11, [0, 40], { site: 8 }),
      { id: 13, az: 80, sclk: 1_000_015, drive: 43 },
    ]
    expect(derivePanoramas(columns(shots)).length).toBe(0)
  })

  test('photos lacking site, drive, azimuth, elevation or clock are not candidates', () => {
    const base = sweep(1, [0, 20, 40, 60])
    expect(derivePanoramas(columns(base)).length).toBe(1)
    for (const key of ['site', 'drive', 'az', 'el', 'sclk'] as const) {
      const gappy = base.map((s, i) => (i === 1 || i === 2 ? { ...s, [key]: key === 'site' || key === 'drive' ? INT_ABSENT : NaN } : s))
      expect(derivePanoramas(columns(gappy)).length).toBe(0)
    }
  })

  test('numbering restarts at 1 for each (rover, sol) and follows time order; rows are ordered by rover, sol, n', () => {
    const shots = [
      ...sweep(1, [0, 40, 80], { camera: 'MAST' }, 10, 2000), // curiosity sol 100, later
      ...sweep(11, [0, 40, 80], { camera: 'NAVCAM' }, 10, 1000), // curiosity sol 100, earlier
      ...sweep(21, [0, 40, 80], { rover: 'perseverance', camera: 'MCZ_LEFT' }, 10, 500), // other rover, same sol
      ...sweep(31, [0, 40, 80], { sol: 99 }, 10, 9000), // curiosity, earlier sol, later clock
    ]
    const p = derivePanoramas(columns(shots))
    const ids = Array.from({ length: p.length }, (_, i) => `pano_${ROVER_SLUGS[p.rover[i]!]}_${p.sol[i]}_${p.n[i]}`)
    expect(ids).toEqual(['pano_curiosity_99_1', 'pano_curiosity_100_1', 'pano_curiosity_100_2', 'pano_perseverance_100_1'])
    expect(photoIds(p, 1)).toEqual([11, 12, 13])
    expect(photoIds(p, 2)).toEqual([1, 2, 3])
  })

  test('quality labels follow §15.3 coverage and position thresholds', () => {
    const label = (azs: number[]) => {
      const p = derivePanoramas(columns(sweep(1, azs)))
      return p.quality.dict[p.quality.codes[0]!]
    }
    const ring = (count: number, step: number) => Array.from({ length: count }, (_, i) => i * step)
    expect(label(ring(11, 30))).toBe('full') // 300°, 11 positions
    expect(label(ring(10, 30))).toBe('wide') // 270°, 10 positions
    expect(label(ring(7, 34))).toBe('wide') // 204°, 7 positions
    expect(label(ring(6, 40))).toBe('half') // 200°, only 6 positions
    expect(label(ring(5, 30))).toBe('half') // 120°, 5 positions
    expect(label(ring(4, 50))).toBe('partial') // 150°, 4 positions
  })
})

describe('azimuth arithmetic', () => {
  test('circular coverage is 360 minus the largest gap', () => {
    expect(circularCoverage(Float64Array.from([10]), 1)).toBe(0)
    expect(circularCoverage(Float64Array.from([350, 20]), 2)).toBe(30)
    expect(circularCoverage(Float64Array.from([0, 90, 180, 270]), 4)).toBe(270)
    expect(circularCoverage(Float64Array.from([-180, 180, 170]), 3)).toBe(10)
  })

  test('rounding is half to even like the Anchor (.NET Math.Round)', () => {
    expect([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4, 2.6].map(roundHalfEven)).toEqual([0, 2, 2, -0, -2, -2, 2, 3])
  })
})
