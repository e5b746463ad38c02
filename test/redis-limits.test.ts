import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { RedisClient } from 'bun'
import { JsonBody } from '../src/http/json-body'
import type { Logger } from '../src/log'
import { RedisCounterStore } from '../src/limits/redis-counter-store'
import { leaseKeys, LEASE_SCRIPT } from '../src/limits/lease-script'
import { windowsAt } from '../src/limits/windows'
import { startRedis, type RedisServer } from './setup/redis'
import { makeTestApp, spawnServer } from './setup/test-app'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Response JSON, untyped (tests assert on its fields). */
const json = (r: Response): Promise<any> => r.json()

/**
 * The Redis counter store against a real redis-server (.ci/run installs it). Skipped, with a
 * message, where the binary is absent.
 */
const redis = await startRedis()
const quiet: Logger = { log() {} }
const cleanups: Array<() => Promise<void> | void> = []
afterAll(async () => {
  for (const c of cleanups.reverse()) await c()
  await redis?.stop()
})

/** Two app instances sharing one key file and one Redis: one key, one budget. */
async function twoInstances(opts: { hourly?: number; daily?: number; concurrent?: number; clock?: () => number } = {}) {
  const a = await makeTestApp({
    rateLimitHourly: opts.hourly,
    rateLimitDaily: opts.daily,
    rateLimitConcurrent: opts.concurrent,
    clock: opts.clock,
    limits: await RedisCounterStore.open(redis!.url, quiet),
  })
  const b = await makeTestApp({
    rateLimitHourly: opts.hourly,
    rateLimitDaily: opts.daily,
    rateLimitConcurrent: opts.concurrent,
    clock: opts.clock,
    keysDb: a.deps.config.keysDb,
    limits: await RedisCounterStore.open(redis!.url, quiet),
  })
  cleanups.push(() => b.close(), () => a.close())
  return { a, b, key: a.key }
}

describe.skipIf(!redis)('Redis counter store (two instances, one budget)', () => {
  let client: RedisClient
  beforeAll(async () => {
    client = new RedisClient(redis!.url)
    await client.connect()
    cleanups.push(() => client.close())
  })
  // Every test's key file numbers its first key 1: start each test from an empty Redis.
  beforeEach(async () => {
    if (!client.connected) await client.connect()
    await client.send('FLUSHALL', [])
  })

  test('many concurrent clients on one key across two instances admit exactly the hourly limit, never more', async () => {
    const { a, b, key } = await twoInstances({ hourly: 60, concurrent: 1000 })
    const calls = Array.from({ length: 300 }, (_, i) => (i % 2 ? a : b).request('/api/v2', { headers: { 'x-api-key': key } }))
    const statuses = (await Promise.all(calls)).map((r) => r.status)
    expect(statuses.filter((s) => s === 200).length).toBe(60)
    expect(statuses.filter((s) => s === 429).length).toBe(240)
    const id = a.deps.keys.lookup(key)!.id
    const usage = await a.deps.limits.peek(id, Date.now())
    expect(usage.hourCount).toBe(60) // refused calls were not counted
  })

  test('two `bun app/server.ts` processes on one Redis, 400 concurrent HTTP calls on one key: exactly the limit is admitted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mv-redis-servers-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    const env = { KEYS_DB: join(dir, 'keys.sqlite'), REDIS_URL: redis!.url, RATE_LIMIT_HOURLY: '100', RATE_LIMIT_CONCURRENT: '1000' }
    const created = Bun.spawnSync([process.execPath, 'scripts/keys.ts', 'create', '--email', 'lb@example.com'], { cwd: join(import.meta.dir, '..'), env: { ...process.env, ...env } })
    const key = created.stdout.toString().trimEnd().split('\n').at(-1)!
    const servers = [await spawnServer(env), await spawnServer(env)]
    cleanups.push(...servers.map((s) => () => void s.stop()))
    for (const s of servers) expect((await json(await fetch(`${s.url}/health`))).rate_limits).toEqual({ store: 'redis', redis_connected: true })
    const calls = Array.from({ length: 400 }, (_, i) => fetch(`${servers[i % 2]!.url}/api/v2`, { headers: { 'x-api-key': key } }).then((r) => r.status))
    const statuses = await Promise.all(calls)
    expect(statuses.filter((s) => s === 200).length).toBe(100)
    expect(statuses.filter((s) => s === 429).length).toBe(300)
  }, 30_000)

  test('the in-flight limit is shared: slots held on one instance refuse the next call on the other; all are released afterwards', async () => {
    const { a, b, key } = await twoInstances({ concurrent: 4 })
    let open!: () => void
    const gate = new Promise<void>((r) => (open = r))
    for (const x of [a, b])
      x.app.get('/api/v2/__hold', async () => {
        await gate
        return new JsonBody('{"data":"held"}')
      })
    const held = [a, a, b, b].map((x) => x.request('/api/v2/__hold', { headers: { 'x-api-key': key } }))
    await Bun.sleep(50)
    const refused = await b.request('/api/v2', { headers: { 'x-api-key': key } })
    expect(refused.status).toBe(429)
    expect((await json(refused)).detail).toContain('concurrent limit of 4')
    open()
    for (const r of await Promise.all(held)) expect(r.status).toBe(200)
    expect((await a.request('/api/v2', { headers: { 'x-api-key': key } })).status).toBe(200)
    expect((await b.request('/api/v2', { headers: { 'x-api-key': key } })).status).toBe(200)
  })

  test('window counters expire by themselves (TTL to the end of the window)', async () => {
    const { a, key } = await twoInstances()
    const now = Date.now()
    await a.request('/api/v2', { headers: { 'x-api-key': key } })
    const id = a.deps.keys.lookup(key)!.id
    const w = windowsAt(now)
    const [h, d] = leaseKeys(id, w.hourStart, w.dayStart)
    const hourTtl = Number(await client.send('PTTL', [h]))
    const dayTtl = Number(await client.send('PTTL', [d]))
    expect(hourTtl).toBeGreaterThan(0)
    expect(hourTtl).toBeLessThanOrEqual(w.hourStart + 3_600_000 - now + 60_000)
    expect(dayTtl).toBeGreaterThan(0)
    expect(dayTtl).toBeLessThanOrEqual(w.dayStart + 86_400_000 - now + 60_000)
  })

  test('slots granted to an instance that died (no heartbeat) are dropped once stale, and then granted to a live one', async () => {
    const alive = await RedisCounterStore.open(redis!.url, quiet, { staleInFlightMs: 60_000 })
    cleanups.push(() => alive.close())
    const limits = { hourly: 100, daily: 100, concurrent: 1 }
    const now = Date.parse('2026-05-01T10:00:00Z')
    const id = 900_001
    const w = windowsAt(now)
    // What a dead instance leaves behind: its one slot granted, its heartbeat at `now`, never renewed.
    await client.send('EVAL', [LEASE_SCRIPT, '4', ...leaseKeys(id, w.hourStart, w.dayStart), '100', '100', '1', '1', '1', String(now), '60000', 'dead-instance', '3600000', '86400000'])
    expect((await alive.acquire(id, limits, now + 1_000)).refused).toBe('concurrent')
    const later = await alive.acquire(id, limits, now + 61_000)
    expect(later.refused).toBeUndefined()
    later.lease!.release()
  })

  test('a 304 is not counted with Redis either (peek)', async () => {
    const { a, key } = await twoInstances()
    const first = await a.request('/api/v2', { headers: { 'x-api-key': key } })
    const tag = first.headers.get('etag')!
    const r = await a.request('/api/v2', { headers: { 'x-api-key': key, 'if-none-match': tag } })
    expect(r.status).toBe(304)
    expect(r.headers.get('x-ratelimit-remaining')).toBe(first.headers.get('x-ratelimit-remaining'))
  })

  test('Redis hanging (frozen, connection open) when a call needs a lease: it is answered after a bounded wait, on local counters, with a warning; late grants are given back', async () => {
    const logs: Array<{ level: string; event: string }> = []
    const store = await RedisCounterStore.open(redis!.url, { log: (level, event) => void logs.push({ level, event }) }, { commandTimeoutMs: 200, tickMs: 50, idleReturnMs: 100 })
    // A budget of 10 is leased one unit at a time: every call needs Redis.
    const t = await makeTestApp({ limits: store, rateLimitHourly: 10 })
    cleanups.push(() => t.close())
    expect((await t.request('/api/v2')).status).toBe(200)
    redis!.pause()
    try {
      for (let i = 0; i < 3; i++) expect((await t.request('/api/v2')).status).toBe(200)
      expect(logs.some((l) => l.level === 'warn' && l.event === 'rate-limit.redis-unavailable')).toBe(true)
      expect((await json(await t.anonymous('/health'))).status).toBe('degraded')
    } finally {
      redis!.resume()
    }
    // The lease that timed out ran when Redis woke up: its grant was taken, then given back idle.
    await Bun.sleep(1_500)
    const id = t.deps.keys.lookup(t.key)!.id
    const w = windowsAt(Date.now())
    const [h, , slots] = leaseKeys(id, w.hourStart, w.dayStart)
    expect(((await client.send('HVALS', [slots])) as string[]).reduce((n, v) => n + Number(v), 0)).toBe(0)
    expect(Number(await client.send('GET', [h]))).toBeLessThanOrEqual(1)
  })

  test('Redis down: the service keeps answering on local counters with a logged warning, health says degraded; it reconnects when Redis is back', async () => {
    const logs: Array<{ level: string; event: string }> = []
    const store = await RedisCounterStore.open(redis!.url, { log: (level, event) => void logs.push({ level, event }) }, { reconnectMinMs: 50, reconnectMaxMs: 200 })
    const t = await makeTestApp({ limits: store, rateLimitHourly: 5 })
    cleanups.push(() => t.close())
    expect((await json(await t.anonymous('/health'))).rate_limits).toEqual({ store: 'redis', redis_connected: true })
    await redis!.kill()
    await Bun.sleep(100)
    for (let i = 0; i < 5; i++) expect((await t.request('/api/v2')).status).toBe(200)
    expect((await t.request('/api/v2')).status).toBe(429) // local counters still enforce this instance's share
    expect(logs.some((l) => l.level === 'warn' && l.event === 'rate-limit.redis-unavailable')).toBe(true)
    const health = await json(await t.anonymous('/health'))
    expect(health.status).toBe('degraded')
    expect(health.rate_limits).toEqual({ store: 'redis', redis_connected: false })
    await redis!.restart()
    const until = Date.now() + 5_000
    while (!store.connected && Date.now() < until) await Bun.sleep(50)
    expect(store.connected).toBe(true)
    expect((await json(await t.anonymous('/health'))).status).toBe('ok')
    expect((await t.request('/api/v2')).status).toBe(200) // a fresh Redis: counting starts over there
  })
})
