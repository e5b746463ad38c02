import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Store } from '../src/store/store'
import { makeTestApp, testStore, type TestApp } from './setup/test-app'
import { parsePhotoQuery, photoOutputOf } from '../src/query/params/photo-params'
import { DEFAULT_OUTPUT } from '../src/query/params/photo-fields'

/**
 * POST /api/v2/photos/batch through the assembled app (decisions.md, Other endpoints): 1 to 100
 * int32 ids, photos in request order, a repeated id once, unknown ids skipped and listed; the
 * output parameters apply; every bad body is a 400 naming the problem; a non-JSON body is 415
 * and an oversized one 413.
 */
let t: TestApp
let store: Store
let ids: number[]

beforeAll(async () => {
  store = await testStore()
  t = await makeTestApp()
  const p = store.photos
  ids = [p.id[0], p.id[Math.floor(p.length / 2)], p.id[p.length - 1], p.id[17]]
})
afterAll(() => t.close())

const post = (body: unknown, query = '', headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  t.request(`/api/v2/photos/batch${query}`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) })

describe('batch: results', () => {
  test('photos come in request order, a repeated id once, unknown ids skipped and listed in meta', async () => {
    const res = await post({ ids: [ids[2], 5, ids[0], ids[2], ids[1], -3, ids[0]] })
    expect(res.status).toBe(200)
    const body = await res.json() as any
    expect(body.data.map((p: { id: number }) => p.id)).toEqual([ids[2], ids[0], ids[1]])
    expect(body.meta.total_count).toBe(3)
    expect(body.meta.returned_count).toBe(3)
    expect(body.meta.ids_requested).toBe(5)
    expect(body.meta.ids_found).toBe(3)
    expect(body.meta.ids_missing).toEqual([5, -3])
    expect(body.links.self).toBe('http://localhost/api/v2/photos/batch')
    expect(Date.parse(body.meta.timestamp)).toBeGreaterThan(0)
  })

  test('100 ids with many repeats (int32 extremes, zero, negatives, ids sharing low bits) keep exactly their first occurrences in order', async () => {
    const pool = [2147483647, -2147483648, 0, -1, 256, 512, 65536, 131072, ids[0], ids[1], ids[2], ids[3]]
    const asked: number[] = []
    for (let i = 0; asked.length < 100; i++) asked.push(pool[(i * 7 + (i >> 2)) % pool.length])
    const firsts = asked.filter((v, i) => asked.indexOf(v) === i)
    const body = await (await post({ ids: asked })).json() as any
    expect(body.meta.ids_requested).toBe(firsts.length)
    const exists = (v: number) => store.paths.rowOfId(v) >= 0
    expect(firsts.filter(exists).length).toBeGreaterThanOrEqual(4)
    expect(body.data.map((p: { id: number }) => p.id)).toEqual(firsts.filter(exists))
    expect(body.meta.ids_missing).toEqual(firsts.filter((v) => !exists(v)))
  })

  test('each photo is the same object GET /photos/{id} returns', async () => {
    const body = await (await post({ ids: ids.slice(0, 3) })).json() as any
    for (const photo of body.data) {
      const one = await (await t.request(`/api/v2/photos/${photo.id}`)).json() as any
      expect(photo).toEqual(one.data)
    }
  })

  test('exactly 100 ids are accepted; nothing found is 200 with empty data', async () => {
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1)
    const res = await post({ ids: hundred })
    expect(res.status).toBe(200)
    const body = await res.json() as any
    expect(body.meta.ids_requested).toBe(100)
    expect(body.meta.ids_found + body.meta.ids_missing.length).toBe(100)
    const none = await (await post({ ids: [2147483647] })).json() as any
    expect(none.data).toEqual([])
    expect(none.meta.ids_missing).toEqual([2147483647])
  })

  test('output parameters of the query string apply (fields, include, exclude_images)', async () => {
    const body = await (await post({ ids: [ids[0]] }, '?fields=sol,earth_date&include=rover')).json() as any
    expect(Object.keys(body.data[0].attributes).sort()).toEqual(['earth_date', 'sol'])
    expect(body.data[0].relationships.rover.type).toBe('rover')
    const noImages = await (await post({ ids: [ids[0]] }, '?exclude_images=true')).json() as any
    expect(noImages.data[0].attributes.images).toBeUndefined()
  })

  test('without a query string the validator is skipped and the default output is what it would have given; a body problem is still a 400', () => {
    // The by-id answers take this shortcut (photoOutputOf): it holds only while the validator's
    // output for an empty query is DEFAULT_OUTPUT.
    expect(parsePhotoQuery(new URLSearchParams(''), store).output).toEqual(DEFAULT_OUTPUT)
    expect(photoOutputOf(new URLSearchParams(''), store, [])).toBe(DEFAULT_OUTPUT)
    expect(photoOutputOf(new URLSearchParams('&&'), store, [])).toBe(DEFAULT_OUTPUT)
    expect(() => photoOutputOf(new URLSearchParams(''), store, [{ parameter: 'ids', message: 'is required' }])).toThrow()
    expect(photoOutputOf(new URLSearchParams('fields=sol'), store, [])).toEqual(parsePhotoQuery(new URLSearchParams('fields=sol'), store).output)
  })

  test('other keys of the body are ignored', async () => {
    const res = await post({ ids: [ids[0]], note: 'x', nested: { a: [1, 2] } })
    expect(res.status).toBe(200)
  })
})

describe('batch: refusals', () => {
  const bad: Array<[string, unknown, string]> = [
    ['no ids', {}, 'ids'],
    ['empty ids', { ids: [] }, 'ids'],
    ['101 ids', { ids: Array.from({ length: 101 }, (_, i) => i) }, 'ids'],
    ['ids not an array', { ids: '1,2' }, 'ids'],
    ['a string id', { ids: [1, '2'] }, 'ids'],
    ['a fractional id', { ids: [1.5] }, 'ids'],
    ['an id beyond int32', { ids: [2147483648] }, 'ids'],
    ['null id', { ids: [null] }, 'ids'],
    ['body is an array', [1, 2], 'body'],
    ['body is a number', 7, 'body'],
    ['body is null', null, 'body'],
  ]
  for (const [name, body, parameter] of bad) {
    test(`${name}: 400 naming ${parameter}`, async () => {
      const res = await post(body)
      expect(res.status).toBe(400)
      const p = await res.json() as any
      expect(p.type).toBe('/errors/validation-error')
      expect(p.errors.map((e: { parameter: string }) => e.parameter)).toEqual([parameter])
    })
  }

  test('invalid JSON and an empty body: 400 naming body', async () => {
    for (const raw of ['{"ids": [1,', '', '   ']) {
      const res = await post(raw)
      expect(res.status).toBe(400)
      expect((await res.json() as any).errors[0].parameter).toBe('body')
    }
  })

  test('a body that is not JSON, or no content type: 415', async () => {
    expect((await post('ids=1', '', { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(415)
    expect((await post('{"ids":[1]}', '', { 'content-type': 'text/plain' })).status).toBe(415)
    const res = await t.request('/api/v2/photos/batch', { method: 'POST', body: new Blob(['{"ids":[1]}']) })
    expect(res.status).toBe(415)
    expect((await res.json() as any).type).toBe('/errors/unsupported-media-type')
  })

  test('a JSON body over config.maxBodyBytes: 413, also when it comes without Content-Length', async () => {
    const big = JSON.stringify({ ids: [1], pad: 'x'.repeat(t.deps.config.maxBodyBytes) })
    expect((await post(big)).status).toBe(413)
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(big))
        c.close()
      },
    })
    const res = await t.request('/api/v2/photos/batch', { method: 'POST', headers: { 'content-type': 'application/json' }, body: stream })
    expect(res.status).toBe(413)
  })

  test('an invalid query string is a 400 too (the photo validator runs), with the body problem in the same answer', async () => {
    const res = await post({ ids: [] }, '?include=planet')
    expect(res.status).toBe(400)
    const p = await res.json() as any
    expect(p.errors.map((e: { parameter: string }) => e.parameter).sort()).toEqual(['ids', 'include'])
  })
})
