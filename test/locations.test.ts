import { curiosityVoPhotos, rssFeedRecords, trelliscopePhotos } from './support/incoming-photos'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { makeTestApp, type TestApp } from './setup/test-app'
import { ROVER_SLUGS } from '../src/catalog/rovers'
import { FormatRegistry, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { listOf, LocationSchema, singleOf } from '../src/resources/resource-schemas'

const json = (r: Response): Promise<any> => r.json()

/** Every answer is checked against the schema the OpenAPI document publishes for it. */
for (const [name, check] of [['date', (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v)], ['uri', (v: string) => /^https?:\/\/\S+$/.test(v)], ['date-time', (v: string) => !Number.isNaN(Date.parse(v))]] as const)
  if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check)
function conforms(schema: TSchema, body: unknown): void {
  expect([...Value.Errors(schema, body)].map((e) => `${e.path}: ${e.message}`)).toEqual([])
}

/**
 * Locations over the real test index (site and drive derived by the builder from image ids),
 * against a grouping made here from the decoded store rows and one made from the source files.
 */
interface Expected {
  id: string
  rover: string
  site: number
  drive: number
  photos: number
  sols: Set<number>
  days: number[]
  /** sol, time (Infinity unknown), id of the earliest photo with coordinates, and its xyz */
  earliest?: { key: [number, number, number]; xyz: [number, number, number] }
}

let t: TestApp
let expected: Expected[]

const day = (d: number) => new Date(d * 86_400_000).toISOString().slice(0, 10)

function groupStoreRows(): Expected[] {
  const p = t.deps.stores.current.photos
  const groups = new Map<string, Expected>()
  for (let row = 0; row < p.length; row++) {
    if (p.site[row]! < 0 || p.drive[row]! < 0) continue
    const rover = ROVER_SLUGS[p.rover[row]!]!
    const id = `${rover}_${p.site[row]}_${p.drive[row]}`
    let g = groups.get(id)
    if (!g) groups.set(id, (g = { id, rover, site: p.site[row]!, drive: p.drive[row]!, photos: 0, sols: new Set(), days: [] }))
    g.photos++
    g.sols.add(p.sol[row]!)
    g.days.push(p.earth_date[row]!)
    if (!Number.isNaN(p.coord_x[row]!)) {
      const utc = p.date_taken_utc[row]!
      const key: [number, number, number] = [p.sol[row]!, Number.isNaN(utc) ? Infinity : utc, p.id[row]!]
      const e = g.earliest
      if (!e || key[0] < e.key[0] || (key[0] === e.key[0] && (key[1] < e.key[1] || (key[1] === e.key[1] && key[2] < e.key[2]))))
        g.earliest = { key, xyz: [p.coord_x[row]!, p.coord_y[row]!, p.coord_z[row]!] }
    }
  }
  const code = (slug: string) => ROVER_SLUGS.indexOf(slug as never)
  const minSol = (g: Expected) => Math.min(...g.sols)
  return [...groups.values()].sort((a, b) => code(a.rover) - code(b.rover) || minSol(a) - minSol(b) || a.site - b.site || a.drive - b.drive)
}

function record(g: Expected) {
  const attributes: Record<string, unknown> = {
    rover: g.rover,
    site: g.site,
    drive: g.drive,
    first_visited: day(Math.min(...g.days)),
    last_visited: day(Math.max(...g.days)),
    first_sol: Math.min(...g.sols),
    last_sol: Math.max(...g.sols),
    photo_count: g.photos,
    visit_count: g.sols.size,
  }
  if (g.earliest) attributes.coordinates = { x: g.earliest.xyz[0], y: g.earliest.xyz[1], z: g.earliest.xyz[2] }
  return {
    id: g.id,
    type: 'location',
    attributes,
    links: { photos: `http://localhost/api/v2/photos?rovers=${g.rover}&site=${g.site}&drive=${g.drive}` },
  }
}

async function all(query: string): Promise<any[]> {
  const out: any[] = []
  for (let page = 1; ; page++) {
    const res = await t.request(`/api/v2/locations?per_page=100&page=${page}${query ? '&' + query : ''}`)
    expect(res.status).toBe(200)
    const body = await json(res)
    conforms(listOf(LocationSchema), body)
    out.push(...body.data)
    expect(body.meta.total_count).toBeGreaterThanOrEqual(out.length)
    if (!body.links.next) {
      expect(out.length).toBe(body.meta.total_count)
      return out
    }
  }
}

beforeAll(async () => {
  t = await makeTestApp()
  expected = groupStoreRows()
})
afterAll(() => t.close())

describe('GET /api/v2/locations on the real records', () => {
  test('lists exactly the (rover, site, drive) groups of the index rows, with the fields of decisions.md, ordered by rover then first sol', async () => {
    expect(expected.length).toBeGreaterThan(50)
    expect(await all('')).toEqual(expected.map(record))
  })

  test('site and drive come from the image ids of the source records: photo counts per location match a grouping of the source files', async () => {
    const RAW = join(import.meta.dir, '../../shared/data/raw')
    const read = (f: string) => {
      const b = readFileSync(join(RAW, f))
      return f.endsWith('.gz') ? new TextDecoder().decode(Bun.gunzipSync(b)) : b.toString('utf8')
    }
    const urls: string[] = []
    for (const f of ['elbi3__Mars-Rover-Photo-Journal/curiositySol0.json.gz', 'elbi3__Mars-Rover-Photo-Journal/sol1000Data.json.gz', 'elbi3__Mars-Rover-Photo-Journal/perseveranceSol0.json.gz', 'david-c-oliveros__mars-tour-backend/test-data.json.gz', 'ZackCipolletta__MarsPicsNASAapi/test.json', 'dereklien218__spacetagram-site/marsrovers.json']) {
      const doc = JSON.parse(read(f))
      for (const p of Array.isArray(doc) ? doc : doc.photos) urls.push(p.img_src)
    }
    // pending (SOURCES.md §2.14-2.16): v1 records under photos or pics, and URL lists keyed by camera
    const PENDING = join(import.meta.dir, '../../shared/data/pending')
    const readPending = (f: string) => {
      const b = readFileSync(join(PENDING, f))
      return f.endsWith('.gz') ? new TextDecoder().decode(Bun.gunzipSync(b)) : b.toString('utf8')
    }
    for (const f of ['sjproctor__learn-react-challenges/mockNasa.json', 'milutinm__puliLabSample/mock.json.gz']) {
      const doc = JSON.parse(readPending(f))
      for (const p of doc.photos ?? doc.pics) urls.push(p.img_src)
    }
    // (a list holds URLs, or {url, score} objects: the score is not NASA data)
    for (const list of Object.values(JSON.parse(readPending('Arnav235__mars_photos_app/data.json')) as Record<string, Array<string | { url: string }>>)) for (const u of list) urls.push(typeof u === 'string' ? u : u.url)
    for (const line of read('GuiihDantas__mars-perseverance-data/dados_fotos_perseverance.csv.gz').trim().split(/\r?\n/).slice(1)) urls.push(line.split(',')[3]!)
    // incoming (SOURCES.md §2.11, §2.13): the v1 table's MSSS URLs carry no site/drive; the VO archive's ids do
    for (const p of [...trelliscopePhotos(), ...curiosityVoPhotos()]) urls.push(p.url)
    // one photo per image product (a browse size is not a new product; a Perseverance product version is)
    const images = new Map<string, string>()
    for (const url of urls) {
      let stem = url.slice(url.lastIndexOf('/') + 1).replace(/\.[A-Za-z]+$/, '')
      const m2020 = /^[A-Z0-9]{3}_\d{4}_\d{10}_\d{3}[A-Z]{3}_[A-Z](\d{3})(\d{4})/.exec(stem)
      if (m2020) {
        images.set(stem.replace(/_(320|800|1200)$/, ''), `perseverance_${Number(m2020[1])}_${Number(m2020[2])}`)
        continue
      }
      // Curiosity engineering cameras: FLB_486265257EDR_F0481570FHAZ00323M_ = site 048, drive 1570
      const msl = /^[A-Z]{2}[A-Z0-9]_\d{9}[A-Z]{3}_[A-Z](\d{3})(\d{4})/.exec(stem)
      if (msl) images.set(stem, `curiosity_${Number(msl[1])}_${Number(msl[2])}`)
    }
    // the two rich records carry site and drive as fields
    for (const f of ['NLF_0670_0726421423_362ECM_N0320604NCAM08111_01_095J01-metadata.json', 'NRF_0731_0731848568_991ECM_N0361610NCAM12731_04_195J01-metadata.json']) {
      const r = JSON.parse(read(`MarsRaw__mars-raw-utils/${f}`))
      images.set(f.replace('-metadata.json', ''), `perseverance_${r.site}_${r.drive}`)
    }
    // the Perseverance feed (SOURCES.md §2.12) states site and drive on every record
    for (const r of rssFeedRecords()) images.set(r.imageid, `perseverance_${r.site}_${Number(r.drive)}`)
    const counts = new Map<string, number>()
    for (const id of images.values()) counts.set(id, (counts.get(id) ?? 0) + 1)
    const sorted = (m: Map<string, number>) => Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    const listed = new Map<string, number>((await all('')).map((l) => [l.id, l.attributes.photo_count]))
    expect(sorted(listed)).toEqual(sorted(counts))
    expect(listed.get('curiosity_48_1570')).toBeGreaterThan(0) // SOURCES.md §1: FLB_486265257EDR_F0481570… on sol 1000
  })

  test('every listed id resolves by id to the same record, as {data, links.self}; a typed slug in another case resolves too', async () => {
    for (const item of await all('')) {
      const res = await t.request(`/api/v2/locations/${item.id}`)
      expect(res.status).toBe(200)
      const body = await json(res)
      conforms(singleOf(LocationSchema), body)
      expect(body).toEqual({ data: item, links: { self: `http://localhost/api/v2/locations/${item.id}` } })
    }
    const first = expected[0]!
    const res = await t.request(`/api/v2/locations/${first.id.toUpperCase()}`)
    expect(res.status).toBe(200)
    expect((await json(res)).data.id).toBe(first.id)
  })

  test('rovers, sol_min, sol_max and min_photos narrow the list: sol bounds keep locations whose [first_sol, last_sol] overlaps them', async () => {
    const cases: Array<[string, (r: ReturnType<typeof record>) => boolean]> = [
      ['rovers=Perseverance', (r) => r.attributes.rover === 'perseverance'],
      ['rovers=curiosity,spirit', (r) => r.attributes.rover === 'curiosity'],
      ['sol_min=1000&sol_max=1000', (r) => (r.attributes.first_sol as number) <= 1000 && (r.attributes.last_sol as number) >= 1000],
      ['sol_min=394', (r) => (r.attributes.last_sol as number) >= 394],
      ['sol_max=393', (r) => (r.attributes.first_sol as number) <= 393],
      ['min_photos=50', (r) => (r.attributes.photo_count as number) >= 50],
      ['rovers=perseverance&sol_min=1290&sol_max=1300&min_photos=10', (r) => r.attributes.rover === 'perseverance' && (r.attributes.last_sol as number) >= 1290 && (r.attributes.first_sol as number) <= 1300 && (r.attributes.photo_count as number) >= 10],
      ['rovers=opportunity', () => false],
    ]
    for (const [query, keep] of cases) {
      const want = expected.map(record).filter(keep)
      expect({ query, got: await all(query) }).toEqual({ query, got: want })
    }
    expect(expected.map(record).filter(cases[2]![1]).length).toBeGreaterThan(0)
  })

  test('pages carry meta, pagination and absolute links keeping the query; a page past the end is empty', async () => {
    const body = await json(await t.request('/api/v2/locations?rovers=perseverance&per_page=5&page=2'))
    const total = expected.filter((g) => g.rover === 'perseverance').length
    expect(body.meta).toMatchObject({ total_count: total, returned_count: 5 })
    expect(body.pagination).toEqual({ page: 2, per_page: 5, total_pages: Math.ceil(total / 5) })
    expect(body.links.self).toBe('http://localhost/api/v2/locations?rovers=perseverance&per_page=5&page=2')
    expect(body.links.next).toBe('http://localhost/api/v2/locations?rovers=perseverance&page=3&per_page=5')
    expect(body.links.prev).toBe('http://localhost/api/v2/locations?rovers=perseverance&page=1&per_page=5')
    expect(body.data.map((l: any) => l.id)).toEqual(expected.filter((g) => g.rover === 'perseverance').slice(5, 10).map((g) => g.id))
    const past = await json(await t.request('/api/v2/locations?page=999999'))
    expect(past.data).toEqual([])
    expect(past.meta.total_count).toBe(expected.length)
    const capped = await json(await t.request('/api/v2/locations?per_page=1000'))
    expect(capped.pagination.per_page).toBe(100)
  })

  test('invalid parameters are one 400 naming each of them', async () => {
    const res = await t.request('/api/v2/locations?rovers=curiosity,pluto&sol_min=x&sol_max=-1&min_photos=-5&page=0&per_page=zero')
    expect(res.status).toBe(400)
    const body = await json(res)
    expect(body.type).toBe('/errors/validation-error')
    expect(body.errors.map((e: any) => e.parameter).sort()).toEqual(['min_photos', 'page', 'per_page', 'rovers', 'sol_max', 'sol_min'])
    const range = await json(await t.request('/api/v2/locations?sol_min=10&sol_max=9'))
    expect(range.status).toBe(400)
    expect(range.errors.map((e: any) => e.parameter)).toEqual(['sol_min'])
  })

  test('a malformed or unknown location id is 404', async () => {
    const first = expected[0]!
    for (const id of ['curiosity_48', 'curiosity_48_1570_1', 'pluto_1_1', `${first.rover}_${first.site}_0${first.drive}`, `${first.rover}_${first.site}_${first.drive + 100000}`, 'curiosity_-1_5', '%E2%9C%93', '%']) {
      const res = await t.request(`/api/v2/locations/${id}`)
      expect({ id, status: res.status }).toEqual({ id, status: 404 })
      expect((await json(res)).type).toBe('/errors/not-found')
    }
  })

  test('links.photos of a location is a photo query that returns exactly its photo_count photos', async () => {
    for (const g of [expected[0]!, expected[expected.length - 1]!, expected.find((e) => e.id === 'curiosity_48_1570')!]) {
      const item = record(g)
      const res = await t.request(item.links.photos.replace('http://localhost', '') + '&per_page=1')
      expect(res.status).toBe(200)
      expect((await json(res)).meta.total_count).toBe(g.photos)
    }
  })
})
