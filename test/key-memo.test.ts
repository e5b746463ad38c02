import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KeyStore } from '../src/keys/key-store'
import { KeyLookupCache } from '../src/keys/lookup-cache'
import { makeTestApp, type TestApp } from './setup/test-app'

/**
 * The lookup cache keeps the records of recently presented key values (src/keys/lookup-cache.ts)
 * so a repeated key skips the SHA-256. A change to a key (revoke, regenerate, new limits) must
 * still take effect at once, on the edge's revalidations as on every other answer.
 */
let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(() => t.close())

const PATH = '/api/v2/photos?rovers=curiosity&per_page=2'

describe('key values remembered by the lookup cache', () => {
  test('a key revoked in this process is refused on the very next request, a revalidation at the edge included', async () => {
    const u = await makeTestApp()
    try {
      const email = u.deps.keys.list()[0]!.email
      const etag = (await u.request(PATH)).headers.get('etag')!
      expect((await u.request(PATH, { headers: { 'if-none-match': etag } })).status).toBe(304) // routed: the next one is answered at the edge
      expect((await u.request(PATH, { headers: { 'if-none-match': etag } })).status).toBe(304)
      u.deps.keys.revoke(email)
      expect((await u.request(PATH, { headers: { 'if-none-match': etag } })).status).toBe(401)
      expect((await u.request(PATH)).status).toBe(401)
      const fresh = u.deps.keys.regenerate(email)
      expect((await u.request(PATH, { headers: { 'x-api-key': fresh } })).status).toBe(200)
      expect((await u.request(PATH, { headers: { 'if-none-match': etag } })).status).toBe(401) // the old value stays refused
    } finally {
      await u.close()
    }
  })

  test('new operator limits show on the very next answer, a revalidation at the edge included', async () => {
    const email = t.deps.keys.list()[0]!.email
    const etag = (await t.request(PATH)).headers.get('etag')!
    await t.request(PATH, { headers: { 'if-none-match': etag } })
    expect((await t.request(PATH, { headers: { 'if-none-match': etag } })).headers.get('x-ratelimit-limit')).toBe('10000')
    t.deps.keys.setLimits(email, { hourly: 77 })
    const r = await t.request(PATH, { headers: { 'if-none-match': etag } })
    expect(r.status).toBe(304)
    expect(r.headers.get('x-ratelimit-limit')).toBe('77')
    t.deps.keys.setLimits(email, { hourly: null })
    expect((await t.request(PATH, { headers: { 'if-none-match': etag } })).headers.get('x-ratelimit-limit')).toBe('10000')
  })

  test('a key revoked by another process sharing the key file is refused by this one within its change check (milliseconds)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mv-keys-')), 'keys.sqlite')
    const here = KeyStore.open(file)
    const there = KeyStore.open(file)
    try {
      const key = here.create('other@example.org')
      expect(here.lookup(key)).toBeDefined()
      expect(here.lookup(key)).toBeDefined() // remembered by value now
      there.revoke('other@example.org')
      const started = performance.now()
      while (here.lookup(key) !== undefined && performance.now() - started < 1000) await Bun.sleep(1)
      expect(here.lookup(key)).toBeUndefined()
      expect(performance.now() - started).toBeLessThan(100)
    } finally {
      here.close()
      there.close()
    }
  })
})

describe('KeyLookupCache by value (unit)', () => {
  const record = { id: 1, email: 'a@example.org', limits: {} }
  test('a remembered value answers until its TTL, then no longer; clear() forgets every value at once', () => {
    const c = new KeyLookupCache(10, 1000)
    c.remember('mv_live_a', record, 5000)
    expect(c.presented('mv_live_a', 5999)).toBe(record)
    expect(c.presented('mv_live_b', 5999)).toBeUndefined()
    expect(c.presented('mv_live_a', 6000)).toBeUndefined()
    expect(c.presented('mv_live_a', 5500)).toBeUndefined() // expired entries are dropped, not revived
    c.remember('mv_live_a', record, 7000)
    c.clear()
    expect(c.presented('mv_live_a', 7001)).toBeUndefined()
  })

  test('bounded: past its entries it starts over instead of growing', () => {
    const c = new KeyLookupCache(3, 1000)
    for (const k of ['k1', 'k2', 'k3']) c.remember(k, record, 0)
    expect(c.presented('k1', 1)).toBe(record)
    c.remember('k4', record, 0)
    expect(c.presented('k1', 1)).toBeUndefined()
    expect(c.presented('k4', 1)).toBe(record)
  })
})
