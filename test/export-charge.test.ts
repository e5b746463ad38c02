import { describe, expect, test } from 'bun:test'
import type { CounterStore, Limits } from '../src/limits/counter-store'
import type { Logger } from '../src/log'
import { MemoryCounterStore } from '../src/limits/memory-counter-store'
import { RedisCounterStore } from '../src/limits/redis-counter-store'
import { redisForFile } from './setup/redis'

/**
 * CounterStore.charge (what an export costs beyond its own call) and Lease.renew (a streamed
 * answer keeps its in-flight slot), in memory and against a real redis-server.
 */
const { redis, closeAfter } = await redisForFile()
const quiet: Logger = { log() {} }

const LIMITS: Limits = { hourly: 10, daily: 100, concurrent: 1 }
const T0 = Date.UTC(2026, 10, 24, 12, 0, 0)
let nextId = 1000

async function chargeContract(make: () => Promise<CounterStore>) {
  const store = await make()
  const id = nextId++
  const d = await store.acquire(id, LIMITS, T0)
  expect(d.hourCount).toBe(1)
  d.lease!.release()
  expect(await store.charge(id, 9, LIMITS, T0)).toEqual({ hourCount: 10, dayCount: 10 })
  // All or nothing: one unit more than is left is refused and counts nothing.
  expect(await store.charge(id, 1, LIMITS, T0)).toEqual({ refused: 'hourly', hourCount: 10, dayCount: 10 })
  // A negative charge gives units back.
  expect(await store.charge(id, -1, LIMITS, T0)).toEqual({ hourCount: 9, dayCount: 9 })
  expect(await store.charge(id, 5, { ...LIMITS, daily: 12 }, T0)).toEqual({ refused: 'daily', hourCount: 9, dayCount: 9 })
  expect(await store.peek(id, T0)).toEqual({ hourCount: 9, dayCount: 9 })
}

describe('charge: all or nothing, in both windows', () => {
  test('memory', () => chargeContract(async () => new MemoryCounterStore()))
  test.skipIf(!redis)('redis', () => chargeContract(async () => {
    return closeAfter(await RedisCounterStore.open(redis!.url, quiet))
  }))

  test.skipIf(!redis)('redis: 40 concurrent charges of 3 from two instances against 30 left admit exactly 10, never more', async () => {
    const a = await RedisCounterStore.open(redis!.url, quiet)
    const b = await RedisCounterStore.open(redis!.url, quiet)
    closeAfter(a)
    closeAfter(b)
    const id = nextId++
    const limits = { hourly: 30, daily: 1000, concurrent: 5 }
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).charge(id, 3, limits, T0)))
    expect(results.filter((r) => !r.refused).length).toBe(10)
    expect((await a.peek(id, T0)).hourCount).toBe(30)
  })
})

describe('renew: a long answer keeps its in-flight slot past the stale delay', () => {
  test('memory: a renewed slot is not purged as leaked; an unrenewed one is', () => {
    const store = new MemoryCounterStore()
    const kept = store.acquire(1, LIMITS, T0)
    kept.lease!.renew!(T0 + 50_000)
    expect(store.acquire(1, LIMITS, T0 + 100_000).refused).toBe('concurrent')
    const leaked = store.acquire(2, LIMITS, T0)
    expect(leaked.lease).toBeDefined()
    expect(store.acquire(2, LIMITS, T0 + 100_000).refused).toBeUndefined()
  })

  test.skipIf(!redis)('redis: a slot held by a live instance stays held past the stale delay (its heartbeat keeps its grants), and is free once released', async () => {
    const a = await RedisCounterStore.open(redis!.url, quiet, { staleInFlightMs: 300 })
    const b = await RedisCounterStore.open(redis!.url, quiet, { staleInFlightMs: 300 })
    closeAfter(a)
    closeAfter(b)
    const id = nextId++
    const kept = await a.acquire(id, LIMITS, Date.now())
    expect(kept.refused).toBeUndefined()
    await Bun.sleep(900) // three stale delays: a live instance's grant survives them
    expect((await b.acquire(id, LIMITS, Date.now())).refused).toBe('concurrent')
    kept.lease!.release()
    await Bun.sleep(300) // a's tick gives the spare slot back
    const later = await b.acquire(id, LIMITS, Date.now())
    expect(later.refused).toBeUndefined()
    later.lease!.release()
  })
})
