import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Store } from '../src/store/store'
import { makeTestApp, testStore, type TestApp } from './setup/test-app'

/**
 * GET /api/v2/photos/{id} through the assembled app (interface; behaviour.md §9): int32 path
 * id (else 400 naming `id`), unknown id 404, `{data, links: {self}}`, output parameters apply,
 * filters do not, and the whole list validator runs on the query.
 */
let t: TestApp
let store: Store
let id: number

beforeAll(async () => {
  store = await testStore()
  t = await makeTestApp()
  id = store.photos.id[0]
})
afterAll(() => t.close())

const get = (path: string) => t.request(`/api/v2/photos/${path}`)

describe('photo by id', () => {
  test('a known id: 200 with {data, links.self} and the same photo the list gives', async () => {
    const res = await get(String(id))
    expect(res.status).toBe(200)
    const body = await res.json() as any
    expect(Object.keys(body)).toEqual(['data', 'links'])
    expect(body.data.id).toBe(id)
    expect(body.data.type).toBe('photo')
    expect(body.links.self).toBe(`http://localhost/api/v2/photos/${id}`)
    const list = await (await t.request('/api/v2/photos?per_page=1')).json() as any
    expect(list.data[0]).toEqual(body.data)
  })

  test('every id of the index resolves (sampled every 97th row)', async () => {
    for (let r = 0; r < store.photos.length; r += 97) {
      const res = await get(String(store.photos.id[r]))
      expect(res.status).toBe(200)
      expect((await res.json() as any).data.id).toBe(store.photos.id[r])
    }
  })

  test('unknown, zero and negative ids: 404 not-found naming the id', async () => {
    for (const bad of ['1', '0', '-5', '2147483647', '-2147483648']) {
      if (store.paths.rowOfId(Number(bad)) >= 0) continue
      const res = await get(bad)
      expect(res.status).toBe(404)
      const p = await res.json() as any
      expect(p.type).toBe('/errors/not-found')
      expect(p.detail).toContain(String(Number(bad)))
    }
  })

  test('ids that are not int32 integers, or not percent-decodable: 400 naming id', async () => {
    for (const bad of ['abc', '1.5', '1e3', '2147483648', '-2147483649', '99999999999999999999', '0x10', '%20', 'null', '%', '%zz', '%E0%A4%A']) {
      const res = await get(bad)
      expect(res.status).toBe(400)
      const p = await res.json() as any
      expect(p.type).toBe('/errors/validation-error')
      expect(p.errors.map((e: { parameter: string }) => e.parameter)).toEqual(['id'])
    }
  })

  test('output parameters shape the photo: fields, include, image_sizes, field_set', async () => {
    const body = await (await get(`${id}?fields=sol&include=rover,camera`)).json() as any
    expect(Object.keys(body.data.attributes)).toEqual(['sol'])
    // stereo and sequence come first on a photo that has them, whatever the output parameters
    expect(Object.keys(body.data.relationships).filter((k) => k !== 'stereo' && k !== 'sequence')).toEqual(['rover', 'camera'])
    const minimal = await (await get(`${id}?field_set=minimal`)).json() as any
    expect(Object.keys(minimal.data.attributes).every((k) => ['sol', 'earth_date', 'images'].includes(k))).toBe(true)
  })

  test('filters do not apply to the lookup, but they are validated', async () => {
    const other = store.photos.rover[0] === 3 ? 'curiosity' : 'spirit'
    expect((await get(`${id}?rovers=${other}&sol=2147483647`)).status).toBe(200)
    const res = await get(`${id}?rovers=pluto&per_page=0`)
    expect(res.status).toBe(400)
    expect((await res.json() as any).errors.map((e: { parameter: string }) => e.parameter).sort()).toEqual(['per_page', 'rovers'])
  })

  test('a bad id and a bad query are reported together', async () => {
    const res = await get('x?include=planet')
    expect(res.status).toBe(400)
    expect((await res.json() as any).errors.map((e: { parameter: string }) => e.parameter).sort()).toEqual(['id', 'include'])
  })
})
