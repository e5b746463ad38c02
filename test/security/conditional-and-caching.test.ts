import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { makeTestApp, type TestApp } from '../setup/test-app'

/**
 * - `If-None-Match: *` is true only for a valid request whose resource exists (RFC 9110 §13.1.2;
 *   decisions.md, ETag and `*`): it once gave 304 for an unknown photo id and for a bad query.
 * - Keyed answers are `private` (decisions.md, Cache-Control): `public` let a shared cache hand
 *   one client's answer, its rate-limit figures included, to requests without a key.
 * - 405 lists every method the path serves, HEAD wherever GET is (decisions.md, Allow).
 * - The OpenAPI document is built once, not per Host (rotating Host rebuilt it per request).
 */
let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(() => t.close())

const remaining = (r: Response) => Number(r.headers.get('x-ratelimit-remaining'))

describe('If-None-Match: *', () => {
  test('an unknown photo id stays 404, and an invalid query stays 400', async () => {
    expect((await t.request('/api/v2/photos/999999999', { headers: { 'if-none-match': '*' } })).status).toBe(404)
    expect((await t.request('/api/v2/photos?sol_min=abc', { headers: { 'if-none-match': '*' } })).status).toBe(400)
    expect((await t.request('/api/v2/rovers/nope', { headers: { 'if-none-match': '*' } })).status).toBe(404)
    expect((await t.request('/api/v2/no-such-thing', { headers: { 'if-none-match': '*' } })).status).toBe(404)
  })

  test('an existing resource with a valid query is 304 with its validators, and the 304 is not counted', async () => {
    const first = await t.request('/api/v2/photos?rovers=spirit&per_page=1')
    const left = remaining(first)
    const r = await t.request('/api/v2/photos?rovers=spirit&per_page=1', { headers: { 'if-none-match': '*' } })
    expect(r.status).toBe(304)
    expect(await r.text()).toBe('')
    expect(r.headers.get('etag')).toBe(first.headers.get('etag'))
    const after = await t.request('/api/v2/rovers')
    expect(remaining(after)).toBe(left - 1)
  })

  test('a 404 or 400 answered to `*` is counted like any answered call', async () => {
    const before = remaining(await t.request('/api/v2/rovers'))
    await t.request('/api/v2/photos/999999999', { headers: { 'if-none-match': '*' } })
    await t.request('/api/v2/photos?sol_min=abc', { headers: { 'if-none-match': '*' } })
    await Bun.sleep(10)
    expect(remaining(await t.request('/api/v2/rovers'))).toBe(before - 3)
  })
})

describe('Cache-Control on keyed answers', () => {
  test('every keyed GET route answers private with the max-age of behaviour.md, never public; the 304 too', async () => {
    for (const [path, maxAge] of [['/api/v2/photos?per_page=1', 3600], ['/api/v2/photos/stats', 3600], ['/api/v2/rovers', 86400], ['/api/v2/rovers/spirit', 3600], ['/api/v2/cameras', 3600], ['/api/v2/locations', 3600], ['/api/v2', 3600]] as const) {
      const r = await t.request(path)
      expect({ path, status: r.status }).toEqual({ path, status: 200 })
      expect({ path, cc: r.headers.get('cache-control') }).toEqual({ path, cc: `private, max-age=${maxAge}, must-revalidate` })
      const again = await t.request(path, { headers: { 'if-none-match': r.headers.get('etag')! } })
      expect(again.status).toBe(304)
      expect(again.headers.get('cache-control')).toBe(`private, max-age=${maxAge}, must-revalidate`)
    }
  })

  test('the unkeyed OpenAPI document may stay public: it is the same for everyone', async () => {
    expect((await t.anonymous('/api/v2/openapi.json')).headers.get('cache-control')).toContain('public')
  })
})

describe('405 and Allow', () => {
  test('a GET path answers 405 to DELETE with Allow: GET, HEAD', async () => {
    for (const path of ['/api/v2/photos', '/api/v2/rovers', '/api/v2', '/api/v2/photos/stats']) {
      const r = await t.request(path, { method: 'DELETE' })
      expect({ path, status: r.status, allow: r.headers.get('allow') }).toEqual({ path, status: 405, allow: 'GET, HEAD' })
    }
  })

  test('the POST-only batch path answers 405 to GET with Allow: POST', async () => {
    const r = await t.request('/api/v2/photos/batch')
    expect(r.status).toBe(405)
    expect(r.headers.get('allow')).toBe('POST')
  })
})

describe('the OpenAPI document is built once', () => {
  test('the same bytes whatever the Host, with a relative server URL', async () => {
    const texts = new Set<string>()
    for (const host of ['a', 'b.example', 'c.example:8080', 'localhost']) {
      const r = await t.app.handle(new Request(`http://${host}/api/v2/openapi.json`))
      expect(r.status).toBe(200)
      texts.add(await r.text())
    }
    expect(texts.size).toBe(1)
    const doc = JSON.parse([...texts][0]!) as { servers: Array<{ url: string }> }
    expect(doc.servers[0]!.url.startsWith('/')).toBe(true)
  })

  test('rotating Host over 200 requests gives one and the same document each time', async () => {
    const sizes = new Set<number>()
    for (let i = 0; i < 200; i++) sizes.add((await (await t.app.handle(new Request(`http://h${i}.example/api/v2/openapi.json`))).text()).length)
    expect(sizes.size).toBe(1)
  })
})
