import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KeyStore } from '../src/keys/key-store'
import { addressBucket, clientAddress, FailedAuthThrottle } from '../src/limits/failed-auth-throttle'
import { makeTestApp, spawnServer, type TestApp } from './setup/test-app'

/**
 * Failed auth attempts from one address are limited (docs/reliability.md, "Key guessing"):
 * past AUTH_FAIL_LIMIT unknown-key attempts per window, that address gets 429 with Retry-After;
 * valid keys from the same address, and other addresses, are unaffected.
 */
const UNKNOWN = 'mv_live_' + '0'.repeat(40)
const json = (r: Response): Promise<any> => r.json()

describe('FailedAuthThrottle', () => {
  test('allows `limit` failures per window, refuses the next ones with the seconds left, and forgets them when the window ends', () => {
    const t = new FailedAuthThrottle({ limit: 3, windowMs: 60_000 })
    const t0 = 1_000_000
    expect([t.fail('a', t0), t.fail('a', t0 + 1), t.fail('a', t0 + 2)]).toEqual([undefined, undefined, undefined])
    expect(t.fail('a', t0 + 10_000)).toBe(50)
    expect(t.firstRefusal('a')).toBe(true)
    expect(t.fail('a', t0 + 59_500)).toBe(1)
    expect(t.firstRefusal('a')).toBe(false)
    expect(t.fail('b', t0 + 10_000)).toBeUndefined() // another address has its own count
    expect(t.fail('a', t0 + 60_000)).toBeUndefined() // a new window
  })

  test('limit 0 turns it off', () => {
    const t = new FailedAuthThrottle({ limit: 0, windowMs: 60_000 })
    for (let i = 0; i < 1000; i++) expect(t.fail('a', i)).toBeUndefined()
    expect(t.enabled).toBe(false)
  })

  test('tracks at most maxAddresses addresses, dropping the oldest window first', () => {
    const t = new FailedAuthThrottle({ limit: 1, windowMs: 60_000, maxAddresses: 100 })
    for (let i = 0; i < 10_000; i++) t.fail(`10.0.${i >> 8}.${i & 255}`, 1000 + i)
    expect(t.size).toBe(100)
    t.fail('10.0.39.15', 20_000) // the newest one is still tracked: its second failure is refused
    expect(t.fail('10.0.39.15', 20_001)).toBeGreaterThan(0)
  })

  test('addresses: IPv4-mapped IPv6 is IPv4, other IPv6 counts per /64, X-Forwarded-For only with a trusted proxy (its last entry)', () => {
    expect(addressBucket('::ffff:127.0.0.1')).toBe('127.0.0.1')
    expect(addressBucket('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64')
    expect(addressBucket('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64')
    expect(addressBucket('2001:db8::1')).toBe('2001:db8:0:0::/64')
    expect(addressBucket('::1')).toBe('0:0:0:0::/64')
    expect(addressBucket('[fe80::1%eth0]')).toBe('fe80:0:0:0::/64')
    expect(clientAddress('10.0.0.1', '198.51.100.9, 203.0.113.7', true)).toBe('203.0.113.7')
    expect(clientAddress('10.0.0.1', '198.51.100.9, 203.0.113.7', false)).toBe('10.0.0.1')
    expect(clientAddress(undefined, null, true)).toBeUndefined()
  })
})

describe('through the app (X-Forwarded-For with TRUST_PROXY)', () => {
  const apps: TestApp[] = []
  afterAll(async () => {
    for (const a of apps) await a.close()
  })
  let now = Date.UTC(2026, 0, 1, 12, 0, 0)
  const from = (ip: string, key?: string): RequestInit => ({ headers: { 'x-forwarded-for': `192.0.2.1, ${ip}`, ...(key !== undefined ? { 'x-api-key': key } : {}) } })

  test('after 5 unknown keys from one address the 6th gets a 429 problem with Retry-After; valid keys and other addresses are unaffected', async () => {
    const t = await makeTestApp({ trustProxy: true, authFailLimit: 5, authFailWindowS: 60, clock: () => now })
    apps.push(t)
    for (let i = 0; i < 5; i++) expect((await t.anonymous('/api/v2/rovers', from('203.0.113.7', UNKNOWN))).status).toBe(401)
    const refused = await t.anonymous('/api/v2/rovers', from('203.0.113.7', UNKNOWN))
    expect(refused.status).toBe(429)
    const body = await json(refused)
    expect(body).toMatchObject({ type: '/errors/rate-limit-exceeded', title: 'Rate Limit Exceeded', status: 429, retryAfter: 60 })
    expect(body.detail).toContain('invalid API key')
    expect(refused.headers.get('retry-after')).toBe('60')
    expect(t.logs.filter((l) => l.event === 'auth.throttled')).toHaveLength(1)

    expect((await t.anonymous('/api/v2/rovers', from('203.0.113.7', t.key))).status).toBe(200) // a valid key from the same address
    expect((await t.anonymous('/api/v2/rovers', from('203.0.113.8', UNKNOWN))).status).toBe(401) // another address
    expect((await t.anonymous('/api/v2/rovers', from('203.0.113.7'))).status).toBe(401) // no key at all: not a guess
    now += 30_000
    const later = await t.anonymous('/api/v2/rovers', from('203.0.113.7', UNKNOWN))
    expect(later.status).toBe(429)
    expect(later.headers.get('retry-after')).toBe('30')
    now += 30_000 // the window is over
    expect((await t.anonymous('/api/v2/rovers', from('203.0.113.7', UNKNOWN))).status).toBe(401)
  })

  test('without TRUST_PROXY, X-Forwarded-For is ignored (a client cannot pick whose count it spends)', async () => {
    const t = await makeTestApp({ trustProxy: false, authFailLimit: 2, clock: () => now })
    apps.push(t)
    for (let i = 0; i < 10; i++) expect((await t.anonymous('/api/v2/rovers', from('203.0.113.7', UNKNOWN))).status).toBe(401)
  })
})

describe('over HTTP (the peer address from the socket)', () => {
  const work = mkdtempSync(join(tmpdir(), 'mv-throttle-'))
  afterAll(() => rmSync(work, { recursive: true, force: true }))

  test('the peer address is counted: the 4th unknown key from 127.0.0.1 gets 429 while a valid key keeps answering 200', async () => {
    const keysDb = join(work, 'keys.sqlite')
    const keys = KeyStore.open(keysDb)
    const valid = keys.create('throttle@example.com')
    keys.close()
    const s = await spawnServer({ KEYS_DB: keysDb, AUTH_FAIL_LIMIT: '3', AUTH_FAIL_WINDOW_S: '600' })
    try {
      const get = (key: string) => fetch(`${s.url}/api/v2/rovers`, { headers: { 'x-api-key': key } })
      const statuses = []
      for (let i = 0; i < 5; i++) statuses.push((await get(UNKNOWN)).status)
      expect(statuses).toEqual([401, 401, 401, 429, 429])
      const r = await get(UNKNOWN)
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(500)
      expect((await get(valid)).status).toBe(200)
      const logged = await s.waitFor('auth.throttled')
      expect(logged).toMatchObject({ address: '127.0.0.1', limit: 3, window_s: 600 })
    } finally {
      expect(await s.stop()).toBe(0)
    }
  }, 30_000)
})
