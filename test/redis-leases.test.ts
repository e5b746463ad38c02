import { beforeEach, describe, expect, test } from 'bun:test'
import type { Decision, Limits } from '../src/limits/counter-store'
import { leaseKeys } from '../src/limits/lease-script'
import { RedisCounterStore, type RedisCounterStoreOptions } from '../src/limits/redis-counter-store'
import { windowsAt } from '../src/limits/windows'
import { flushedClient, redisForFile } from './setup/redis'

/**
 * The leased Redis counter store against a real redis-server: the budget guarantees (never more
 * than a limit across instances, and how little is held back) and that Redis is off the per-call
 * path. Store-level: each instance is a RedisCounterStore of its own, as in separate processes.
 */
const { redis, closeAfter } = await redisForFile()
const quiet = { log() {} }

async function instance(opts: RedisCounterStoreOptions = {}): Promise<RedisCounterStore> {
  return closeAfter(await RedisCounterStore.open(redis!.url, quiet, opts))
}

const admitted = (ds: Decision[]) => ds.filter((d) => !d.refused).length

describe.skipIf(!redis)('leased Redis counters', () => {
  const client = flushedClient(() => redis!)
  beforeEach(async () => {
    await client.send('CONFIG', ['RESETSTAT'])
  })

  const leaseCalls = async () => {
    const info = String(await client.send('INFO', ['commandstats']))
    return Number(/cmdstat_evalsha:calls=(\d+)/.exec(info)?.[1] ?? 0) + Number(/cmdstat_eval:calls=(\d+)/.exec(info)?.[1] ?? 0)
  }

  test('three instances, 900 concurrent calls on one key: exactly the hourly limit is admitted, never more', async () => {
    const stores = [await instance(), await instance(), await instance()]
    const limits: Limits = { hourly: 250, daily: 10_000, concurrent: 10_000 }
    const now = Date.now()
    const ds = await Promise.all(Array.from({ length: 900 }, (_, i) => stores[i % 3]!.acquire(1, limits, now)))
    expect(admitted(ds)).toBe(250)
    for (const d of ds) d.lease?.release()
    const [h] = leaseKeys(1, windowsAt(now).hourStart, windowsAt(now).dayStart)
    expect(Number(await client.send('GET', [h]))).toBe(250)
  })

  test('Redis is off the per-call path: 3,000 sequential calls with a large budget take at most one lease call per 64 calls', async () => {
    const store = await instance()
    const limits: Limits = { hourly: 10_000, daily: 100_000, concurrent: 50 }
    const now = Date.now()
    let sync = 0
    for (let i = 0; i < 3_000; i++) {
      const r = store.acquire(2, limits, now)
      if (!(r instanceof Promise)) sync++
      const d = await r
      expect(d.refused).toBeUndefined()
      d.lease!.release()
    }
    expect(sync).toBeGreaterThan(2_900) // admitted synchronously from the lease, like the memory store
    expect(await leaseCalls()).toBeLessThanOrEqual(3_000 / 64)
  })

  test('round-robin demand beyond a small budget on three instances admits the limit less at most the units still leased (blocks shrink to one unit), never more', async () => {
    const stores = [await instance(), await instance(), await instance()]
    const limits: Limits = { hourly: 40, daily: 10_000, concurrent: 100 }
    const now = Date.now()
    const ds: Decision[] = []
    for (let i = 0; i < 90; i++) {
      const d = await stores[i % 3]!.acquire(3, limits, now + i)
      d.lease?.release()
      ds.push(d)
    }
    // Each instance holds back at most the block it leased last (1 unit near the end): the sum may
    // fall short of the limit by the units still leased, never exceed it.
    const got = admitted(ds)
    expect(got).toBeLessThanOrEqual(40)
    expect(got).toBeGreaterThanOrEqual(40 - 3 * 2)
    for (const s of stores) await s.close()
    const [h] = leaseKeys(3, windowsAt(now).hourStart, windowsAt(now).dayStart)
    expect(Number(await client.send('GET', [h]))).toBe(got) // every unit leased and unused went back at close
  })

  test('units an instance holds go back at close, so another instance can use them at once', async () => {
    const a = await instance()
    const b = await instance()
    const limits: Limits = { hourly: 1_000, daily: 10_000, concurrent: 10 }
    const now = Date.now()
    ;(await a.acquire(4, limits, now)).lease!.release()
    const [h, d] = leaseKeys(4, windowsAt(now).hourStart, windowsAt(now).dayStart)
    expect(Number(await client.send('GET', [h]))).toBeGreaterThan(1) // a leased a block
    await a.close()
    expect(Number(await client.send('GET', [h]))).toBe(1)
    expect(Number(await client.send('GET', [d]))).toBe(1)
    let ok = 0
    for (let i = 0; i < 1_200; i++) {
      const x = await b.acquire(4, limits, now)
      if (!x.refused) ok++
      x.lease?.release()
    }
    expect(ok).toBe(999)
  })

  test('an idle instance gives its unused units back after the idle time, and the other instance then gets them', async () => {
    const a = await instance({ tickMs: 50, idleReturnMs: 100 })
    const b = await instance({ tickMs: 50, idleReturnMs: 60_000 })
    const limits: Limits = { hourly: 320, daily: 10_000, concurrent: 10 }
    const now = Date.now()
    ;(await a.acquire(5, limits, now)).lease!.release() // a leases a block of 20 and uses 1
    let ok = 0
    for (let i = 0; i < 400; i++) {
      const x = await b.acquire(5, limits, now)
      if (!x.refused) ok++
      x.lease?.release()
    }
    expect(ok).toBe(320 - 20) // a's 19 unused units are held back, plus the unit it used
    await Bun.sleep(400) // a's tick returns them
    for (let i = 0; i < 40; i++) {
      const x = await b.acquire(5, limits, now + 2_000)
      if (!x.refused) ok++
      x.lease?.release()
    }
    expect(ok).toBe(319)
  })

  test('units leased in an hour that has passed go back to the day, not lost to it', async () => {
    const a = await instance()
    const limits: Limits = { hourly: 1_000, daily: 10_000, concurrent: 10 }
    const t0 = Date.parse('2026-05-01T10:59:59Z')
    ;(await a.acquire(6, limits, t0)).lease!.release()
    ;(await a.acquire(6, limits, t0 + 2_000)).lease!.release()
    await Bun.sleep(50)
    const w1 = windowsAt(t0 + 2_000)
    const [h1, d] = leaseKeys(6, w1.hourStart, w1.dayStart)
    const [h0] = leaseKeys(6, windowsAt(t0).hourStart, w1.dayStart)
    expect(Number(await client.send('GET', [h0]))).toBeGreaterThan(1) // the old hour keeps its count (it expires)
    const dayCount = Number(await client.send('GET', [d]))
    const hourCount = Number(await client.send('GET', [h1]))
    expect(dayCount - hourCount).toBe(1) // the day holds the one call of the old hour, plus the new hour's lease
  })

  test('headers stay truthful within one lease: the hour count an instance reports is what was used, not what it leased', async () => {
    const a = await instance()
    const limits: Limits = { hourly: 10_000, daily: 100_000, concurrent: 10 }
    const now = Date.now()
    for (let i = 1; i <= 5; i++) {
      const d = await a.acquire(7, limits, now)
      expect(d.hourCount).toBe(i)
      d.lease!.release()
    }
    expect((await a.peek(7, now)).hourCount).toBe(5)
  })
})
