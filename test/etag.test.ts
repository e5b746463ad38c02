import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { entityTag, ifNoneMatchMatches } from '../src/http/entity-tag'
import { requestKey } from '../src/http/request-key'
import { JsonBody } from '../src/http/json-body'
import { makeTestApp, type TestApp } from './setup/test-app'

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
  t.app.get('/api/v2/__thing', () => new JsonBody('{"data":1}'))
  t.app.post('/api/v2/__thing', () => new JsonBody('{"data":2}'))
  t.app.get('/api/v2/__gone', () => {
    throw new Error('x')
  })
})
afterAll(() => t.close())

const remaining = (r: Response) => Number(r.headers.get('x-ratelimit-remaining'))

describe('ETag on GET resources (RFC 9110 §8.8.3)', () => {
  test('a keyed GET answer carries a weak ETag and Cache-Control', async () => {
    const r = await t.request('/api/v2')
    expect(r.status).toBe(200)
    expect(r.headers.get('etag')).toMatch(/^W\/"[^"]+"$/)
    expect(r.headers.get('cache-control')).toBe('private, max-age=3600, must-revalidate')
  })

  test('the tag depends on the query exactly as the parsers read it: names as sent, values in order', async () => {
    const a = (await t.request('/api/v2/__thing?a=1&b=2')).headers.get('etag')
    const b = (await t.request('/api/v2/__thing?a=1&b=2')).headers.get('etag')
    const c = (await t.request('/api/v2/__thing?a=1&b=3')).headers.get('etag')
    const d = (await t.request('/api/v2/__thing')).headers.get('etag')
    const upper = (await t.request('/api/v2/__thing?A=1&b=2')).headers.get('etag')
    const swapped = (await t.request('/api/v2/__thing?a=2&a=1')).headers.get('etag')
    const first = (await t.request('/api/v2/__thing?a=1&a=2')).headers.get('etag')
    expect(a).not.toBeNull()
    expect(a).toBe(b)
    expect(c).not.toBe(a)
    expect(d).not.toBe(a)
    expect(upper).not.toBe(a)
    expect(swapped).not.toBe(first)
  })

  test('it is the documented function of index version, origin and request key', async () => {
    const r = await t.request('/api/v2/__thing?x=1')
    expect(r.headers.get('etag')).toBe(entityTag(t.deps.stores.current.version, 'http://localhost', requestKey('GET', '/api/v2/__thing', new URLSearchParams('x=1'))))
  })
})

describe('If-None-Match (RFC 9110 §13.1.2)', () => {
  test('a current tag gives 304 with no body, the ETag and rate-limit headers, and is not counted', async () => {
    const first = await t.request('/api/v2/__thing?q=1')
    const tag = first.headers.get('etag')!
    const left = remaining(first)
    for (let i = 0; i < 3; i++) {
      const r = await t.request('/api/v2/__thing?q=1', { headers: { 'if-none-match': tag } })
      expect(r.status).toBe(304)
      expect(await r.text()).toBe('')
      expect(r.headers.get('etag')).toBe(tag)
      expect(r.headers.get('cache-control')).toBe('private, max-age=3600, must-revalidate')
      expect(r.headers.get('x-ratelimit-limit')).toBe('10000')
      expect(remaining(r)).toBe(left)
    }
    expect(remaining(await t.request('/api/v2')) ).toBe(left - 1)
  })

  test('`*`, a list holding the tag, and the strong form of the weak tag all match (weak comparison)', async () => {
    const tag = (await t.request('/api/v2/__thing?q=2')).headers.get('etag')!
    const strong = tag.slice(2)
    for (const inm of ['*', `"nope", ${tag}, "other"`, strong, ` ${tag} `]) {
      const r = await t.request('/api/v2/__thing?q=2', { headers: { 'if-none-match': inm } })
      expect(r.status).toBe(304)
    }
  })

  test('another tag, or the tag of another request, gives the full 200', async () => {
    const tag = (await t.request('/api/v2/__thing?q=3')).headers.get('etag')!
    expect((await t.request('/api/v2/__thing?q=3', { headers: { 'if-none-match': 'W/"x"' } })).status).toBe(200)
    expect((await t.request('/api/v2/__thing?q=4', { headers: { 'if-none-match': tag } })).status).toBe(200)
  })

  test('a new index changes every tag: the old one no longer matches', async () => {
    const u = await makeTestApp()
    try {
      u.app.get('/api/v2/__thing', () => new JsonBody('{"data":1}'))
      const old = (await u.request('/api/v2/__thing')).headers.get('etag')!
      const rootOld = (await u.request('/api/v2')).headers.get('etag')!
      const current = u.deps.stores.current
      u.deps.stores.swap({ ...current, version: current.version + '-rebuilt' })
      const r = await u.request('/api/v2/__thing', { headers: { 'if-none-match': old } })
      expect(r.status).toBe(200)
      expect(r.headers.get('etag')).not.toBe(old)
      expect((await u.request('/api/v2')).headers.get('etag')).not.toBe(rootOld)
    } finally {
      await u.close()
    }
  })

  test('If-None-Match never turns an unknown path, an unauthenticated call or an error into a 304', async () => {
    expect((await t.request('/api/v2/nothing', { headers: { 'if-none-match': '*' } })).status).toBe(404)
    expect((await t.anonymous('/api/v2', { headers: { 'if-none-match': '*' } })).status).toBe(401)
    const e = await t.request('/api/v2/__gone')
    expect(e.status).toBe(500)
    expect(e.headers.get('etag')).toBeNull()
  })

  test('POST answers get no ETag', async () => {
    const r = await t.request('/api/v2/__thing', { method: 'POST', headers: { 'if-none-match': '*' } })
    expect(r.status).toBe(200)
    expect(r.headers.get('etag')).toBeNull()
  })
})

describe('ifNoneMatchMatches (unit)', () => {
  const tag = 'W/"v1-abc"'
  test('parses lists of weak and strong tags, including commas inside quotes', () => {
    expect(ifNoneMatchMatches('W/"v1-abc"', tag)).toBe(true)
    expect(ifNoneMatchMatches('"v1-abc"', tag)).toBe(true)
    expect(ifNoneMatchMatches('"a,b", W/"v1-abc"', tag)).toBe(true)
    expect(ifNoneMatchMatches('"a,W/"', tag)).toBe(false)
    expect(ifNoneMatchMatches('v1-abc', tag)).toBe(false)
    expect(ifNoneMatchMatches('"v1-abc', tag)).toBe(false)
    expect(ifNoneMatchMatches('', tag)).toBe(false)
    expect(ifNoneMatchMatches('*', tag)).toBe(true)
  })

  test('a listed tag matches only when every character of the opaque tag is equal: no prefix, suffix or same-length neighbour', () => {
    expect(ifNoneMatchMatches('W/"v1-ab"', tag)).toBe(false)
    expect(ifNoneMatchMatches('W/"v1-abcd"', tag)).toBe(false)
    expect(ifNoneMatchMatches('W/"v1-abd"', tag)).toBe(false)
    expect(ifNoneMatchMatches('W/"w1-abc"', tag)).toBe(false)
    expect(ifNoneMatchMatches('W/"v1-abd", W/"v1-abc"', tag)).toBe(true)
    expect(ifNoneMatchMatches('W/"v1-abc""', tag)).toBe(true)
    expect(ifNoneMatchMatches('"v1-abc"', '"v1-abc"')).toBe(true)
    expect(ifNoneMatchMatches('W/"v1-abc"', '"v1-abc"')).toBe(true)
    expect(ifNoneMatchMatches('"v1-abC"', '"v1-abc"')).toBe(false)
  })
})

describe('requestKey (unit)', () => {
  test('method upper-cased, path lower-cased without trailing slash, parameters sorted', () => {
    expect(requestKey('get', '/api/v2/photos', new URLSearchParams('sol=1&rovers=curiosity'))).toBe('GET /api/v2/photos?sol=1&rovers=curiosity')
    expect(requestKey('GET', '/api/v2/photos', new URLSearchParams())).toBe('GET /api/v2/photos')
    expect(requestKey('GET', '/x', new URLSearchParams('a=1&a=0'))).not.toBe(requestKey('GET', '/x', new URLSearchParams('a=0&a=1')))
    expect(requestKey('GET', '/x', new URLSearchParams('ROVERS=a'))).not.toBe(requestKey('GET', '/x', new URLSearchParams('rovers=a')))
    expect(requestKey('GET', '/x', new URLSearchParams('a=1%26b%3D2'))).not.toBe(requestKey('GET', '/x', new URLSearchParams('a=1&b=2')))
  })
})
