import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { RedisClient } from 'bun'
import type { StreamHold } from '../src/limits/counter-store'
import { RedisCounterStore, type RedisCounterStoreOptions } from '../src/limits/redis-counter-store'
import { OPEN_STREAM_SCRIPT, streamsKey } from '../src/limits/stream-script'
import type { Logger } from '../src/log'
import { flushedClient, redisForFile, startRedis, type RedisServer } from './setup/redis'

/**
 * Open photo streams per key (STREAMS_PER_KEY) counted in a real redis-server, store-level: each
 * instance is a RedisCounterStore of its own, as in separate processes. The count is shared and
 * atomic, a hold lives as long as its holder renews it, and Redis away falls back to the
 * process's own streams (the counters' fail-open choice).
 */
const { redis, closeAfter } = await redisForFile()
const quiet: Logger = { log() {} }

async function instance(opts: RedisCounterStoreOptions = {}, url = redis!.url, log = quiet): Promise<RedisCounterStore> {
  return closeAfter(await RedisCounterStore.open(url, log, opts))
}

const granted = (hs: Array<StreamHold | undefined>) => hs.filter((h): h is StreamHold => h !== undefined)

describe.skipIf(!redis)('open streams counted in Redis', () => {
  const client = flushedClient(() => redis!)
  const members = async (id: number) => Number(await client.send('ZCARD', [streamsKey(id)]))

  test('two instances asking at once for 40 places of one key get exactly 5 between them; a released place goes to the next asker, and no sooner', async () => {
    const [a, b] = [await instance(), await instance()]
    const asks = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).openStream(1, 5)))
    const holds = granted(asks)
    expect(holds.length).toBe(5)
    expect(await members(1)).toBe(5)
    expect(await b.openStream(1, 5)).toBeUndefined()
    holds.pop()!.release()
    holds.pop()!.release() // once is enough: a second release gives nothing more back
    await Bun.sleep(50)
    expect(await members(1)).toBe(3)
    const again = granted(await Promise.all([a.openStream(1, 5), b.openStream(1, 5), a.openStream(1, 5)]))
    expect(again.length).toBe(2)
    for (const h of [...holds, ...again]) h.release()
  })

  test('a live holder renews its holds every tick, so they outlive the hold time; a holder that stopped (died) loses its places within the hold time', async () => {
    const holder = await instance({ staleInFlightMs: 900 })
    const other = await instance({ staleInFlightMs: 900 })
    const holds = granted(await Promise.all(Array.from({ length: 5 }, () => holder.openStream(2, 5))))
    expect(holds.length).toBe(5)
    await Bun.sleep(2_000)
    expect(await other.openStream(2, 5)).toBeUndefined()
    for (const h of holds) h.release()

    // What a dead instance leaves behind: three places taken with a 900 ms hold, never renewed.
    for (let i = 0; i < 3; i++) await client.send('EVAL', [OPEN_STREAM_SCRIPT, '1', streamsKey(3), '5', `dead:${i}`, '900'])
    const live = granted(await Promise.all(Array.from({ length: 3 }, () => other.openStream(3, 5))))
    expect(live.length).toBe(2)
    const started = performance.now()
    let lapsedAfter = -1
    while (performance.now() - started < 3_000) {
      const h = await other.openStream(3, 5)
      if (h) {
        lapsedAfter = performance.now() - started
        live.push(h)
        break
      }
      await Bun.sleep(50)
    }
    expect(lapsedAfter).toBeGreaterThanOrEqual(0)
    expect(lapsedAfter).toBeLessThanOrEqual(900 + 500)
    expect(await members(3)).toBe(3) // the dead holder's members are pruned, the live ones kept
    for (const h of live) h.release()
  })

  test('close gives every place of the instance back at once', async () => {
    const a = await instance()
    expect(granted(await Promise.all(Array.from({ length: 5 }, () => a.openStream(4, 5)))).length).toBe(5)
    await a.close()
    expect(await members(4)).toBe(0)
    const b = await instance()
    expect(await b.openStream(4, 5)).toBeDefined()
  })
})

describe.skipIf(!redis)('open streams when Redis goes away', () => {
  let own: RedisServer
  beforeAll(async () => {
    own = (await startRedis())!
  })
  afterAll(() => own?.stop())

  test('Redis down: each place is decided on the process\'s own open streams (those opened through Redis included), and the outage is logged once', async () => {
    const lines: string[] = []
    const log: Logger = { log: (_level, event) => void lines.push(event) }
    const store = await instance({ reconnectMinMs: 60_000 }, own.url, log)
    const before = granted(await Promise.all([store.openStream(5, 5), store.openStream(5, 5)]))
    expect(before.length).toBe(2)
    await own.kill()
    await Bun.sleep(100)
    const during = await Promise.all(Array.from({ length: 5 }, () => store.openStream(5, 5)))
    expect(granted(during).length).toBe(3)
    expect(store.streamsHeld(5)).toBe(5)
    expect(lines.filter((e) => e === 'rate-limit.redis-unavailable').length).toBe(1)
    for (const h of [...before, ...granted(during)]) h.release()
    expect(store.streamsHeld(5)).toBe(0)
  })

  test('Redis restarted without its data: the open streams are counted again within a tick of its return, so another instance is refused', async () => {
    await own.restart()
    const opts = { reconnectMinMs: 50, reconnectMaxMs: 100, tickMs: 100 }
    const holder = await instance(opts, own.url)
    const holds = granted(await Promise.all(Array.from({ length: 5 }, () => holder.openStream(6, 5))))
    expect(holds.length).toBe(5)
    await own.kill()
    await own.restart()
    const other = await instance(opts, own.url)
    const until = performance.now() + 3_000
    let counted = 0
    const c = new RedisClient(own.url)
    await c.connect()
    while (performance.now() < until && (counted = Number(await c.send('ZCARD', [streamsKey(6)]))) < 5) await Bun.sleep(50)
    c.close()
    expect(counted).toBe(5)
    expect(await other.openStream(6, 5)).toBeUndefined()
    for (const h of holds) h.release()
  })

  test('Redis hanging (frozen, connection open): a stream asking for a place is answered within the command timeout on the local count, joins the shared count once Redis answers again, and leaves it when it closes', async () => {
    const store = await instance({ commandTimeoutMs: 200, tickMs: 100 }, own.url)
    own.pause()
    try {
      const started = performance.now()
      const hold = await store.openStream(7, 5)
      expect(performance.now() - started).toBeLessThan(1_500)
      expect(hold).toBeDefined()
      expect(store.streamsHeld(7)).toBe(1)
      own.resume()
      const c = new RedisClient(own.url)
      await c.connect()
      const until = performance.now() + 3_000
      let counted = 0
      while (performance.now() < until && (counted = Number(await c.send('ZCARD', [streamsKey(7)]))) < 1) await Bun.sleep(50)
      expect(counted).toBe(1)
      hold!.release()
      await Bun.sleep(100)
      expect(Number(await c.send('ZCARD', [streamsKey(7)]))).toBe(0)
      c.close()
    } finally {
      own.resume()
    }
  })
})
