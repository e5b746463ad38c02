/**
 * The three incoming real sources (SOURCES.md §2.11–2.13), read in place by the default build
 * (with the three pending ones, §2.14–2.16, test/pending-sources.test.ts):
 * per-source, per-rover, per-sol and per-camera photo counts equal counts made here from the files
 * without the builder's code (test/support/incoming-photos.ts); PDS3 labels join their URLs and
 * their stated values win; ids of photos without a v1 id are stable and above every v1 id.
 */
import { describe, expect, test } from 'bun:test'
import { ASSIGNED_ID_BASE, assignedIdFor } from '../index-builder/normalize/assign-ids'
import { splitProductVersion } from '../src/catalog/nasa-id-form'
import { DEFAULT_RAW_DIR } from '../index-builder/sources/read-sources'
import { readSources } from '../index-builder/normalize/normalize-sources'
import { parseMarsTimeMs } from '../index-builder/normalize/date-taken-mars'
import { lmstMsAt } from '../index-builder/normalize/mission-sol'
import { BUILT_IN_CALIBRATION, sclkToUtcFor } from '../index-builder/normalize/sclk-to-utc'
import { curiosityVoLabelNames, curiosityVoPhotos, rssFeedPhotos, rssFeedRecords, trelliscopePhotos, type IncomingPhoto } from './support/incoming-photos'

const all = await readSources()
const rawOnly = await readSources([DEFAULT_RAW_DIR])
const fromIncoming = all.records.filter((r) => r.source.startsWith('../shared/data/incoming/'))
const bySource = (name: string) => fromIncoming.filter((r) => r.source.includes(name))
const tally = <T>(list: T[], key: (x: T) => string) => {
  const m: Record<string, number> = {}
  for (const x of list) m[key(x)] = (m[key(x)] ?? 0) + 1
  return m
}
const solCam = (r: { rover: string; sol: number; camera: string }) => `${r.rover}/${r.sol}/${r.camera}`

describe('incoming sources: photo counts against the files', () => {
  test('the default build reads raw/, incoming/ and pending/: 11,277 + 7,454 + 818 = 19,549 photos, and no incoming record is skipped', () => {
    const expected: IncomingPhoto[] = [...trelliscopePhotos(), ...rssFeedPhotos(), ...curiosityVoPhotos()]
    expect(expected.length).toBe(1245 + 1196 + 5013)
    const fromPending = all.records.filter((r) => r.source.startsWith('../shared/data/pending/'))
    expect(fromPending.length).toBe(217 + 276 + 325)
    expect(all.records.length).toBe(rawOnly.records.length + expected.length + fromPending.length)
    expect(all.records.length).toBe(19_549)
    expect(all.skipped).toEqual([])
    expect(all.unmapped).toEqual([])
  })

  test('trelliscope CSV: 1,245 Curiosity photos with their v1 ids, measured sizes and cameras from the full names', () => {
    const rows = trelliscopePhotos()
    const got = bySource('trelliscope')
    expect(got.length).toBe(rows.length)
    expect(tally(got, solCam)).toEqual(tally(rows, solCam))
    const byId = new Map(got.map((r) => [r.id, r]))
    for (const row of rows) {
      const r = byId.get(row.id)!
      expect([r.width, r.height, r.images.full]).toEqual([row.width, row.height, row.url])
    }
  })

  test('Perseverance rss_feed: 1,196 raw_images records, one photo each, per sol and camera as in the file', () => {
    const rows = rssFeedPhotos()
    const got = bySource('rss_feed')
    expect(got.length).toBe(rows.length)
    expect(tally(got, solCam)).toEqual(tally(rows, solCam))
    expect(tally(got, (r) => String(r.sol))).toEqual({ '2': 1036, '4': 160 })
  })

  test('Perseverance rss_feed: stated values win where consistent — LMST, site/drive, sample type and dimension as the record gives them; mast azimuth in [0, 360); the stated UTC, off its own clock count by more than 60 s, stays in raw only', () => {
    // Served without the product version its imageid carries (src/catalog/nasa-id-form.ts).
    const feed = new Map(rssFeedRecords().map((r) => [r.imageid, r]))
    let withAngles = 0
    for (const r of bySource('rss_feed')) {
      const f = feed.get(JSON.parse(r.raw!).imageid)!
      expect(r.nasa_id).toBe(splitProductVersion(f.imageid).id)
      expect(Math.abs(r.date_taken_utc! - Date.parse(f.date_taken_utc))).toBeGreaterThan(60_000)
      expect(JSON.parse(r.raw!).date_taken_utc).toBe(f.date_taken_utc)
      expect(r.date_taken_mars).toBe(f.date_taken_mars)
      expect([r.site, r.drive]).toEqual([f.site, Number(f.drive)])
      expect(r.sample_type).toBe(f.sample_type)
      if (f.extended.mastAz !== 'UNK') {
        withAngles++
        const az = Number(f.extended.mastAz)
        expect(r.mast_azimuth!).toBeCloseTo(az < 0 ? az + 360 : az, 9)
        expect(r.mast_azimuth!).toBeGreaterThanOrEqual(0)
        expect(r.mast_azimuth!).toBeLessThan(360)
      } else expect(r.mast_azimuth).toBeUndefined()
    }
    expect(withAngles).toBe(212)
  })

  test('Perseverance rss_feed: a record that states its own clock count (extended.sclk) is timed by it, not by its id\'s count, which on 34 Mastcam-Z frames of sol 2 lies 12–2,356 s from the exposure: all 282 agree with their stated LMST within 13 s', () => {
    const feed = new Map(rssFeedRecords().map((r) => [r.imageid, r]))
    const clock = sclkToUtcFor(BUILT_IN_CALIBRATION.perseverance)
    let own = 0
    let idOff = 0
    for (const r of bySource('rss_feed')) {
      const f = feed.get(JSON.parse(r.raw!).imageid)!
      const sclk = Number(f.extended?.sclk)
      if (!Number.isFinite(sclk) || f.extended.sclk === null || f.extended.sclk === '') continue
      own++
      expect(r.date_taken_utc).toBe(clock(sclk)!)
      const idCount = Number(/_\d{4}_(\d{10})_/.exec(f.imageid)![1])
      if (Math.abs(clock(idCount)! - r.date_taken_utc!) > 10_000) idOff++
      // The record's own LMST agrees with the UTC served (Mars24 at the landing longitude reads ~11 s later).
      let d = (lmstMsAt('perseverance', r.date_taken_utc!) - parseMarsTimeMs(f.date_taken_mars)!) % 86_400_000
      if (d > 43_200_000) d -= 86_400_000
      if (d < -43_200_000) d += 86_400_000
      expect(Math.abs(d)).toBeLessThan(13_000)
    }
    expect(own).toBe(282)
    expect(idOff).toBe(34)
  })

  test('Curiosity VO archive: 5,013 distinct index URLs, one photo each, per sol as in the indexes', () => {
    const rows = curiosityVoPhotos()
    const got = bySource('curiosityvo')
    expect(got.length).toBe(5013)
    expect(tally(got, solCam)).toEqual(tally(rows, solCam))
    expect(new Set(got.map((r) => r.images.full))).toEqual(new Set(rows.map((r) => r.url)))
  })

  test('Curiosity VO archive: each of the 2,282 PDS3 labels joins the URL of its product and makes that photo rich', () => {
    const labels = curiosityVoLabelNames()
    expect(labels.length).toBe(2282)
    const rich = bySource('curiosityvo').filter((r) => r.source.endsWith('.LBL'))
    expect(rich.length).toBe(2282)
    // label NLA_…M1.LBL ↔ image NLA_…M_.JPG
    const stems = new Set(labels.map((n) => n.slice(n.lastIndexOf('/') + 1, -'1.LBL'.length) + '_'))
    for (const r of rich) {
      expect(stems.has(r.nasa_id)).toBe(true)
      expect(r.images.full!.endsWith(`/${r.nasa_id}.JPG`)).toBe(true)
    }
  })

  test('a PDS3 label states UTC, LMST, SCLK, site/drive (ROVER_MOTION_COUNTER), rover-frame mast angles and the IMAGE object size', () => {
    // Values read off curiosityvo/100/NLA_406373677EDR_D0050104TRAV00024M1.LBL by eye.
    const r = all.records.find((x) => x.nasa_id === 'NLA_406373677EDR_D0050104TRAV00024M_')!
    expect(r.date_taken_utc).toBe(Date.parse('2012-11-16T21:38:10.723Z'))
    expect(r.date_taken_mars).toBe('Sol-00100M13:27:15.076')
    expect(r.sclk).toBe(406373677.663)
    expect([r.site, r.drive]).toEqual([5, 104])
    expect([r.mast_azimuth, r.mast_elevation]).toEqual([44.9548, -28.5174]) // ROVER_DERIVED_GEOMETRY_PARMS, not the site frame's 322.696
    expect([r.width, r.height]).toEqual([256, 256]) // OBJECT = IMAGE, not the 1024×1024 of SUBFRAME_REQUEST_PARMS
    expect([r.sol, r.camera, r.earth_date]).toEqual([100, 'NAVCAM', '2012-11-16'])
  })

  test('photos without a v1 id get FNV-1a ids from 2^30 up, unique, the same on a second read; v1 ids stay below 2^30', async () => {
    const again = await readSources()
    const idOf = new Map(again.records.map((r) => [`${r.nasa_id}#${r.images.full ?? r.images.large}`, r.id]))
    for (const r of [...bySource('rss_feed'), ...bySource('curiosityvo')]) {
      expect(r.id!).toBeGreaterThanOrEqual(ASSIGNED_ID_BASE)
      expect(idOf.get(`${r.nasa_id}#${r.images.full ?? r.images.large}`)).toBe(r.id)
    }
    expect(bySource('curiosityvo').filter((r) => r.id === assignedIdFor(r.nasa_id)).length).toBeGreaterThan(5000)
    for (const r of bySource('trelliscope')) expect(r.id!).toBeLessThan(ASSIGNED_ID_BASE)
    const ids = all.records.map((r) => r.id)
    expect(new Set(ids).size).toBe(ids.length)
  }, 30_000)
})
