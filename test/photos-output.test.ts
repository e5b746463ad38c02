import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { findCamera } from '../src/catalog/cameras'
import { ROVERS, ROVER_SLUGS } from '../src/catalog/rovers'
import type { Store } from '../src/store/store'
import { plainPhotos, type PlainPhoto } from './support/brute-force'
import { makeTestApp, testStore, type TestApp } from './setup/test-app'

/**
 * The photo object (interface "Photo"; decisions.md, Envelopes and resources): absent
 * attributes are omitted (never null or empty), images are image_dir + file name with the sizes
 * each rover has, the presets, `fields` with the column aliases of behaviour.md §8.3,
 * `image_sizes`, `exclude_images` and `include`. Two real records carry dimensions,
 * coordinates and telemetry (the rich Perseverance ones); they are the only check of those
 * members.
 */
let t: TestApp
let store: Store
let plain: Map<number, PlainPhoto>
const RICH = 2047666849

beforeAll(async () => {
  store = await testStore()
  plain = new Map(plainPhotos(store).map((p) => [p.id, p]))
  t = await makeTestApp()
})
afterAll(() => t.close())

type Photo = { id: number; type: string; attributes: Record<string, any>; relationships?: Record<string, any> }

async function photos(query: string): Promise<Photo[]> {
  const res = await t.request(`/api/v2/photos?${query}`)
  expect(res.status).toBe(200)
  return (await res.json() as any).data
}
async function one(id: number, query = ''): Promise<Photo> {
  return (await (await t.request(`/api/v2/photos/${id}?${query}`)).json() as any).data
}

/** Nothing null, no empty string, no empty object, anywhere in a value. */
function noEmpty(v: unknown, path = ''): void {
  if (v === null || v === '' || v === undefined) throw new Error(`${path} is ${JSON.stringify(v)}`)
  if (typeof v === 'object') {
    const entries = Object.entries(v as object)
    if (!Array.isArray(v) && entries.length === 0 && path.split('.').length > 2) throw new Error(`${path} is {}`)
    for (const [k, x] of entries) noEmpty(x, `${path}.${k}`)
  }
}

/** The embedded relationships of a photo: all but the stereo and sequence references every photo that has them carries. */
const embedded = (p: Photo) => Object.keys(p.relationships ?? {}).filter((k) => k !== 'stereo' && k !== 'sequence')

describe('default output', () => {
  test('every photo of several pages: only attributes the photo has, never null or empty, in the interface order', async () => {
    const order = ['nasa_id', 'sol', 'earth_date', 'date_taken_utc', 'date_taken_mars', 'images', 'dimensions', 'sample_type', 'title', 'caption', 'credit', 'location', 'telemetry']
    for (const q of ['per_page=100', 'per_page=100&page=60', 'per_page=100&sort=-id', 'rovers=spirit,opportunity&per_page=100']) {
      for (const p of await photos(q)) {
        noEmpty(p.attributes, `photo ${p.id}`)
        expect(p.type).toBe('photo')
        // Without include a photo carries only the stereo and sequence references it has.
        for (const k of Object.keys(p.relationships ?? {})) expect(['stereo', 'sequence']).toContain(k)
        const keys = Object.keys(p.attributes)
        expect(keys).toEqual(order.filter((k) => keys.includes(k)))
        const src = plain.get(p.id)!
        expect(p.attributes.nasa_id).toBe(src.nasa_id)
        expect(p.attributes.sol).toBe(src.sol ?? undefined)
        expect(p.attributes.earth_date).toBe(src.earth_date ?? undefined)
        expect(p.attributes.date_taken_utc).toBe(src.date_taken_utc === null ? undefined : new Date(src.date_taken_utc).toISOString())
        expect(p.attributes.date_taken_mars).toBe(src.date_taken_mars || undefined)
        expect(p.attributes.sample_type).toBe(src.sample_type ?? undefined)
        if (p.attributes.date_taken_mars) expect(p.attributes.date_taken_mars).toMatch(/^Sol-\d{5}M\d{2}:\d{2}:\d{2}(\.\d+)?$/)
      }
    }
  })

  test('images: Perseverance may carry small/medium/large/full, the other rovers full only; each URL is absolute', async () => {
    const dec = new TextDecoder()
    const p = store.photos
    for (const ph of await photos('per_page=100&sort=id')) {
      const row = store.paths.rowOfId(ph.id)
      const rover = ROVER_SLUGS[p.rover[row]]
      const allowed = rover === 'perseverance' ? ['small', 'medium', 'large', 'full'] : ['full']
      const dir = p.image_dir.dict[p.image_dir.codes[row]]
      const expected: Record<string, string> = {}
      for (const size of allowed) {
        const col = p[`image_${size}` as 'image_full']
        const file = dec.decode(col.data.subarray(col.offsets[row], col.offsets[row + 1]))
        if (file) expected[size] = dir + file
      }
      expect(ph.attributes.images ?? {}).toEqual(expected)
      for (const url of Object.values(ph.attributes.images ?? {})) expect(String(url)).toMatch(/^https?:\/\//)
    }
  })

  test('a rich record carries dimensions, location with coordinates, and telemetry as float32 written short', async () => {
    const p = await one(RICH)
    expect(p.attributes.dimensions).toEqual({ width: 1288, height: 968 })
    expect(p.attributes.location).toEqual({ site: 36, drive: 1610, coordinates: { x: -90.8518, y: -173.488, z: -3.44068 } })
    expect(p.attributes.telemetry).toEqual({ mast_azimuth: 146.336, mast_elevation: -13.3397 })
  })
})

describe('presets and fields', () => {
  test('minimal: sol, earth_date and one image, the nearest size the photo has (medium, else large, else full, else small)', async () => {
    for (const p of await photos('field_set=minimal&per_page=100&sort=rover')) {
      expect(Object.keys(p.attributes).every((k) => ['sol', 'earth_date', 'images'].includes(k))).toBe(true)
      if (p.attributes.images) {
        const keys = Object.keys(p.attributes.images)
        expect(keys.length).toBe(1)
        expect(['medium', 'large', 'full', 'small']).toContain(keys[0])
      }
    }
    // every Perseverance photo has some image, so every one shows one (most hold only a large URL)
    const ORDER = ['medium', 'large', 'full', 'small'] as const
    for (let page = 1; page <= 3; page++) {
      const std = await photos(`rovers=perseverance&per_page=100&page=${page}&sort=id`)
      const min = await photos(`rovers=perseverance&field_set=minimal&per_page=100&page=${page}&sort=id`)
      expect(min.length).toBe(std.length)
      std.forEach((p: any, i: number) => {
        const want = ORDER.find((k) => p.attributes.images?.[k] !== undefined)!
        expect(want).toBeDefined()
        expect(min[i].attributes.images).toEqual({ [want]: p.attributes.images[want] })
      })
    }
  })

  test('standard, extended, scientific, complete on the rich record', async () => {
    const std = await one(RICH, 'field_set=standard')
    expect(Object.keys(std.attributes)).toEqual(['nasa_id', 'sol', 'earth_date', 'date_taken_utc', 'images', 'sample_type', 'credit'])
    const ext = await one(RICH, 'field_set=Extended')
    expect(Object.keys(ext.attributes)).toEqual(['nasa_id', 'sol', 'earth_date', 'date_taken_utc', 'date_taken_mars', 'images', 'dimensions', 'sample_type', 'caption', 'credit', 'location'])
    expect(ext.attributes.location).toEqual({ site: 36, drive: 1610 })
    const sci = await one(RICH, 'field_set=scientific')
    expect(sci.attributes.location.coordinates).toBeDefined()
    expect(sci.attributes.telemetry).toBeDefined()
    const all = await one(RICH)
    const complete = await one(RICH, 'field_set=complete')
    // complete = the default output + the attributes beyond the interface (decisions.md) + raw
    const { raw, sun, solar_longitude, added_at, date_received, ...rest } = complete.attributes
    expect(rest).toEqual(all.attributes)
    expect(all.attributes.sun).toBeUndefined()
    expect(all.attributes.solar_longitude).toBeUndefined()
    expect(sun.elevation).toBeGreaterThan(-90)
    expect(solar_longitude).toBeGreaterThanOrEqual(0)
    // The record states its downlink time.
    expect(Date.parse(date_received)).toBe(Date.parse(raw.date_received))
    expect(Date.parse(added_at)).toBeGreaterThan(0)
    expect(all.attributes.added_at).toBeUndefined()
    expect(raw.imageid).toBe(all.attributes.nasa_id)
    expect(all.attributes.raw).toBeUndefined()
  })

  test('fields takes attribute names and the column aliases of behaviour.md §8.3, case-insensitively', async () => {
    const pick = async (f: string) => Object.keys((await one(RICH, `fields=${f}`)).attributes)
    expect(await pick('SOL,Title,credit')).toEqual(['sol', 'credit']) // this record has no title
    expect(await pick('width')).toEqual(['dimensions'])
    expect(await pick('site')).toEqual(['location'])
    expect(await pick('xyz')).toEqual(['location'])
    expect(await pick('mast_az,mast_el')).toEqual(['telemetry'])
    expect(await pick('id')).toEqual([])
    expect(await pick('created_at')).toEqual([])
    expect((await one(RICH, 'fields=img_src_full')).attributes.images).toEqual((await one(RICH)).attributes.images)
    expect((await one(RICH, 'fields=img_src_small')).attributes.images).toBeUndefined()
  })

  test('field_set as a comma list behaves like fields; a preset and fields select the union', async () => {
    expect(await one(RICH, 'field_set=sol,width')).toEqual(await one(RICH, 'fields=sol,width'))
    expect(Object.keys((await one(RICH, 'field_set=minimal&fields=credit')).attributes).sort()).toEqual(['credit', 'earth_date', 'images', 'sol'])
  })

  test('image_sizes keeps the listed sizes the rover has; exclude_images wins', async () => {
    expect((await one(RICH, 'image_sizes=full')).attributes.images).toEqual({ full: (await one(RICH)).attributes.images.full })
    expect((await one(RICH, 'image_sizes=small,medium')).attributes.images).toBeUndefined()
    const both = await one(RICH, 'image_sizes=full&exclude_images=true')
    expect(both.attributes.images).toBeUndefined()
    expect(both.attributes.sol).toBe(731)
    for (const p of await photos('exclude_images=TRUE&per_page=50')) expect(p.attributes.images).toBeUndefined()
  })
})

describe('include', () => {
  test('include=rover,camera embeds the rover (slug, name, status) and the camera (abbreviation, full name)', async () => {
    for (const p of await photos('include=rover,camera&per_page=100&sort=camera')) {
      const row = store.paths.rowOfId(p.id)
      const rover = ROVERS[store.photos.rover[row]]
      const camera = store.photos.camera.dict[store.photos.camera.codes[row]]
      expect(p.relationships!.rover).toEqual({ id: rover.slug, type: 'rover', attributes: { name: rover.name, status: rover.status } })
      expect(p.relationships!.camera).toEqual({ id: camera, type: 'camera', attributes: { full_name: findCamera(rover.slug, camera)!.full_name } })
    }
  })
  test('include=camera alone embeds only the camera; upper case accepted', async () => {
    const [p] = await photos('include=CAMERA&per_page=1')
    expect(embedded(p)).toEqual(['camera'])
  })
  test('fields=rover and fields=camera add relationships.rover / relationships.camera byte for byte as include does', async () => {
    for (const [byFields, byInclude] of [
      ['fields=sol,rover,camera&per_page=100&sort=camera', 'fields=sol&include=rover,camera&per_page=100&sort=camera'],
      ['fields=ROVER&rovers=spirit,perseverance&per_page=50', 'fields=id&include=rover&rovers=spirit,perseverance&per_page=50'],
      ['field_set=minimal&fields=camera&per_page=30&page=7', 'field_set=minimal&include=camera&per_page=30&page=7'],
    ]) {
      const a = await (await t.request(`/api/v2/photos?${byFields}`)).json() as any
      const b = await (await t.request(`/api/v2/photos?${byInclude}`)).json() as any
      expect(a.data.length).toBeGreaterThan(0)
      expect(JSON.stringify(a.data)).toBe(JSON.stringify(b.data))
    }
    const [p] = await photos('fields=rover&per_page=1')
    expect(Object.keys(p.attributes)).toEqual([])
    expect(embedded(p)).toEqual(['rover'])
    const row = store.paths.rowOfId(p.id)
    expect(p.relationships!.rover.id).toBe(ROVERS[store.photos.rover[row]].slug)
    const byId = await one(RICH, 'fields=camera,sol')
    expect(embedded(byId)).toEqual(['camera'])
    expect(byId.relationships!.camera.id).toBe(store.photos.camera.dict[store.photos.camera.codes[store.paths.rowOfId(RICH)]])
  })
})
