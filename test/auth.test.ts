import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { INVALID_KEY_DETAIL, MISSING_KEY_DETAIL, QUERY_KEY_DETAIL } from '../src/keys/authenticate'
import { generateKey, hashKey, isWellFormedKey } from '../src/keys/api-key'
import { makeTestApp, type TestApp } from './setup/test-app'

/** Response JSON, untyped (tests assert on its fields). */
const json = (r: Response): Promise<any> => r.json()

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
  t.app.get('/api/v2/__auth-boom', () => {
    throw new Error('failure deep inside')
  })
})
afterAll(() => t.close())

async function problem(r: Response) {
  expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8')
  return (await json(r)) as { type: string; title: string; status: number; detail: string }
}

describe('the two 401s (interface.md, Authentication 4)', () => {
  test('no X-API-Key header gives 401 /errors/unauthorized whose detail asks for the key in X-API-Key', async () => {
    const r = await t.anonymous('/api/v2')
    expect(r.status).toBe(401)
    const body = await problem(r)
    expect(body).toEqual({ type: '/errors/unauthorized', title: 'Unauthorized', status: 401, detail: MISSING_KEY_DETAIL })
    expect(body.detail).toContain('X-API-Key')
  })

  test('an empty X-API-Key header counts as missing', async () => {
    const body = await problem(await t.request('/api/v2', { headers: { 'x-api-key': '' } }))
    expect(body.detail).toBe(MISSING_KEY_DETAIL)
  })

  test('an unknown well-formed key gives 401 with the different "invalid" detail', async () => {
    const r = await t.request('/api/v2', { headers: { 'x-api-key': generateKey() } })
    expect(r.status).toBe(401)
    const body = await problem(r)
    expect(body).toEqual({ type: '/errors/unauthorized', title: 'Unauthorized', status: 401, detail: INVALID_KEY_DETAIL })
    expect(body.detail).not.toBe(MISSING_KEY_DETAIL)
    expect(body.detail).toContain('invalid')
  })

  test('malformed keys (wrong prefix, short, upper-case hex of a real key, whitespace inside) get the invalid detail', async () => {
    for (const bad of ['abc', 'mv_test_' + '0'.repeat(40), t.key.slice(0, -1), t.key.toUpperCase().replace('MV_LIVE_', 'mv_live_'), 'mv_live_ ' + '0'.repeat(39)]) {
      const r = await t.request('/api/v2', { headers: { 'x-api-key': bad } })
      expect(r.status).toBe(401)
      expect((await json(r)).detail).toBe(INVALID_KEY_DETAIL)
    }
  })

  test('the key is read from the header only: a query-string key is a 401 saying where the key goes', async () => {
    const r = await t.anonymous(`/api/v2?api_key=${t.key}&x-api-key=${t.key}`)
    expect(r.status).toBe(401)
    expect((await json(r)).detail).toBe(QUERY_KEY_DETAIL)
    // an X-API-Key-like name in the query is no key either
    const q = await t.anonymous(`/api/v2?x-api-key=${t.key}`)
    expect(q.status).toBe(401)
    expect((await json(q)).detail).toBe(MISSING_KEY_DETAIL)
  })

  test('401 answers carry no rate-limit headers and are not counted', async () => {
    expect((await t.request('/api/v2')).status).toBe(200)
    const before = t.deps.limits.peek(t.deps.keys.lookup(t.key)!.id, Date.now()) as { hourCount: number }
    const r = await t.anonymous('/api/v2')
    expect(r.headers.get('x-ratelimit-limit')).toBeNull()
    const after = t.deps.limits.peek(t.deps.keys.lookup(t.key)!.id, Date.now()) as { hourCount: number }
    expect(before.hourCount).toBeGreaterThan(0)
    expect(after.hourCount).toBe(before.hourCount)
  })

  test('unknown paths under the API need a key first (401), then 404: a path no route declares open never looks public', async () => {
    for (const path of ['/api/v2/no-such-thing', '/api/no-such-thing', '/API/v2/photos', '/xy/api/v2/photos', '/%61pi/v2/photos', '/mars-photos/api/v2']) {
      expect({ path, status: (await t.anonymous(path)).status }).toEqual({ path, status: 401 })
      expect({ path, status: (await t.request(path)).status }).toEqual({ path, status: 404 })
    }
  })

  test('a valid key is let through', async () => {
    expect((await t.request('/api/v2')).status).toBe(200)
  })

  test('/health, the OpenAPI document and its viewer need no key', async () => {
    expect((await t.anonymous('/health')).status).toBe(200)
    expect((await t.anonymous('/api/v2/openapi.json')).status).toBe(200)
    expect((await t.anonymous('/api/v2/docs')).status).toBe(200)
  })
})

describe('key lifecycle in the store', () => {
  test('a revoked key gets the invalid detail at once; regenerate gives a new working key and the old stays invalid', async () => {
    const u = await makeTestApp()
    try {
      const email = u.deps.keys.list()[0]!.email
      expect((await u.request('/api/v2')).status).toBe(200) // cached as a hit now
      const generation = u.deps.keys.generation()
      u.deps.keys.revoke(email)
      expect(u.deps.keys.generation()).toBe(generation + 1)
      const r = await u.request('/api/v2')
      expect(r.status).toBe(401)
      expect((await json(r)).detail).toBe(INVALID_KEY_DETAIL)
      const fresh = u.deps.keys.regenerate(email)
      expect((await u.request('/api/v2', { headers: { 'x-api-key': fresh } })).status).toBe(200)
      expect((await u.request('/api/v2')).status).toBe(401)
    } finally {
      await u.close()
    }
  })
})

describe('key values', () => {
  test('keys are mv_live_ + 40 lower-case hex characters (48 in all) and never repeat', () => {
    const seen = new Set<string>()
    for (let i = 0; i < 1000; i++) {
      const k = generateKey()
      expect(k).toMatch(/^mv_live_[0-9a-f]{40}$/)
      expect(k.length).toBe(48)
      expect(isWellFormedKey(k)).toBe(true)
      seen.add(k)
    }
    expect(seen.size).toBe(1000)
  })

  test('only the SHA-256 of a key is stored: the key file holds its hash and never its value', () => {
    const db = new Database(t.deps.config.keysDb, { readonly: true })
    try {
      const rows = db.query('SELECT * FROM api_keys').all() as Array<Record<string, unknown>>
      expect(rows.length).toBe(1)
      expect(rows[0]!.key_hash).toBe(new Bun.CryptoHasher('sha256').update(t.key).digest('hex'))
      expect(rows[0]!.key_hash).toBe(hashKey(t.key))
      expect(JSON.stringify(rows)).not.toContain(t.key.slice(8))
    } finally {
      db.close()
    }
  })

  test('a key is never logged, not even when a request with it fails inside the server', async () => {
    const r = await t.request('/api/v2/__auth-boom')
    expect(r.status).toBe(500)
    expect(t.logs.length).toBeGreaterThan(0)
    expect(JSON.stringify(t.logs)).not.toContain(t.key.slice(8))
  })
})
