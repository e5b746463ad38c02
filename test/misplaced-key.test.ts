import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { BEARER_KEY_DETAIL, QUERY_KEY_DETAIL } from '../src/keys/authenticate'
import { makeTestApp, type TestApp } from './setup/test-app'

/**
 * A key sent where the route never reads it gets a 401 that says where it goes (interface.md,
 * Authentication: X-API-Key; decisions.md, Keys in the URL: `api_key=` on v1 only). On /api/v2
 * `Authorization: Bearer` and `api_key=` are always that 401, even beside a valid X-API-Key, and
 * before any parameter is looked at.
 */
let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(() => t.close())

const detail = async (r: Response) => ((await r.json()) as { detail: string }).detail
const BEARER = 'Bearer mv_live_' + 'c'.repeat(40)

describe('on /api/v2', () => {
  test('Authorization: Bearer, with or without a valid X-API-Key, is a 401 pointing at X-API-Key, uncounted, the token never echoed', async () => {
    for (const path of ['/api/v2', '/api/v2/photos?per_page=1', '/api/v2/rovers/curiosity', '/api/v2/no-such-thing']) {
      for (const headers of [{ authorization: BEARER }, { authorization: BEARER, 'x-api-key': t.key }, { authorization: 'bearer  x' }] as Array<Record<string, string>>) {
        const r = await t.anonymous(path, { headers })
        expect({ path, headers, status: r.status }).toEqual({ path, headers, status: 401 })
        expect(r.headers.get('x-ratelimit-limit')).toBeNull()
        const text = await r.text()
        expect(text).not.toContain('c'.repeat(40))
        expect(JSON.parse(text).detail).toBe(BEARER_KEY_DETAIL)
      }
    }
    // another scheme is no key in the wrong place: the usual answers
    expect((await t.request('/api/v2', { headers: { authorization: 'Basic dTpw' } })).status).toBe(200)
    expect((await t.anonymous('/api/v2', { headers: { authorization: 'Basic dTpw' } })).status).toBe(401)
  })

  test('api_key= (any case), with or without a valid X-API-Key, is a 401 saying it works on v1 only', async () => {
    for (const q of [`api_key=${t.key}`, `API_KEY=${t.key}`, 'Api_Key=nonsense', `api%5Fkey=${t.key}`]) {
      for (const headers of [{}, { 'x-api-key': t.key }] as Array<Record<string, string>>) {
        const r = await t.anonymous(`/api/v2/photos?per_page=1&${q}`, { headers })
        expect({ q, headers, status: r.status }).toEqual({ q, headers, status: 401 })
        const text = await r.text()
        expect(text).not.toContain(t.key)
        expect(JSON.parse(text).detail).toBe(QUERY_KEY_DETAIL)
      }
    }
  })

  test('checked before parameters: a bad value or an unknown name beside a misplaced key is still the 401', async () => {
    for (const q of ['sol=abc', 'rover=curiosity', 'per_page=0']) {
      const a = await t.request(`/api/v2/photos?${q}&api_key=${t.key}`)
      expect({ q, status: a.status, detail: await detail(a) }).toEqual({ q, status: 401, detail: QUERY_KEY_DETAIL })
      const b = await t.request(`/api/v2/photos?${q}`, { headers: { 'x-api-key': t.key, authorization: BEARER } })
      expect({ q, status: b.status, detail: await detail(b) }).toEqual({ q, status: 401, detail: BEARER_KEY_DETAIL })
    }
  })

  test('a revalidation the edge would answer (URL already routed) with a Bearer header is the 401, not a 304', async () => {
    const url = '/api/v2/photos?rovers=opportunity&per_page=3'
    const etag = (await t.request(url)).headers.get('etag')!
    expect((await t.request(url, { headers: { 'if-none-match': etag } })).status).toBe(304)
    expect((await t.request(url, { headers: { 'if-none-match': etag } })).status).toBe(304)
    const r = await t.request(url, { headers: { 'if-none-match': etag, authorization: BEARER } })
    expect(r.status).toBe(401)
    expect(await detail(r)).toBe(BEARER_KEY_DETAIL)
  })

  test('the open routes ignore credentials they do not need', async () => {
    for (const path of ['/api/v2/openapi.json', '/api/v2/docs', '/health']) expect((await t.anonymous(path, { headers: { authorization: BEARER } })).status).toBe(200)
  })
})

describe('on v1', () => {
  test('a Bearer credential alone gets the 401 pointing at X-API-Key; beside a key v1 reads (api_key= or X-API-Key) it is let through', async () => {
    const alone = await t.anonymous('/api/v1/rovers', { headers: { authorization: BEARER } })
    expect(alone.status).toBe(401)
    expect(await detail(alone)).toBe(BEARER_KEY_DETAIL)
    expect((await t.anonymous(`/api/v1/rovers?api_key=${t.key}`, { headers: { authorization: BEARER } })).status).toBe(200)
    expect((await t.anonymous('/mars-photos/api/v1/rovers', { headers: { authorization: BEARER, 'x-api-key': t.key } })).status).toBe(200)
  })
})
