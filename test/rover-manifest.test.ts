import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { makeTestApp, testStore, type TestApp } from './setup/test-app'
import { ROVERS } from '../src/catalog/rovers'
import { camerasOf } from '../src/catalog/cameras'
import type { Store } from '../src/store/store'
import { FormatRegistry, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { ManifestSchema, RoverCameraSchema } from '../src/resources/manifest-schemas'
import { listOf, singleOf } from '../src/resources/resource-schemas'

for (const [name, check] of [['date', (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v)], ['uri', (v: string) => /^https?:\/\/\S+$/.test(v)], ['date-time', (v: string) => !Number.isNaN(Date.parse(v))]] as const)
  if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check)
/** Every answer is checked against the schema the OpenAPI document publishes for it. */
function conforms(schema: TSchema, body: unknown): void {
  expect([...Value.Errors(schema, body)].map((e) => `${e.path}: ${e.message}`)).toEqual([])
}

/**
 * The mission manifest computed once by the builder (sol-manifest.arrow) and the three routes
 * reading it: /api/v2/rovers/{slug}/manifest, /rovers/{slug}/cameras and v1 /manifests/{name}.
 */
const RAW = join(import.meta.dir, '../../shared/data/raw')
const NASA: Record<string, string> = {
  curiosity: 'LakhvirMadhar__mars_rover_data_analysis/curiosity_manifest.json.gz',
  opportunity: 'LakhvirMadhar__mars_rover_data_analysis/opportunity_manifest.json.gz',
  spirit: 'LakhvirMadhar__mars_rover_data_analysis/spirit_manifest.json.gz',
}
const nasaManifest = (slug: string) => JSON.parse(gunzipSync(readFileSync(join(RAW, NASA[slug]!))).toString('utf8')).photo_manifest

let t: TestApp
let store: Store
beforeAll(async () => {
  t = await makeTestApp()
  store = await testStore()
})
afterAll(() => t.close())
const get = async (path: string) => {
  const r = await t.request(path)
  return { status: r.status, headers: r.headers, body: (await r.json()) as any }
}

/** Photos per (sol, earth_date) and their cameras, counted here straight from the photo columns. */
function countDays(code: number): Map<string, { total: number; cameras: Set<string> }> {
  const p = store.photos
  const out = new Map<string, { total: number; cameras: Set<string> }>()
  for (let r = 0; r < p.length; r++) {
    if (p.rover[r] !== code) continue
    const k = `${p.sol[r]} ${new Date(p.earth_date[r]! * 86_400_000).toISOString().slice(0, 10)}`
    const d = out.get(k) ?? { total: 0, cameras: new Set() }
    d.total++
    d.cameras.add(p.camera.dict[p.camera.codes[r]!]!)
    out.set(k, d)
  }
  return out
}

describe('GET /api/v2/rovers/{slug}/manifest', () => {
  for (const slug of Object.keys(NASA)) {
    test(`${slug}: every sol our catalogue holds in full equals NASA's v1 manifest (earth_date, total_photos, cameras); every other sol shows NASA's total beside ours`, async () => {
      const nasa = new Map<number, any>(nasaManifest(slug).photos.map((p: any) => [p.sol, p]))
      const { body } = await get(`/api/v2/rovers/${slug}/manifest`)
      const days = body.data.attributes.photos
      expect(days.length).toBeGreaterThan(0)
      let full = 0
      for (const d of days) {
        const n = nasa.get(d.sol)
        if (!n) {
          expect(d.nasa_total_photos).toBeUndefined()
          continue
        }
        expect(d.nasa_total_photos).toBe(n.total_photos)
        if (d.total_photos === n.total_photos) {
          full++
          expect({ sol: d.sol, earth_date: d.earth_date, total_photos: d.total_photos, cameras: d.cameras }).toEqual({ sol: n.sol, earth_date: n.earth_date, total_photos: n.total_photos, cameras: n.cameras })
        }
        // Otherwise ours is smaller (days held in part) or, where another source holds images the
        // saved manifest never counted (Curiosity sol 2304: 60 Navcam PDS3 products against 10), larger.
      }
      // The real catalogue holds whole days of each of these rovers (SOURCES.md §2.2).
      expect(full).toBeGreaterThan(0)
    })
  }

  test('per (sol, earth_date) totals and cameras, and the rover totals, equal counts made here from the photo columns, for every rover', async () => {
    for (const [code, r] of ROVERS.entries()) {
      const counted = countDays(code)
      const { body } = await get(`/api/v2/rovers/${r.slug.toUpperCase()}/manifest`)
      conforms(singleOf(ManifestSchema), body)
      const a = body.data.attributes
      expect(body.data.id).toBe(r.slug)
      expect(a.photos.map((d: any) => `${d.sol} ${d.earth_date}`)).toEqual([...counted.keys()].sort((x, y) => Number(x.split(' ')[0]) - Number(y.split(' ')[0]) || x.localeCompare(y)))
      for (const d of a.photos) {
        const c = counted.get(`${d.sol} ${d.earth_date}`)!
        expect(d.total_photos).toBe(c.total)
        expect(d.cameras).toEqual([...c.cameras].sort())
      }
      const total = [...counted.values()].reduce((s, d) => s + d.total, 0)
      expect(a.total_photos).toBe(total)
      const v2 = (await get(`/api/v2/rovers/${r.slug}`)).body.data.attributes
      expect([a.max_sol, a.max_date, a.total_photos]).toEqual([v2.max_sol, v2.max_date, v2.total_photos])
      expect(body.links.self).toBe(`http://localhost/api/v2/rovers/${r.slug}/manifest`)
    }
  })

  test('the v1 manifest is the same computation in v1 shape, one entry per sol: the v2 days of a sol summed, cameras merged, dated NASA\'s way or else by the earliest day, without nasa_total_photos or catalogue_share', async () => {
    for (const r of ROVERS) {
      const v2 = (await get(`/api/v2/rovers/${r.slug}/manifest`)).body.data.attributes
      const v1 = (await get(`/api/v1/manifests/${r.name}`)).body.photo_manifest
      const perSol = new Map<number, { sol: number; earth_date: string; total_photos: number; cameras: string[]; nasa: boolean }>()
      for (const d of v2.photos) {
        const s = perSol.get(d.sol)
        if (!s) perSol.set(d.sol, { sol: d.sol, earth_date: d.earth_date, total_photos: d.total_photos, cameras: [...d.cameras], nasa: d.nasa_total_photos !== undefined })
        else {
          s.total_photos += d.total_photos
          s.cameras = [...new Set([...s.cameras, ...d.cameras])].sort()
        }
      }
      const want = [...perSol.values()]
      expect(v1.photos.map((d: any) => [d.sol, d.total_photos, d.cameras])).toEqual(want.map((d) => [d.sol, d.total_photos, d.cameras]))
      // Without a NASA manifest for the sol, the earliest day; with one, NASA's date (checked in v1-one-day-per-sol.test.ts).
      want.forEach((d, i) => { if (!d.nasa) expect(v1.photos[i].earth_date).toBe(d.earth_date) })
      const { photos: _a, ...v1Head } = v1
      // nasa_total_photos and catalogue_share are v2's (the v1 manifest keeps v1's members).
      const { photos: _b, nasa_total_photos: _c, catalogue_share: _d, ...v2Head } = v2
      expect(v1Head).toEqual(v2Head)
    }
  })

  test('a sol of the manifest answers exactly its total_photos through the v1 and v2 photo endpoints', async () => {
    const days = (await get('/api/v2/rovers/perseverance/manifest')).body.data.attributes.photos
    for (const d of [days[0], days[Math.floor(days.length / 2)], days[days.length - 1]]) {
      const v1 = (await get(`/api/v1/rovers/perseverance/photos?sol=${d.sol}`)).body.photos
      expect(v1.length).toBe(d.total_photos)
      const v2 = (await get(`/api/v2/photos?rovers=perseverance&sol=${d.sol}&per_page=1`)).body.meta
      expect(v2.total_count).toBe(d.total_photos)
    }
  })

  test('an unknown slug is a 404 problem document; the answer carries an ETag and a repeat with it is a 304', async () => {
    const r = await get('/api/v2/rovers/zeus/manifest')
    expect(r.status).toBe(404)
    expect(r.body.type).toBe('/errors/not-found')
    const ok = await t.request('/api/v2/rovers/spirit/manifest')
    const tag = ok.headers.get('etag')!
    expect(tag).toMatch(/^W\//)
    expect((await t.request('/api/v2/rovers/spirit/manifest', { headers: { 'x-api-key': t.key, 'if-none-match': tag } })).status).toBe(304)
  })
})

describe('GET /api/v2/rovers/{slug}/cameras', () => {
  test("every camera of the rover by name, with photo_count and first/last sol counted here from the photo columns (absent sols for cameras without photos)", async () => {
    for (const [code, r] of ROVERS.entries()) {
      const { status, body } = await get(`/api/v2/rovers/${r.slug}/cameras`)
      expect(status).toBe(200)
      conforms(listOf(RoverCameraSchema), body)
      const names = camerasOf(r.slug).map((c) => c.name).sort()
      expect(body.data.map((c: any) => c.id)).toEqual(names)
      expect(body.meta.total_count).toBe(names.length)
      const p = store.photos
      for (const c of body.data) {
        let count = 0
        let first = Infinity
        let last = -1
        for (let row = 0; row < p.length; row++) {
          if (p.rover[row] !== code || p.camera.dict[p.camera.codes[row]!] !== c.id) continue
          count++
          first = Math.min(first, p.sol[row]!)
          last = Math.max(last, p.sol[row]!)
        }
        expect(c.attributes.photo_count).toBe(count)
        expect(c.relationships.rover).toEqual({ id: r.slug, type: 'rover' })
        if (count === 0) expect('first_photo_sol' in c.attributes || 'last_photo_sol' in c.attributes).toBe(false)
        else expect([c.attributes.first_photo_sol, c.attributes.last_photo_sol]).toEqual([first, last])
      }
    }
    expect((await get('/api/v2/rovers/zeus/cameras')).status).toBe(404)
  })
})
