/**
 * The three sources of SOURCES.md §2.14–2.16 (818 real Curiosity photos in sols 1500, 2789 and
 * 3163), read in place by the default build through their readers (v1 records, v1 records under
 * `pics`, URL lists keyed by camera): counts per sol and camera equal counts made here from the
 * files with JSON.parse alone; §2.15's rewritten earth_date values are not served (its sol is
 * dated by NASA's v1 manifest, the stated date stays in `raw`, the cases are counted for the
 * source); §2.16's popularity score is not NASA data and appears nowhere; a file of no known
 * format is refused.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { readSources } from '../index-builder/normalize/normalize-sources'
import { readSourceFiles } from '../index-builder/sources/read-sources'
import { SourceError } from '../index-builder/sources/source-error'
import { makeTestApp } from './setup/test-app'

const PENDING = join(import.meta.dir, '../../shared/data/pending')
const proctor = JSON.parse(readFileSync(join(PENDING, 'sjproctor__learn-react-challenges/mockNasa.json'), 'utf8')).photos as Array<{ id: number; sol: number; camera: { name: string }; earth_date: string; img_src: string }>
const puli = JSON.parse(gunzipSync(readFileSync(join(PENDING, 'milutinm__puliLabSample/mock.json.gz'))).toString('utf8')).pics as typeof proctor
const arnav = JSON.parse(readFileSync(join(PENDING, 'Arnav235__mars_photos_app/data.json'), 'utf8')) as Record<string, Array<string | { url: string; score: number }>>

const all = await readSources()
const from = (name: string) => all.records.filter((r) => r.source.includes(name))
const tally = <T>(list: T[], key: (x: T) => string) => {
  const m: Record<string, number> = {}
  for (const x of list) m[key(x)] = (m[key(x)] ?? 0) + 1
  return m
}

describe('pending sources join the default build', () => {
  test('sjproctor v1 records: Curiosity sol 1500, 217 photos with their v1 ids and cameras, dated 2016-10-25', () => {
    const got = from('sjproctor')
    expect(got.length).toBe(217)
    expect(tally(got, (r) => `${r.sol}/${r.camera}`)).toEqual(tally(proctor, (p) => `${p.sol}/${p.camera.name}`))
    expect(new Set(got.map((r) => r.id))).toEqual(new Set(proctor.map((p) => p.id)))
    expect(new Set(got.map((r) => r.earth_date))).toEqual(new Set(['2016-10-25']))
  })

  test('milutinm v1 records under `pics`: sol 2789, 276 photos, all dated 2020-06-10 as NASA\'s v1 manifest dates the sol; the 227 rewritten dates stay in raw and are counted', () => {
    const got = from('puliLabSample')
    expect(got.length).toBe(276)
    expect(tally(got, (r) => `${r.sol}/${r.camera}`)).toEqual(tally(puli, (p) => `${p.sol}/${p.camera.name}`))
    expect(new Set(got.map((r) => r.earth_date))).toEqual(new Set(['2020-06-10']))
    const stated = new Map(puli.map((p) => [p.id, p.earth_date]))
    for (const r of got) expect(JSON.parse(r.raw!).earth_date).toBe(stated.get(r.id!)!)
    const rewritten = puli.filter((p) => p.earth_date !== '2020-06-10').length
    expect(rewritten).toBe(227)
    const source = all.sources.find((s) => s.path.includes('puliLabSample'))!
    expect(source.format).toBe('v1-pics')
    expect(source.contradicted).toEqual({ earth_date: 227 })
  })

  test('Arnav235 URL lists by camera: sol 3163, 325 photos per camera as listed, no v1 id, no score kept; MAST (no clock count) dated by the manifest 2021-06-29', () => {
    const got = from('Arnav235')
    const listed = Object.entries(arnav).flatMap(([cam, l]) => l.map((x) => ({ cam, url: typeof x === 'string' ? x : x.url })))
    expect(listed.length).toBe(325)
    expect(got.length).toBe(325)
    expect(tally(got, (r) => `${r.sol}/${r.camera}`)).toEqual(tally(listed, (x) => `3163/${x.cam}`))
    expect(new Set(got.map((r) => r.images.full))).toEqual(new Set(listed.map((x) => x.url)))
    for (const r of got) {
      expect(r.id).toBeGreaterThanOrEqual(2 ** 30)
      expect(r.raw).not.toContain('score')
    }
    expect(new Set(got.filter((r) => r.camera === 'MAST').map((r) => r.earth_date))).toEqual(new Set(['2021-06-29']))
    expect(all.sources.find((s) => s.path.includes('Arnav235'))!.format).toBe('camera-url-lists')
  })

  test('served: a fresh index answers 19,549 photos, and no answer of sol 3163 carries a score', async () => {
    const t = await makeTestApp()
    try {
      const health = await (await t.anonymous('/health')).json() as any
      expect(health.index.photos).toBe(19_549)
      const d = await (await t.request('/api/v2/photos?rovers=curiosity&sol=3163&field_set=complete&per_page=100')).json() as any
      expect(d.meta.total_count).toBe(325)
      expect(JSON.stringify(d)).not.toContain('score')
    } finally {
      await t.close()
    }
  })

  test('the builder refuses a JSON file of a shape it does not know, naming it (camera keys whose lists hold no URL)', () => {
    const path = join(tmpdir(), `mv-unknown-${process.pid}.json`)
    writeFileSync(path, JSON.stringify({ MAST: [{ score: 3.4 }], NAVCAM: [17] }))
    try {
      expect(() => readSourceFiles([path])).toThrow(SourceError)
      expect(() => readSourceFiles([path])).toThrow(/unknown format/)
    } finally {
      rmSync(path)
    }
  })
})
