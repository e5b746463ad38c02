import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { makeTestApp, type TestApp } from './setup/test-app'
import { ROVERS } from '../src/catalog/rovers'
import { FormatRegistry, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { listOf, RoverSchema, RoverWithCamerasSchema, singleOf } from '../src/resources/resource-schemas'
import { incomingPhotos } from './support/incoming-photos'

const json = (r: Response): Promise<any> => r.json()

/** Every answer is checked against the schema the OpenAPI document publishes for it. */
for (const [name, check] of [['date', (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v)], ['uri', (v: string) => /^https?:\/\/\S+$/.test(v)], ['date-time', (v: string) => !Number.isNaN(Date.parse(v))]] as const)
  if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check)
function conforms(schema: TSchema, body: unknown): void {
  expect([...Value.Errors(schema, body)].map((e) => `${e.path}: ${e.message}`)).toEqual([])
}

/**
 * GET /api/v2/rovers and /rovers/{slug} over the real test index, checked against counts made
 * here directly from the per-photo source files (SOURCES.md §6: every level-A and level-B file).
 */
const RAW = join(import.meta.dir, '../../shared/data/raw')
const PER_PHOTO_FILES = [
  'elbi3__Mars-Rover-Photo-Journal/curiositySol0.json.gz',
  'elbi3__Mars-Rover-Photo-Journal/sol1000Data.json.gz',
  'elbi3__Mars-Rover-Photo-Journal/perseveranceSol0.json.gz',
  'elbi3__Mars-Rover-Photo-Journal/opportunitySol1.json.gz',
  'elbi3__Mars-Rover-Photo-Journal/spiritSol1.json.gz',
  'david-c-oliveros__mars-tour-backend/test-data.json.gz',
  'ZackCipolletta__MarsPicsNASAapi/test.json',
  'dereklien218__spacetagram-site/marsrovers.json',
  'GuiihDantas__mars-perseverance-data/dados_fotos_perseverance.csv.gz',
  'MarsRaw__mars-raw-utils/NLF_0670_0726421423_362ECM_N0320604NCAM08111_01_095J01-metadata.json',
  'MarsRaw__mars-raw-utils/NRF_0731_0731848568_991ECM_N0361610NCAM12731_04_195J01-metadata.json',
]

interface SourcePhoto {
  rover: string
  sol: number
  earthDate: string
}

function read(file: string): string {
  const bytes = readFileSync(join(RAW, file))
  return file.endsWith('.gz') ? new TextDecoder().decode(Bun.gunzipSync(bytes)) : bytes.toString('utf8')
}

/**
 * One key per image product: the file stem without extension and browse-size suffix
 * (_320/_800/_1200). Perseverance product versions (…J01, …J02) are distinct files, so distinct
 * photos (the issue counts 11,277 distinct real photos).
 */
function imageKey(url: string): string {
  return url.slice(url.lastIndexOf('/') + 1).replace(/\.[A-Za-z]+$/, '').replace(/_(320|800|1200)$/, '')
}

/** Every photo of the per-photo sources, one per image product. */
function sourcePhotos(): Map<string, SourcePhoto> {
  const out = new Map<string, SourcePhoto>()
  for (const file of PER_PHOTO_FILES) {
    const text = read(file)
    if (file.endsWith('.csv.gz')) {
      for (const line of text.trim().split(/\r?\n/).slice(1)) {
        const [, earthDate, , url] = line.split(',')
        out.set(imageKey(url!), { rover: 'perseverance', sol: Number(/\/sol\/(\d{5})\//.exec(url!)![1]), earthDate: earthDate! })
      }
    } else if (file.endsWith('-metadata.json')) {
      const r = JSON.parse(text)
      out.set(imageKey(r.link), { rover: 'perseverance', sol: r.sol, earthDate: String(r.date_taken_utc).slice(0, 10) })
    } else {
      const doc = JSON.parse(text)
      for (const p of Array.isArray(doc) ? doc : doc.photos) out.set(imageKey(p.img_src), { rover: p.rover.name.toLowerCase(), sol: p.sol, earthDate: p.earth_date })
    }
  }
  // The incoming sources (SOURCES.md §2.11–2.13). Their sols all lie below the raw files' largest,
  // so they add to the totals only; their dates (derived for most) are not counted here.
  for (const p of incomingPhotos()) out.set(imageKey(p.url), { rover: p.rover, sol: p.sol, earthDate: '' })
  // The pending sources (SOURCES.md §2.14–2.16): Curiosity sols 1500, 2789, 3163, all below 3728 and
  // dated in 2016–2021, so they add to the totals only (their dates are checked in pending-sources.test.ts).
  const pending = join(import.meta.dir, '../../shared/data/pending')
  for (const p of JSON.parse(readFileSync(join(pending, 'sjproctor__learn-react-challenges/mockNasa.json'), 'utf8')).photos) out.set(imageKey(p.img_src), { rover: 'curiosity', sol: p.sol, earthDate: '' })
  for (const p of JSON.parse(new TextDecoder().decode(Bun.gunzipSync(readFileSync(join(pending, 'milutinm__puliLabSample/mock.json.gz'))))).pics) out.set(imageKey(p.img_src), { rover: 'curiosity', sol: p.sol, earthDate: '' })
  for (const list of Object.values(JSON.parse(readFileSync(join(pending, 'Arnav235__mars_photos_app/data.json'), 'utf8')) as Array<Array<string | { url: string }>>)) {
    for (const x of list) out.set(imageKey(typeof x === 'string' ? x : x.url), { rover: 'curiosity', sol: 3163, earthDate: '' })
  }
  return out
}

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(() => t.close())

describe('GET /api/v2/rovers', () => {
  test('total_photos, max_sol and max_date of each rover equal counts made directly from the source files', async () => {
    const expected = new Map<string, { total: number; maxSol: number; maxDate: string }>()
    for (const p of sourcePhotos().values()) {
      const e = expected.get(p.rover) ?? { total: 0, maxSol: -1, maxDate: '' }
      e.total++
      e.maxSol = Math.max(e.maxSol, p.sol)
      if (p.earthDate > e.maxDate) e.maxDate = p.earthDate
      expected.set(p.rover, e)
    }
    const res = await t.request('/api/v2/rovers')
    expect(res.status).toBe(200)
    const body = await json(res)
    const got = new Map(body.data.map((r: any) => [r.id, { total: r.attributes.total_photos, maxSol: r.attributes.max_sol, maxDate: r.attributes.max_date }]))
    expect(got).toEqual(expected)
    // the figures of the files themselves (SOURCES.md §1-§2), as a check on the counting above
    expect(expected.get('curiosity')!.total).toBe(5088 + 1245 + 5013 + 217 + 276 + 325)
    expect(expected.get('curiosity')!.maxSol).toBe(3728)
    expect(expected.get('opportunity')!.total).toBe(95)
    expect(expected.get('spirit')!.total).toBe(77)
    expect(expected.get('perseverance')!.maxSol).toBe(1311)
    expect(expected.get('perseverance')!.total).toBe(6017 + 1196)
    expect([...expected.values()].reduce((a, e) => a + e.total, 0)).toBe(11_277 + 7_454 + 818)
  }, 30_000)

  test('lists the four rovers in slug order with the catalogue facts, in the list envelope with total and returned counts', async () => {
    const body = await json(await t.request('/api/v2/rovers'))
    conforms(listOf(RoverSchema), body)
    expect(body.data.map((r: any) => r.id)).toEqual(['curiosity', 'opportunity', 'perseverance', 'spirit'])
    for (const r of body.data) {
      const facts = ROVERS.find((f) => f.slug === r.id)!
      expect(r.type).toBe('rover')
      expect(r.attributes).toMatchObject({ name: facts.name, landing_date: facts.landing_date, launch_date: facts.launch_date, status: facts.status })
      expect(r.relationships).toBeUndefined()
    }
    expect(body.data.filter((r: any) => r.attributes.status === 'active').map((r: any) => r.id)).toEqual(['curiosity', 'perseverance'])
    expect(body.meta.total_count).toBe(4)
    expect(body.meta.returned_count).toBe(4)
    expect(new Date(body.meta.timestamp).toISOString()).toBe(body.meta.timestamp)
    expect(body.pagination).toEqual({ page: 1, per_page: 100, total_pages: 1 })
    expect(body.links.self).toBe('http://localhost/api/v2/rovers?page=1')
    expect(body.links.next).toBeUndefined()
  })
})

describe('GET /api/v2/rovers/{slug}', () => {
  test("nasa_total_photos is NASA's v1 manifest total over the sols it lists, catalogue_share Σ min(our photos, NASA's) over those sols ÷ that total, counted here from the manifest and source files; the manifest carries both; perseverance has neither; /health calls the index a sample", async () => {
    const ours = new Map<string, number>()
    for (const p of sourcePhotos().values()) ours.set(`${p.rover}/${p.sol}`, (ours.get(`${p.rover}/${p.sol}`) ?? 0) + 1)
    const stated: Record<string, number> = { curiosity: 695_670, opportunity: 198_439, spirit: 124_550 } // SOURCES.md §2.1
    let nasaAll = 0
    let heldAll = 0
    for (const slug of ['curiosity', 'opportunity', 'spirit']) {
      const m = JSON.parse(read(`../raw/LakhvirMadhar__mars_rover_data_analysis/${slug}_manifest.json.gz`)).photo_manifest
      let nasa = 0
      let held = 0
      for (const day of m.photos) {
        nasa += day.total_photos
        held += Math.min(ours.get(`${slug}/${day.sol}`) ?? 0, day.total_photos)
      }
      expect([nasa, m.total_photos]).toEqual([stated[slug]!, stated[slug]!])
      const share = Math.round((held / nasa) * 1e6) / 1e6
      const body = await json(await t.request(`/api/v2/rovers/${slug}`))
      conforms(singleOf(RoverWithCamerasSchema), body)
      expect([body.data.attributes.nasa_total_photos, body.data.attributes.catalogue_share]).toEqual([nasa, share])
      const manifest = (await json(await t.request(`/api/v2/rovers/${slug}/manifest`))).data.attributes
      expect([manifest.nasa_total_photos, manifest.catalogue_share]).toEqual([nasa, share])
      const listed = (await json(await t.request('/api/v2/rovers'))).data.find((r: any) => r.id === slug).attributes
      expect([listed.nasa_total_photos, listed.catalogue_share]).toEqual([nasa, share])
      nasaAll += nasa
      heldAll += held
    }
    // Opportunity and Spirit hold sol 1 only, all of it within NASA's count for the sol.
    expect((await json(await t.request('/api/v2/rovers/opportunity'))).data.attributes.catalogue_share).toBe(Math.round((95 / 198_439) * 1e6) / 1e6)
    expect((await json(await t.request('/api/v2/rovers/spirit'))).data.attributes.catalogue_share).toBe(Math.round((77 / 124_550) * 1e6) / 1e6)
    for (const path of ['/api/v2/rovers/perseverance', '/api/v2/rovers/perseverance/manifest']) {
      const a = (await json(await t.request(path))).data.attributes
      expect([a.nasa_total_photos, a.catalogue_share]).toEqual([undefined, undefined])
    }
    const health = await json(await t.anonymous('/health'))
    expect(heldAll / nasaAll).toBeLessThan(0.99)
    expect(health.index.sample).toBe(true)
  })

  test('answers a case-insensitive slug with the lower-case rover, its counts and relationships.cameras', async () => {
    const list = await json(await t.request('/api/v2/rovers'))
    const res = await t.request('/api/v2/rovers/CurioSity')
    expect(res.status).toBe(200)
    const body = await json(res)
    conforms(singleOf(RoverWithCamerasSchema), body)
    expect(body.data.id).toBe('curiosity')
    expect(body.data.attributes).toEqual(list.data[0].attributes)
    expect(body.links).toEqual({ self: 'http://localhost/api/v2/rovers/curiosity' })
    // the interface's camera table for curiosity, each with type camera and its full name
    expect(body.data.relationships.cameras.map((c: any) => c.id)).toEqual(['FHAZ', 'RHAZ', 'MAST', 'CHEMCAM', 'MAHLI', 'MARDI', 'NAVCAM'])
    for (const c of body.data.relationships.cameras) {
      expect(c.type).toBe('camera')
      expect(typeof c.attributes.full_name).toBe('string')
    }
    expect(body.data.relationships.cameras[2].attributes.full_name).toBe('Mast Camera')
  })

  test('perseverance carries every camera of the interface table among its cameras', async () => {
    const body = await json(await t.request('/api/v2/rovers/perseverance'))
    const ids = body.data.relationships.cameras.map((c: any) => c.id)
    const table = 'EDL_RUCAM, EDL_RDCAM, EDL_DDCAM, EDL_PUCAM1, EDL_PUCAM2, NAVCAM_LEFT, NAVCAM_RIGHT, MCZ_LEFT, MCZ_RIGHT, FRONT_HAZCAM_LEFT_A, FRONT_HAZCAM_RIGHT_A, REAR_HAZCAM_LEFT, REAR_HAZCAM_RIGHT'
    for (const name of table.split(', ')) expect(ids).toContain(name)
  })

  test('an unknown slug, or one that is not valid percent-encoding, is a 404 problem document', async () => {
    for (const slug of ['pluto', 'curiosity2', '%20', '%']) {
      const res = await t.request(`/api/v2/rovers/${slug}`)
      expect(res.status).toBe(404)
      const body = await json(res)
      expect(body.type).toBe('/errors/not-found')
      expect(body.status).toBe(404)
      expect(typeof body.detail).toBe('string')
    }
  })
})
