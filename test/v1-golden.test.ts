import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { makeTestApp, testStore, type TestApp } from './setup/test-app'
import type { Store } from '../src/store/store'
import { Value } from '@sinclair/typebox/value'
import type { TSchema } from '@sinclair/typebox'
import { V1_RESPONSES, V1PhotoSchema } from '../src/v1/v1-schemas'

const schemaErrors = (schema: TSchema, body: unknown) => [...Value.Errors(schema, body)].slice(0, 5).map((e) => `${e.path}: ${e.message}`)

/**
 * The v1 compatibility layer against the saved answers of the real v1 API under
 * ../shared/data/raw (SOURCES.md §2.2-2.5): the same photos, and the same shapes, field by field
 * and type by type, for every request form a v1 client sends.
 */
const RAW = join(import.meta.dir, '../../shared/data/raw')
const GOLDEN_PHOTO_FILES = [
  'elbi3__Mars-Rover-Photo-Journal/curiositySol0.json.gz',
  'elbi3__Mars-Rover-Photo-Journal/sol1000Data.json.gz',
  'elbi3__Mars-Rover-Photo-Journal/perseveranceSol0.json.gz',
  'elbi3__Mars-Rover-Photo-Journal/opportunitySol1.json.gz',
  'elbi3__Mars-Rover-Photo-Journal/spiritSol1.json.gz',
  'david-c-oliveros__mars-tour-backend/test-data.json.gz',
  'ZackCipolletta__MarsPicsNASAapi/test.json',
  'dereklien218__spacetagram-site/marsrovers.json',
]

function readJson(rel: string): any {
  const bytes = readFileSync(join(RAW, rel))
  return JSON.parse((rel.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8'))
}

function goldenPhotos(rel: string): any[] {
  const doc = readJson(rel)
  return Array.isArray(doc) ? doc : doc.photos
}

/**
 * The type signature of a JSON value: objects by their sorted keys and each member's signature,
 * arrays by the one signature all their items share (a mixed array is its own signature), so two
 * answers with the same signature parse the same way in a strict client.
 */
function shapeOf(v: unknown): unknown {
  if (v === null) return 'null'
  if (Array.isArray(v)) {
    const items = [...new Set(v.map((x) => JSON.stringify(shapeOf(x))))]
    return items.length === 0 ? ['empty'] : items.length === 1 ? [JSON.parse(items[0]!)] : ['mixed', ...items.sort()]
  }
  if (typeof v === 'object') return Object.fromEntries(Object.keys(v as object).sort().map((k) => [k, shapeOf((v as any)[k])]))
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number'
  return typeof v
}

/** The golden shapes, from the saved answers themselves (elbi3 files carry v1's full rover block). */
const goldenPhoto = goldenPhotos('elbi3__Mars-Rover-Photo-Journal/sol1000Data.json.gz')[0]
const PHOTO_SHAPE = shapeOf(goldenPhoto)
const MANIFEST_SHAPE = shapeOf(readJson('LakhvirMadhar__mars_rover_data_analysis/spirit_manifest.json.gz'))
/** v1's /rovers rover: the photo's rover block whose cameras are full camera objects (the photo's camera shape). */
const LISTED_ROVER_SHAPE = { ...(PHOTO_SHAPE as any).rover, cameras: [(PHOTO_SHAPE as any).camera] }

let t: TestApp
let store: Store
beforeAll(async () => {
  t = await makeTestApp()
  store = await testStore()
})
afterAll(() => t.close())

const get = async (path: string, init?: RequestInit) => {
  const r = await t.request(path, init)
  return { status: r.status, headers: r.headers, body: (await r.json()) as any }
}

const PICKED = ['id', 'sol', 'img_src', 'earth_date'] as const
const pick = (p: any) => ({ ...Object.fromEntries(PICKED.map((k) => [k, p[k]])), camera: p.camera, rover: p.rover.name })

describe('every saved v1 answer whose photos are all in the catalogue', () => {
  for (const rel of GOLDEN_PHOTO_FILES) {
    test(`${rel}: our v1 answer for the same request has the same photos (id, sol, camera, img_src, earth_date, rover name) in v1's order`, async () => {
      const golden = goldenPhotos(rel)
      const missing = golden.filter((p) => store.paths.rowOfId(p.id) < 0).map((p) => p.id)
      // The catalogue holds every photo of these files (SOURCES.md: 11,275 of its records are these); a file it did not would be skipped here.
      expect(missing).toEqual([])
      const rover = golden[0].rover.name.toLowerCase()
      const sols = [...new Set(golden.map((p) => p.sol))]
      expect(sols.length).toBe(1)
      // A saved answer of one camera was asked with camera= (in a case a client might type it).
      const cameras = [...new Set(golden.map((p) => p.camera.name))]
      const cam = cameras.length === 1 && storeDayCameras(rover, sols[0]).size > 1 ? `&camera=${cameras[0].toLowerCase()}` : ''
      const bySol = await get(`/api/v1/rovers/${rover}/photos?sol=${sols[0]}${cam}`)
      expect(bySol.status).toBe(200)
      expect(bySol.body.photos.map(pick)).toEqual(golden.map(pick))
      // The earth_date form of the same day answers the same photos.
      const byDate = await get(`/mars-photos/api/v1/rovers/${rover}/photos?earth_date=${golden[0].earth_date}${cam}`)
      expect(byDate.body.photos.map(pick)).toEqual(golden.map(pick))
      // Rover facts equal v1's; totals are ours (counted from our catalogue, which holds a few days, not v1's 600k+ photos).
      for (const k of ['id', 'name', 'landing_date', 'launch_date', 'status']) expect(bySol.body.photos[0].rover[k]).toEqual(golden[0].rover[k])
      if ('total_photos' in golden[0].rover) expect(bySol.body.photos[0].rover.total_photos).toBeLessThanOrEqual(golden[0].rover.total_photos)
    })
  }
})

function storeDayCameras(rover: string, sol: number): Set<string> {
  const p = store.photos
  const code = ['curiosity', 'opportunity', 'perseverance', 'spirit'].indexOf(rover)
  const out = new Set<string>()
  for (let r = 0; r < p.length; r++) if (p.rover[r] === code && p.sol[r] === sol) out.add(p.camera.dict[p.camera.codes[r]!]!)
  return out
}

describe('the request forms v1 clients send, checked field by field and type by type against the golden shapes', () => {
  const forms: Array<[string, string, (body: any) => unknown, unknown]> = [
    ['photos by sol, api_key in the query', '/api/v1/rovers/curiosity/photos?sol=1000&api_key=KEY', (b) => b, { photos: [PHOTO_SHAPE] }],
    ['photos by earth_date, camera in lower case', '/api/v1/rovers/curiosity/photos?earth_date=2015-05-30&camera=fhaz&api_key=KEY', (b) => b, { photos: [PHOTO_SHAPE] }],
    ['photos by unpadded earth_date, camera in mixed case, page', '/mars-photos/api/v1/rovers/Curiosity/photos?earth_date=2015-5-30&camera=MaSt&page=2&api_key=KEY', (b) => b, { photos: [PHOTO_SHAPE] }],
    ['photos of Perseverance (multi-size images)', '/api/v1/rovers/perseverance/photos?sol=1282&page=1&api_key=KEY', (b) => b, { photos: [PHOTO_SHAPE] }],
    ['latest_photos', '/api/v1/rovers/perseverance/latest_photos?api_key=KEY', (b) => b, { latest_photos: [PHOTO_SHAPE] }],
    ['latest (alias), with camera and page', '/mars-photos/api/v1/rovers/curiosity/latest?camera=mahli&page=1&api_key=KEY', (b) => b, { latest_photos: [PHOTO_SHAPE] }],
    ['photos/{id}', '/api/v1/photos/102693?api_key=KEY', (b) => b, { photo: PHOTO_SHAPE }],
    ['manifests/{name}', '/api/v1/manifests/spirit?api_key=KEY', (b) => b, MANIFEST_SHAPE],
    ['manifests/{name} of a rover with many days', '/mars-photos/api/v1/manifests/Perseverance?api_key=KEY', (b) => b, MANIFEST_SHAPE],
    ['rovers', '/api/v1/rovers?api_key=KEY', (b) => b, { rovers: [LISTED_ROVER_SHAPE] }],
    ['rovers/{name}', '/api/v1/rovers/opportunity?api_key=KEY', (b) => b, { rover: LISTED_ROVER_SHAPE }],
  ]
  for (const [name, path, view, shape] of forms) {
    test(`${name}: 200, the v1 shape exactly, non-empty, with the rate-limit headers of v2`, async () => {
      const r = await t.anonymous(path.replace('KEY', t.key))
      expect(r.status).toBe(200)
      const body = view(await r.json())
      expect(shapeOf(body)).toEqual(shape)
      expect(JSON.stringify(body)).not.toContain('[]') // every list answered holds items
      expect(r.headers.get('x-ratelimit-limit')).toBe('10000')
      expect(r.headers.get('etag')).toMatch(/^W\//)
      expect(r.headers.get('content-type')).toStartWith('application/json')
    })
  }

  test('the photo by id equals the same photo in the day list, and every v1 photo field has the golden value types', async () => {
    const one = await get('/api/v1/photos/102693')
    const day = await get('/api/v1/rovers/curiosity/photos?sol=1000&camera=FHAZ')
    expect(day.body.photos.find((p: any) => p.id === 102693)).toEqual(one.body.photo)
    expect(pick(one.body.photo)).toEqual(pick(goldenPhoto))
  })

  test('a page holds 25 photos in v1 order; pages tile the whole day; a page past the end is an empty list', async () => {
    const all = (await get('/api/v1/rovers/curiosity/photos?sol=1000')).body.photos
    expect(all.length).toBe(856)
    const pages: any[] = []
    for (let page = 1; page <= Math.ceil(all.length / 25); page++) {
      const b = (await get(`/api/v1/rovers/curiosity/photos?sol=1000&page=${page}`)).body.photos
      expect(b.length).toBe(page * 25 <= all.length ? 25 : all.length % 25)
      pages.push(...b)
    }
    expect(pages.map((p) => p.id)).toEqual(all.map((p: any) => p.id))
    expect((await get('/api/v1/rovers/curiosity/photos?sol=1000&page=99')).body).toEqual({ photos: [] })
  })

  test("latest_photos is the rover's highest sol in the catalogue, the same photos as photos?sol= of that sol", async () => {
    const maxSol = (await get('/api/v1/rovers/curiosity')).body.rover.max_sol
    const latest = (await get('/api/v1/rovers/curiosity/latest_photos')).body.latest_photos
    const bySol = (await get(`/api/v1/rovers/curiosity/photos?sol=${maxSol}`)).body.photos
    expect(latest.length).toBeGreaterThan(0)
    expect(latest).toEqual(bySol)
    expect(new Set(latest.map((p: any) => p.sol))).toEqual(new Set([maxSol]))
  })

  test('v1 rover figures are the v2 ones (same catalogue counts)', async () => {
    const v1 = (await get('/api/v1/rovers')).body.rovers
    const v2 = (await get('/api/v2/rovers')).body.data
    for (const r of v1) {
      const twin = v2.find((d: any) => d.attributes.name === r.name).attributes
      expect([r.max_sol, r.max_date, r.total_photos]).toEqual([twin.max_sol, twin.max_date, twin.total_photos])
    }
    expect(v1.map((r: any) => r.id)).toEqual([5, 7, 6, 8])
  })

  test('v1 errors are problem documents carrying v1 `errors` as a string: unknown rover, missing day, bad camera, bad page, unknown photo', async () => {
    const cases: Array<[string, number, string | RegExp, string[]]> = [
      ['/api/v1/rovers/zeus/photos?sol=1', 404, 'Invalid Rover Name', []],
      ['/api/v1/rovers/zeus', 404, 'Invalid Rover Name', []],
      ['/api/v1/manifests/zeus', 404, 'Invalid Rover Name', []],
      ['/api/v1/rovers/curiosity/photos', 400, /sol/, ['sol']],
      ['/api/v1/rovers/curiosity/photos?sol=1000&camera=pancam', 400, /camera/, ['camera']],
      ['/api/v1/rovers/curiosity/photos?sol=-1&page=0', 400, /sol, page/, ['sol', 'page']],
      ['/api/v1/rovers/curiosity/photos?earth_date=2015-02-30', 400, /earth_date/, ['earth_date']],
      ['/api/v1/photos/999999999', 404, /999999999/, []],
      ['/api/v1/photos/abc', 400, /id/, ['id']],
    ]
    for (const [path, status, text, params] of cases) {
      const r = await get(path)
      expect([path, r.status]).toEqual([path, status])
      expect(r.body.type).toStartWith('/errors/')
      expect(typeof r.body.errors).toBe('string')
      expect(r.body.errors).toMatch(text)
      expect((r.body.invalid_params ?? []).map((e: any) => e.parameter)).toEqual(params)
    }
    // v2 keeps its errors list.
    expect(Array.isArray((await get('/api/v2/photos?sol=x')).body.errors)).toBe(true)
  })
})

describe('the published v1 schemas', () => {
  test("validate the real v1 API's saved answers that carry the full rover block, and NASA's saved manifests", () => {
    for (const rel of GOLDEN_PHOTO_FILES.filter((f) => f.startsWith('elbi3'))) expect([rel, schemaErrors(V1_RESPONSES.photos, readJson(rel))]).toEqual([rel, []])
    for (const rover of ['curiosity', 'opportunity', 'spirit']) {
      const rel = `LakhvirMadhar__mars_rover_data_analysis/${rover}_manifest.json.gz`
      expect([rel, schemaErrors(V1_RESPONSES.manifest, readJson(rel))]).toEqual([rel, []])
    }
  })

  test('validate every v1 answer of ours, and reject a photo with a field v1 did not have', async () => {
    const cases: Array<[string, TSchema]> = [
      ['/api/v1/rovers', V1_RESPONSES.rovers],
      ['/api/v1/rovers/perseverance', V1_RESPONSES.rover],
      ['/api/v1/rovers/perseverance/photos?sol=1290', V1_RESPONSES.photos],
      ['/api/v1/rovers/curiosity/latest_photos', V1_RESPONSES.latest],
      ['/api/v1/photos/810974', V1_RESPONSES.photo],
      ['/api/v1/manifests/curiosity', V1_RESPONSES.manifest],
    ]
    for (const [path, schema] of cases) expect([path, schemaErrors(schema, (await get(path)).body)]).toEqual([path, []])
    expect(schemaErrors(V1PhotoSchema, { ...goldenPhoto, nasa_id: 'x' })).not.toEqual([])
  })
})

describe('the OpenAPI document and docs page', () => {
  test('cover v1 under its own "v1 (compatibility)" tag with the api_key scheme on v1 operations only, and the v2 manifest and cameras routes', async () => {
    const r = await t.anonymous('/api/v2/openapi.json')
    const doc = (await r.json()) as any
    const tag = doc.tags.find((x: any) => x.name === 'v1 (compatibility)')
    expect(tag.description).toContain('/mars-photos/api/v1')
    const v1Ops = Object.entries(doc.paths).filter(([p]) => p.startsWith('/api/v1/'))
    expect(v1Ops.map(([p]) => p).sort()).toEqual(
      ['/api/v1/manifests/{name}', '/api/v1/photos/{id}', '/api/v1/rovers', '/api/v1/rovers/{name}', '/api/v1/rovers/{name}/latest', '/api/v1/rovers/{name}/latest_photos', '/api/v1/rovers/{name}/photos'].sort(),
    )
    for (const [, ops] of v1Ops) {
      expect((ops as any).get.tags).toEqual(['v1 (compatibility)'])
      expect((ops as any).get.security).toEqual([{ apiKey: [] }, { apiKeyQuery: [] }])
    }
    for (const [p, ops] of Object.entries(doc.paths)) if (p.startsWith('/api/v2/')) for (const op of Object.values(ops as object)) expect((op as any).security ?? []).not.toContainEqual({ apiKeyQuery: [] })
    expect(doc.paths['/api/v2/rovers/{slug}/manifest'].get).toBeDefined()
    expect(doc.paths['/api/v2/rovers/{slug}/cameras'].get).toBeDefined()
    const page = await (await t.anonymous('/api/v2/docs')).text()
    expect(page).toContain('openapi.json')
  })
})
