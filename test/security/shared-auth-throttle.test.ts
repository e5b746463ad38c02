import { describe, expect, test } from 'bun:test'
import { RedisClient } from 'bun'
import { RedisCounterStore } from '../../src/limits/redis-counter-store'
import type { Logger } from '../../src/log'
import { redisForFile } from '../setup/redis'
import { makeTestApp, type TestApp } from '../setup/test-app'

/**
 * The unknown-key throttle is shared like the limits: with REDIS_URL set, attempts are counted in
 * Redis, so a key guesser spreading requests over several instances meets one budget, not one per
 * instance. Skipped, with a message, where redis-server is absent.
 */
const { redis, closeAfter } = await redisForFile()
const quiet: Logger = { log() {} }

describe.skipIf(!redis)('failed-key throttle across two instances on one Redis', () => {
  test('5 allowed per address: 3 bad keys on each of two instances, from one address, make the 6th a 429', async () => {
    const client = new RedisClient(redis!.url)
    await client.connect()
    await client.send('FLUSHALL', [])
    client.close()
    const opts = { trustProxy: true, authFailLimit: 5, authFailWindowS: 60 }
    const a = await makeTestApp({ ...opts, limits: await RedisCounterStore.open(redis!.url, quiet) })
    const b = await makeTestApp({ ...opts, keysDb: a.deps.config.keysDb, limits: await RedisCounterStore.open(redis!.url, quiet) })
    closeAfter(a)
    closeAfter(b)
    const guess = (t: TestApp, from: string) => t.request('/api/v2/photos', { headers: { 'x-api-key': 'mv_live_' + '0'.repeat(40), 'x-forwarded-for': from } })
    const statuses: number[] = []
    for (let i = 0; i < 3; i++) statuses.push((await guess(a, '198.51.100.7')).status, (await guess(b, '198.51.100.7')).status)
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429])
    const refused = await guess(a, '198.51.100.7')
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    // Another address has its own budget; a valid key is never throttled.
    expect((await guess(b, '198.51.100.8')).status).toBe(401)
    expect((await a.request('/api/v2/rovers', { headers: { 'x-forwarded-for': '198.51.100.7' } })).status).toBe(200)
  })
})
