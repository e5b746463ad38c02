import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildIndex } from '../index-builder/build-index'
import { derivePanoramas } from '../index-builder/derive/panoramas'
import { encodePhotoColumns } from '../index-builder/encode/photo-columns'
import { lmstMsAt, missionSolAt } from '../index-builder/normalize/mission-sol'
import { parseImageId } from '../index-builder/normalize/parse-image-id'
import { generateSynthetic, type SyntheticCatalogue } from '../index-builder/sources/synthetic'
import { merCodeValue } from '../index-builder/sources/synthetic/feed-texts'
import { planVolumes, TARGETS } from '../index-builder/sources/synthetic/plan-volumes'
import { Rng } from '../index-builder/sources/synthetic/rng'
import { RAW_DIR } from '../index-builder/sources/synthetic/shaping-data'
import { deriveTraverses } from '../index-builder/derive/traverses'
import { photoPositions } from '../index-builder/derive/related/photo-positions'
import { greatCircleM } from '../src/geo/great-circle'
import { gunzipSync } from 'node:zlib'
import { ROVERS, ROVER_SLUGS } from '../src/catalog/rovers'
import type { PanoramaColumns, Utf8Column } from '../src/store/schema'

const decoder = new TextDecoder()
const text = (c: Utf8Column, row: number) => decoder.decode(c.data.subarray(c.offsets[row], c.offsets[row + 1]))
const scratch = mkdtempSync(join(tmpdir(), 'synthetic-test-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

let cat: SyntheticCatalogue
let panoramas: PanoramaColumns
beforeAll(() => {
  cat = generateSynthetic({ seed: 7, scale: 0.01 })
  cat.photos = encodePhotoColumns(cat.photos)
  panoramas = derivePanoramas(cat.photos)
})

describe('the synthetic catalogue', () => {
  test('at full scale plans per-rover totals within 1% of the targets (Curiosity 676k, Perseverance 452k, Opportunity 548k, Spirit 224k)', () => {
    for (const rover of ROVER_SLUGS) {
      const total = planVolumes(rover, 1, new Rng(1), []).reduce((a, p) => a + p.count, 0)
      expect(Math.abs(total - TARGETS[rover]) / TARGETS[rover]).toBeLessThan(0.01)
    }
  })

  test('at scale 0.01 holds about 1% of each rover (whole sols are sampled, so within a wide band)', () => {
    for (const rover of ROVER_SLUGS) {
      expect(cat.perRover[rover]).toBeGreaterThan(TARGETS[rover] * 0.01 * 0.5)
      expect(cat.perRover[rover]).toBeLessThan(TARGETS[rover] * 0.01 * 1.6)
    }
    expect(cat.photos.length).toBe(Object.values(cat.perRover).reduce((a, b) => a + b, 0))
  })

  test('is deterministic: the same seed builds the same index version, another seed another one; the manifest says synthetic and its seed', async () => {
    const a = await buildIndex({ out: join(scratch, 'a'), synthetic: { seed: 11, scale: 0.002 } })
    const b = await buildIndex({ out: join(scratch, 'b'), synthetic: { seed: 11, scale: 0.002 } })
    const c = await buildIndex({ out: join(scratch, 'c'), synthetic: { seed: 12, scale: 0.002 } })
    expect(b.version).toBe(a.version)
    expect(c.version).not.toBe(a.version)
    expect(a.manifest.kind).toBe('synthetic')
    expect(a.manifest.seed).toBe(11)
    expect(a.manifest.sources.length).toBeGreaterThan(0)
  })

  test('nasa ids are unique and embed the sol, SCLK, site/drive and sample type of their row (SOURCES.md §4.5)', () => {
    const p = cat.photos
    const seen = new Set<string>()
    for (let i = 0; i < p.length; i++) {
      const rover = ROVER_SLUGS[p.rover[i]!]!
      const id = text(p.nasa_id, i)
      expect(seen.has(id)).toBe(false)
      seen.add(id)
      const f = parseImageId(rover, id)
      const sample = p.sample_type.dict[p.sample_type.codes[i]!]
      if (rover === 'perseverance') {
        expect([f.sol, f.sclk, f.site, f.drive]).toEqual([p.sol[i], Math.floor(p.sclk[i]!), p.site[i], p.drive[i]])
      } else if (rover === 'curiosity') {
        if (f.sclk !== undefined) expect([f.sclk, f.site, f.drive, f.sample_type]).toEqual([Math.floor(p.sclk[i]!), p.site[i], p.drive[i], sample])
        else expect(f.sol).toBe(p.sol[i]!)
      } else {
        expect([f.sclk, f.sample_type]).toEqual([Math.floor(p.sclk[i]!), sample])
        expect([merCodeValue(id.slice(14, 16)), merCodeValue(id.slice(16, 18))]).toEqual([p.site[i]!, p.drive[i]!])
      }
    }
  })

  test('image URLs follow each rover’s URL family; Perseverance has four sizes, the others full only', () => {
    const p = cat.photos
    for (let i = 0; i < p.length; i++) {
      const rover = ROVER_SLUGS[p.rover[i]!]!
      const dir = p.image_dir.dict[p.image_dir.codes[i]!]!
      const full = dir + text(p.image_full, i)
      const sol5 = String(p.sol[i]).padStart(5, '0')
      expect(full).toContain(text(p.nasa_id, i))
      const sizes = [text(p.image_small, i), text(p.image_medium, i), text(p.image_large, i)]
      if (rover === 'perseverance') {
        expect(dir.startsWith(`https://mars.nasa.gov/mars2020-raw-images/pub/ods/surface/sol/${sol5}/ids/edr/browse/`)).toBe(true)
        expect(sizes.map((s) => s.replace(/^.*01_/, ''))).toEqual(['320.jpg', '800.jpg', '1200.jpg'])
      } else {
        expect(sizes).toEqual(['', '', ''])
        if (rover === 'curiosity') expect(dir).toMatch(new RegExp(`^https://mars\\.nasa\\.gov/msl-raw-images/(proj/msl/redops/ods/surface/sol/${sol5}/|msss/${sol5}/)`))
        else expect(dir).toStartWith(`http://mars.nasa.gov/mer/gallery/all/${rover === 'opportunity' ? 1 : 2}/`)
      }
    }
  })

  test('dates and times agree: earth_date = landing + sol × 1.0274912 d, UTC within the sol (Mars24), Mars time matches mars_time_ms and the UTC, mostly 09:00–17:00', () => {
    const p = cat.photos
    let daytime = 0
    for (let i = 0; i < p.length; i++) {
      const rover = ROVER_SLUGS[p.rover[i]!]!
      const sol = p.sol[i]!
      const landing = Date.parse(ROVERS[p.rover[i]!]!.landing_date) / 86_400_000
      expect(p.earth_date[i]).toBe(landing + Math.floor(sol * 1.0274912))
      const utc = p.date_taken_utc[i]!
      expect(missionSolAt(rover, utc)).toBe(sol)
      const ms = p.mars_time_ms[i]!
      expect(Math.abs(lmstMsAt(rover, utc) - ms)).toBeLessThan(1000)
      const m = /^Sol-(\d{5})M(\d\d):(\d\d):(\d\d)\.(\d{3})$/.exec(text(p.date_taken_mars, i))!
      expect(Number(m[1])).toBe(sol)
      expect(((Number(m[2]) * 60 + Number(m[3])) * 60 + Number(m[4])) * 1000 + Number(m[5])).toBe(ms)
      if (ms >= 9 * 3_600_000 && ms < 17 * 3_600_000) daytime++
    }
    expect(daytime / p.length).toBeGreaterThan(0.75)
  })

  test('per rover, SCLK rises with UTC and site/drive never decrease along sol and time', () => {
    const p = cat.photos
    for (let r = 0; r < ROVER_SLUGS.length; r++) {
      const rows = [...Array(p.length).keys()].filter((i) => p.rover[i] === r).sort((a, b) => p.sol[a]! - p.sol[b]! || p.date_taken_utc[a]! - p.date_taken_utc[b]!)
      expect(rows.length).toBeGreaterThan(0)
      for (let k = 1; k < rows.length; k++) {
        const [a, b] = [rows[k - 1]!, rows[k]!]
        expect(p.date_taken_utc[b]!).toBeGreaterThanOrEqual(p.date_taken_utc[a]!)
        expect(p.sclk[b]!).toBeGreaterThanOrEqual(p.sclk[a]!)
        const up = p.site[b]! > p.site[a]! || (p.site[b] === p.site[a] && p.drive[b]! >= p.drive[a]!)
        if (!up) throw new Error(`${ROVER_SLUGS[r]} sol ${p.sol[b]}: site/drive ${p.site[b]}/${p.drive[b]} after ${p.site[a]}/${p.drive[a]}`)
      }
    }
  })

  test('mast angles: hazcams have none; mast cameras have azimuths in [0, 360) (every rover, as served) and elevations within ±90; every photo has dimensions', () => {
    const p = cat.photos
    let mast = 0
    for (let i = 0; i < p.length; i++) {
      const camera = p.camera.dict[p.camera.codes[i]!]!
      const az = p.mast_azimuth[i]!
      expect(p.width[i]!).toBeGreaterThan(0)
      expect(p.height[i]!).toBeGreaterThan(0)
      if (camera.includes('HAZ')) expect(Number.isNaN(az)).toBe(true)
      if (Number.isNaN(az)) continue
      mast++
      expect(az >= 0 && az < 360).toBe(true)
      expect(Math.abs(p.mast_elevation[i]!)).toBeLessThanOrEqual(90)
    }
    expect(mast / p.length).toBeGreaterThan(0.5)
  })

  test('azimuth sweeps make panoramas for every rover, some wide (≥ 120°) and some crossing north (0/360)', () => {
    const p = cat.photos
    const rowOf = new Map<number, number>()
    for (let i = 0; i < p.length; i++) rowOf.set(p.id[i]!, i)
    const perRover = new Array(ROVER_SLUGS.length).fill(0)
    let wide = 0
    let crossing = 0
    for (let k = 0; k < panoramas.length; k++) {
      perRover[panoramas.rover[k]!]++
      if (panoramas.coverage_degrees[k]! >= 120) wide++
      const az = [...panoramas.photo_ids_values.subarray(panoramas.photo_ids_offsets[k], panoramas.photo_ids_offsets[k + 1])].map((id) => p.mast_azimuth[rowOf.get(id)!]!)
      const norm = az.map((a) => (a + 360) % 360)
      if (norm.some((a) => a < 30) && norm.some((a) => a > 330) && Math.max(...norm) - Math.min(...norm) > panoramas.coverage_degrees[k]! + 1) crossing++
    }
    expect(perRover.every((n) => n > 0)).toBe(true)
    expect(wide).toBeGreaterThan(0)
    expect(crossing).toBeGreaterThan(0)
  })

  test('positions: every photo stands on its rover\'s traverse (labelled synthetic), which moves sol by sol in steps of the real tables\' size, on the real waypoints where the tables place them', () => {
    const p = cat.photos
    expect(cat.waypoints.every((w) => w.source === 'synthetic')).toBe(true)
    const traverses = deriveTraverses(cat.waypoints)
    const { lat, lon } = photoPositions(p, traverses.columns)
    for (let i = 0; i < p.length; i++) if (Number.isNaN(lat[i]!)) throw new Error(`photo ${p.id[i]} (${ROVER_SLUGS[p.rover[i]!]} site ${p.site[i]} drive ${p.drive[i]}) has no position`)
    const real = new Map<string, { lat: number; lon: number }>()
    for (const f of (JSON.parse(gunzipSync(readFileSync(join(RAW_DIR, 'stattari__mars-rover-data', 'all_waypoints.geojson.gz'))).toString()).features as any[])) real.set(`${f.properties.site}/${f.properties.drive}`, f.properties)
    let onReal = 0
    for (const rover of ROVER_SLUGS) {
      const mine = cat.waypoints.filter((w) => w.rover === rover)
      expect(mine.length).toBeGreaterThan(100)
      const steps: number[] = []
      for (let k = 1; k < mine.length; k++) {
        const [a, b] = [mine[k - 1]!, mine[k]!]
        expect(b.sol!).toBeGreaterThanOrEqual(a.sol!)
        steps.push(greatCircleM(a.lon!, a.lat!, b.lon!, b.lat!))
      }
      steps.sort((x, y) => x - y)
      // Rover steps: metres to a few hundred; the median within the real tables' range.
      expect(steps[steps.length >> 1]!).toBeGreaterThan(1)
      expect(steps[steps.length >> 1]!).toBeLessThan(300)
      // The whole traverse stays within tens of km of the landing site, as the real ones do.
      for (const w of mine) expect(greatCircleM(mine[0]!.lon!, mine[0]!.lat!, w.lon!, w.lat!)).toBeLessThan(100_000)
      if (rover !== 'curiosity') continue
      for (const w of mine) {
        const r = real.get(`${w.site}/${w.drive}`)
        if (!r) continue
        onReal++
        expect([w.lat, w.lon]).toEqual([r.lat, r.lon])
      }
    }
    expect(onReal).toBeGreaterThan(100)
  })
})
