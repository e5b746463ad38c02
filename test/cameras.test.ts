import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { makeTestApp, type TestApp } from './setup/test-app'
import { ROVER_SLUGS } from '../src/catalog/rovers'
import { CAMERAS } from '../src/catalog/cameras'
import { FormatRegistry, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { CameraSchema, listOf, singleOf } from '../src/resources/resource-schemas'

const json = (r: Response): Promise<any> => r.json()

/** Every answer is checked against the schema the OpenAPI document publishes for it. */
for (const [name, check] of [['date', (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v)], ['uri', (v: string) => /^https?:\/\/\S+$/.test(v)], ['date-time', (v: string) => !Number.isNaN(Date.parse(v))]] as const)
  if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check)
function conforms(schema: TSchema, body: unknown): void {
  expect([...Value.Errors(schema, body)].map((e) => `${e.path}: ${e.message}`)).toEqual([])
}

/** GET /api/v2/cameras and /cameras/{id}?rover= over the real test index. */

/** The interface's camera table ("Camera"), verbatim. */
const INTERFACE_TABLE: Record<string, string[]> = {
  curiosity: 'FHAZ, RHAZ, MAST, CHEMCAM, MAHLI, MARDI, NAVCAM'.split(', '),
  perseverance:
    'EDL_RUCAM, EDL_RDCAM, EDL_DDCAM, EDL_PUCAM1, EDL_PUCAM2, NAVCAM_LEFT, NAVCAM_RIGHT, MCZ_LEFT, MCZ_RIGHT, FRONT_HAZCAM_LEFT_A, FRONT_HAZCAM_RIGHT_A, REAR_HAZCAM_LEFT, REAR_HAZCAM_RIGHT'.split(
      ', ',
    ),
}

let t: TestApp
/** (rover slug, camera name) -> photos, first sol, last sol, counted here from the decoded store rows. */
const counted = new Map<string, { count: number; first: number; last: number }>()

beforeAll(async () => {
  t = await makeTestApp()
  const p = t.deps.stores.current.photos
  for (let row = 0; row < p.length; row++) {
    const key = `${ROVER_SLUGS[p.rover[row]!]}/${p.camera.dict[p.camera.codes[row]!]}`
    const sol = p.sol[row]!
    const c = counted.get(key)
    if (!c) counted.set(key, { count: 1, first: sol, last: sol })
    else {
      c.count++
      c.first = Math.min(c.first, sol)
      c.last = Math.max(c.last, sol)
    }
  }
})
afterAll(() => t.close())

describe('GET /api/v2/cameras', () => {
  test('lists every camera of the interface table for its rover, and every catalogue camera (36 rover cameras) once per name', async () => {
    const res = await t.request('/api/v2/cameras')
    expect(res.status).toBe(200)
    const body = await json(res)
    conforms(listOf(CameraSchema), body)
    const byId = new Map<string, any>(body.data.map((c: any) => [c.id, c]))
    expect(byId.size).toBe(body.data.length) // ids are unique
    for (const [rover, names] of Object.entries(INTERFACE_TABLE)) {
      for (const name of names) expect(byId.get(name)?.relationships.rovers.map((r: any) => r.id)).toContain(rover)
    }
    const pairs = body.data.flatMap((c: any) => c.relationships.rovers.map((r: any) => `${r.id}/${c.id}`)).sort()
    expect(pairs).toEqual(CAMERAS.map((c) => `${c.rover}/${c.name}`).sort())
    expect(pairs.length).toBe(36)
    expect(byId.get('FHAZ').relationships.rovers.map((r: any) => r.id)).toEqual(['curiosity', 'opportunity', 'spirit'])
    expect(body.data.map((c: any) => c.id)).toEqual([...byId.keys()].sort())
    expect(body.meta).toMatchObject({ total_count: byId.size, returned_count: byId.size })
    expect(body.links.self).toBe('http://localhost/api/v2/cameras?page=1')
  })

  test('photo counts and first/last sols per rover equal counts over the index rows; the camera total is their sum', async () => {
    const body = await json(await t.request('/api/v2/cameras'))
    let seen = 0
    for (const cam of body.data) {
      let sum = 0
      for (const r of cam.relationships.rovers) {
        const c = counted.get(`${r.id}/${cam.id}`)
        expect(r.meta).toEqual(c ? { photo_count: c.count, first_photo_sol: c.first, last_photo_sol: c.last } : { photo_count: 0 })
        sum += r.meta.photo_count
        if (c) seen += c.count
      }
      expect(cam.attributes.photo_count).toBe(sum)
    }
    // every photo of the index is counted under some listed camera
    expect(seen).toBe(t.deps.stores.current.photos.length)
    const mast = body.data.find((c: any) => c.id === 'MAST')
    expect(mast.attributes).toEqual({ name: 'MAST', full_name: 'Mast Camera', photo_count: counted.get('curiosity/MAST')!.count })
  })
})

describe('GET /api/v2/cameras/{id}', () => {
  test('answers a case-insensitive name for every rover that has it, as {data, links.self}', async () => {
    const res = await t.request('/api/v2/cameras/navCam')
    expect(res.status).toBe(200)
    const body = await json(res)
    conforms(singleOf(CameraSchema), body)
    expect(body.data.id).toBe('NAVCAM')
    expect(body.data.attributes.full_name).toBe('Navigation Camera')
    expect(body.data.relationships.rovers.map((r: any) => r.id)).toEqual(['curiosity', 'opportunity', 'spirit'])
    expect(body.links).toEqual({ self: 'http://localhost/api/v2/cameras/NAVCAM' })
    const list = await json(await t.request('/api/v2/cameras'))
    expect(body.data).toEqual(list.data.find((c: any) => c.id === 'NAVCAM'))
  })

  test('`rover` narrows the camera to that rover (case-insensitive) with that rover`s count', async () => {
    const body = await json(await t.request('/api/v2/cameras/NAVCAM?rover=Spirit'))
    conforms(singleOf(CameraSchema), body)
    expect(body.data.relationships.rovers.map((r: any) => r.id)).toEqual(['spirit'])
    expect(body.data.attributes.photo_count).toBe(counted.get('spirit/NAVCAM')!.count)
    expect(body.links.self).toBe('http://localhost/api/v2/cameras/NAVCAM?rover=spirit')
  })

  test('an unknown camera, or a camera the given rover lacks, is 404', async () => {
    for (const path of ['/api/v2/cameras/HUBBLE', '/api/v2/cameras/%', '/api/v2/cameras/NAVCAM?rover=perseverance', '/api/v2/cameras/PANCAM?rover=curiosity']) {
      const res = await t.request(path)
      expect(res.status).toBe(404)
      expect((await json(res)).type).toBe('/errors/not-found')
    }
  })

  test('a `rover` that is not a rover slug is a 400 naming the parameter', async () => {
    const res = await t.request('/api/v2/cameras/NAVCAM?rover=pluto')
    expect(res.status).toBe(400)
    const body = await json(res)
    expect(body.type).toBe('/errors/validation-error')
    expect(body.errors.map((e: any) => e.parameter)).toEqual(['rover'])
    expect(body.errors[0].message).toContain('curiosity')
  })
})
