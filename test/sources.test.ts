/**
 * The source readers over the real data in ../shared/data/raw (the incoming sources have their own
 * test, incoming-sources.test.ts): every file is read, the photo counts
 * equal counts made independently here from the files, ids are kept or assigned as documented, and
 * bad input is reported by file and record.
 */
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { DEFAULT_RAW_DIR, SourceError } from '../index-builder/sources/read-sources'
import { readSources } from '../index-builder/normalize/normalize-sources'
import { ASSIGNED_ID_BASE, assignedIdFor } from '../index-builder/normalize/assign-ids'

const real = await readSources([DEFAULT_RAW_DIR])
const FIXTURES = path.join(import.meta.dir, 'fixtures/feeds')

// ---- Independent count, straight from the files -------------------------------------------------
// Every photo record in the folder: v1 JSON ({photos} or a bare array), the v1 CSV and the mru records.
type Row = { rover: string; sol: number; camera: string; url: string }
function allFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n)
    return statSync(p).isDirectory() ? allFiles(p) : [p]
  })
}
const text = (p: string) => {
  const b = readFileSync(p)
  return (b[0] === 0x1f && b[1] === 0x8b ? gunzipSync(b) : b).toString('utf8')
}
const rows: Row[] = []
for (const f of allFiles(DEFAULT_RAW_DIR)) {
  if (f.endsWith('.tar.gz')) continue
  const t = text(f)
  if (t.startsWith('id,earth_date,camera_name,img_src')) {
    for (const line of t.trim().split('\n').slice(1)) {
      const [, , camera, url] = line.split(',')
      rows.push({ rover: 'perseverance', sol: Number(/\/sol\/(\d+)\//.exec(url!)![1]), camera: camera!, url: url! })
    }
    continue
  }
  if (!/^\s*[[{]/.test(t)) continue
  const j = JSON.parse(t)
  const photos = Array.isArray(j) ? j : j.photos
  if (Array.isArray(photos)) {
    for (const p of photos) rows.push({ rover: p.rover.name.toLowerCase(), sol: p.sol, camera: p.camera.name, url: p.img_src })
  } else if (j.imageid && j.link) {
    rows.push({ rover: 'perseverance', sol: j.sol, camera: j.instrument, url: j.link })
  }
}
// One photo per image: the file stem without extension, size suffix, "-BR", and for Perseverance without
// the 2-digit product version (…J01 / …J02 are one image).
const imageKey = (r: Row) => {
  let s = r.url.split('/').pop()!.replace(/\.(jpe?g|png)$/i, '').replace(/-BR$/, '').replace(/_(320|800|1200)$/, '')
  if (r.rover === 'perseverance') s = s.slice(0, -2)
  return `${r.rover} ${s}`
}
const byImage = new Map<string, Row>()
for (const r of rows) byImage.set(imageKey(r), r)
const tally = (list: Iterable<{ rover: string; sol: number; camera: string }>, key: (r: { rover: string; sol: number; camera: string }) => string) => {
  const m: Record<string, number> = {}
  for (const r of list) m[key(r)] = (m[key(r)] ?? 0) + 1
  return m
}

describe('real sources: photo counts', () => {
  test('the folder holds 11,277 distinct photo records (by img_src) and 11,060 distinct images', () => {
    expect(new Set(rows.map((r) => r.url)).size).toBe(11277)
    expect(rows.length).toBe(11277)
    expect(byImage.size).toBe(11060)
  })

  test('the reader returns one photo per product file: 11,277, of which 217 are further versions sharing a nasa_id', () => {
    expect(real.records.length).toBe(11277)
    expect(real.merged.length).toBe(0)
    expect(new Set(real.records.map((r) => r.nasa_id)).size).toBe(byImage.size)
  })

  test('photo counts per rover equal the independent count', () => {
    expect(tally(real.records, (r) => r.rover)).toEqual(tally(rows, (r) => r.rover))
    expect(tally(real.records, (r) => r.rover)).toEqual({ curiosity: 5088, perseverance: 6017, opportunity: 95, spirit: 77 })
  })

  test('photo counts per (rover, sol) equal the independent count', () => {
    expect(tally(real.records, (r) => `${r.rover}/${r.sol}`)).toEqual(tally(rows, (r) => `${r.rover}/${r.sol}`))
  })

  test('photo counts per (rover, camera) equal the independent count', () => {
    expect(tally(real.records, (r) => `${r.rover}/${r.camera}`)).toEqual(tally(rows, (r) => `${r.rover}/${r.camera}`))
  })

  test('product versions of one image are one exposure (one camera, one SCLK.ms) kept as separate photos with their own v1 ids', () => {
    const groups = new Map<string, Row[]>()
    for (const r of rows) groups.set(imageKey(r), [...(groups.get(imageKey(r)) ?? []), r])
    const multi = [...groups.values()].filter((g) => g.length > 1)
    expect(multi.reduce((s, g) => s + g.length - 1, 0)).toBe(217)
    for (const g of multi) {
      expect(new Set(g.map((r) => r.camera)).size).toBe(1)
      expect(new Set(g.map((r) => r.url.split('/').pop()!.replace(/\d\d(_\d+)?\.\w+$/, ''))).size).toBe(1)
      expect(new Set(g.map((r) => r.url)).size).toBe(g.length)
    }
    const ids = real.records.filter((r) => r.nasa_id === 'FLR_0000_0666952977_663ECM_N0010044AUT_04096_00_2I3J')
    expect(ids.length).toBe(3)
    expect(ids.map((r) => r.images.large!.slice(-15)).sort()).toEqual(['2I3J01_1200.jpg', '2I3J02_1200.jpg', '2I3J03_1200.jpg'])
    expect(new Set(ids.map((r) => r.id)).size).toBe(3)
    expect(ids.map((r) => r.id)).toContain(810962)
  })

  test('every record carries its source file and the source record as JSON text', () => {
    const r = real.records.find((x) => x.id === 102693)!
    expect(r.source).toBe('../shared/data/raw/elbi3__Mars-Rover-Photo-Journal/sol1000Data.json.gz')
    const raw = JSON.parse(r.raw!)
    expect(raw.img_src).toBe('http://mars.jpl.nasa.gov/msl-raw-images/proj/msl/redops/ods/surface/sol/01000/opgs/edr/fcam/FLB_486265257EDR_F0481570FHAZ00323M_.JPG')
    const csv = real.records.find((x) => x.id === 1268552)!
    expect(JSON.parse(csv.raw!)).toEqual({ id: '1268552', earth_date: '2024-09-27', camera_name: 'NAVCAM_LEFT', img_src: 'https://mars.nasa.gov/mars2020-raw-images/pub/ods/surface/sol/01282/ids/edr/browse/ncam/NLG_1282_0780758045_972ECM_N0600390NCAM00523_00_2I4J01_1200.jpg' })
    expect(csv.sol).toBe(1282) // from the URL: the CSV has no sol column
  })

  test('v1 records keep their v1 id; the two mru records get FNV-1a ids at or above 2^30; all ids unique', () => {
    const ids = real.records.map((r) => r.id!)
    expect(new Set(ids).size).toBe(ids.length)
    const mru = real.records.filter((r) => r.source.includes('MarsRaw'))
    expect(mru.length).toBe(2)
    for (const r of mru) {
      expect(r.id).toBe(assignedIdFor(r.nasa_id))
      expect(r.id!).toBeGreaterThanOrEqual(ASSIGNED_ID_BASE)
    }
    const v1 = real.records.filter((r) => !r.source.includes('MarsRaw'))
    for (const r of v1) expect(r.id!).toBeLessThan(ASSIGNED_ID_BASE)
    expect(real.records.find((r) => r.nasa_id === 'FLB_486265257EDR_F0481570FHAZ00323M_')!.id).toBe(102693)
  })

  test('cameras of real records are all catalogue cameras; no real instrument is unmapped', () => {
    expect(real.unmapped).toEqual([])
    expect(new Set(real.records.filter((r) => r.rover === 'perseverance').map((r) => r.camera))).toContain('FRONT_HAZCAM_LEFT_A')
  })
})

describe('real sources: the other tables', () => {
  test('every file of the folder is read by a reader that recognised it, none skipped', () => {
    const files = allFiles(DEFAULT_RAW_DIR)
    expect(real.sources.length).toBe(files.length)
    expect(real.ignored).toEqual([])
    expect(real.skipped).toEqual([])
    const formats = Object.fromEntries(real.sources.map((s) => [path.basename(s.path), s.format]))
    expect(formats).toMatchObject({
      'dados_fotos_perseverance.csv.gz': 'v1-csv',
      'curiosity_manifest.json.gz': 'manifest',
      'test.json': 'v1-json',
      'marsrovers.json': 'v1-json',
      'drives.tsv': 'mer-rmc-table',
      'traverse_map.tsv': 'mer-traverse-table',
      'MERA-MER2-Spirit_traverse_path.csv.gz': 'mer-traverse-table',
      'timetable-spirit.tsv': 'mer-timetable',
      'all_waypoints.geojson.gz': 'waypoints',
      'traverse.geojson.gz': 'traverse',
      'waypoints_current_daily.tar.gz': 'waypoints',
      'NRF_0731_0731848568_991ECM_N0361610NCAM12731_04_195J01-metadata.json': 'mru-record',
    })
    const photos = real.sources.reduce((s, x) => s + x.photos, 0)
    expect(photos).toBe(real.records.length)
  })

  test('manifests: three rovers with 3,717 / 4,811 / 2,115 sols and their published totals', () => {
    const m = Object.fromEntries(real.manifests.map((x) => [x.rover, x]))
    expect(m.curiosity!.sols.length).toBe(3717)
    expect(m.opportunity!.sols.length).toBe(4811)
    expect(m.spirit!.sols.length).toBe(2115)
    expect(m.curiosity!.sols.reduce((s, x) => s + x.total_photos, 0)).toBe(695670)
    expect(m.curiosity!.sols.find((x) => x.sol === 1000)!.earth_date).toBe('2015-05-30')
  })

  test('location tables: 1,366 Curiosity waypoints, the M20 snapshot and daily layers, the Spirit tables', () => {
    const count = (rover: string, format: string) => real.waypoints.filter((w) => w.rover === rover && w.format === format).length
    expect(count('curiosity', 'waypoints')).toBe(1366)
    const m20 = real.waypoints.filter((w) => w.rover === 'perseverance')
    expect(Math.min(...m20.map((w) => w.sol!))).toBe(13)
    expect(Math.max(...m20.map((w) => w.sol!))).toBe(1524)
    expect(count('spirit', 'mer-rmc-table')).toBeGreaterThan(0)
    const last = real.waypoints.find((w) => w.rover === 'curiosity' && w.sol === 4959)!
    expect([last.site, last.drive]).toEqual([123, 2328])
    expect(real.traverses).toEqual([expect.objectContaining({ rover: 'curiosity', segments: 1294 })])
    const daily = real.sources.find((s) => s.path.endsWith('waypoints_current_daily.tar.gz'))!
    expect(daily.records).toBe(1542) // 1,544 daily files, two of them empty layers
  })

  test('MER timetables: Spirit sols 1-2209 and Opportunity sols 1-5352', () => {
    const sols = (rover: string) => real.timetables.filter((t) => t.rover === rover).map((t) => t.sol)
    expect(sols('spirit').length).toBe(2209)
    expect(sols('opportunity').length).toBe(5352)
    const first = real.timetables.find((t) => t.rover === 'spirit' && t.sol === 1)!
    expect(new Date(first.utc_ms).toISOString()).toBe('2004-01-04T02:05:34.000Z')
    expect(first.sclk).toBe(126454028)
    expect(first.ls).toBeCloseTo(327.61, 2)
  })
})

describe('bad input', () => {
  test('a malformed JSON file throws an error naming the file', async () => {
    const p = path.join(FIXTURES, 'bad/malformed.json')
    const err = await readSources([p]).catch((e) => e)
    expect(err).toBeInstanceOf(SourceError)
    expect(err.record).toBe('file')
    expect(err.message).toContain('test/fixtures/feeds/bad/malformed.json')
    expect(err.message).toContain('malformed JSON')
  })

  test('a record missing its sol throws an error naming the file and the record (index and id)', async () => {
    const p = path.join(FIXTURES, 'bad/missing-sol.json')
    const err = await readSources([p]).catch((e) => e)
    expect(err).toBeInstanceOf(SourceError)
    expect(err.message).toBe('test/fixtures/feeds/bad/missing-sol.json: record 1 (id 102694): missing sol')
  })

  test('with skipBad the bad record is counted and reported, the good ones kept', async () => {
    const r = await readSources([path.join(FIXTURES, 'bad/missing-sol.json')], { skipBad: true })
    expect(r.records.map((x) => x.id).sort()).toEqual([102693, 102695])
    expect(r.skipped).toEqual([{ file: 'test/fixtures/feeds/bad/missing-sol.json', record: '1 (id 102694)', reason: 'missing sol' }])
    expect(r.sources[0]).toMatchObject({ records: 3, photos: 2, skipped: 1 })
  })

  test('a JSON file of no known shape is an error naming the file', async () => {
    const err = await readSources([path.join(FIXTURES, 'bad/unknown-shape.json')]).catch((e) => e)
    expect(err).toBeInstanceOf(SourceError)
    expect(err.message).toBe('test/fixtures/feeds/bad/unknown-shape.json: unknown format: JSON object with keys foo')
  })

  test('with skipBad a malformed or unknown file is skipped whole and reported', async () => {
    const r = await readSources([path.join(FIXTURES, 'bad')], { skipBad: true })
    expect(r.skipped.map((s) => [path.basename(s.file), s.record])).toEqual([
      ['malformed.json', 'file'],
      ['missing-sol.json', '1 (id 102694)'],
      ['unknown-shape.json', 'file'],
    ])
    expect(r.records.length).toBe(2)
  })

  test('a path that does not exist is an error, also with skipBad', async () => {
    const err = await readSources(['/nonexistent/folder'], { skipBad: true }).catch((e) => e)
    expect(err).toBeInstanceOf(SourceError)
    expect(err.message).toContain('no such file or folder')
  })

  test('progress is reported once per file', async () => {
    const seen: Array<[number, number]> = []
    await readSources([path.join(FIXTURES, 'bad/missing-sol.json'), path.join(FIXTURES, 'm2020-raw-images-page.json')], { skipBad: true, onProgress: (d, t) => seen.push([d, t]) })
    expect(seen).toEqual([[1, 2], [2, 2]])
  })
})
