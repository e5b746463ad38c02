import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { JsonBody } from '../src/http/json-body'
import { MemoryCounterStore } from '../src/limits/memory-counter-store'
import { windowsAt } from '../src/limits/windows'
import { makeTestApp, type TestApp } from './setup/test-app'

/** Response JSON, untyped (tests assert on its fields). */
const json = (r: Response): Promise<any> => r.json()

/** A settable clock: 2026-03-10 14:20:00 UTC. */
function clockAt(iso = '2026-03-10T14:20:00Z') {
  let now = Date.parse(iso)
  const clock = () => now
  clock.set = (iso: string) => void (now = Date.parse(iso))
  return clock
}

const apps: TestApp[] = []
afterAll(async () => {
  for (const a of apps) await a.close()
})
async function app(opts: Parameters<typeof makeTestApp>[0]) {
  const a = await makeTestApp(opts)
  apps.push(a)
  return a
}

type Problem = { type: string; title: string; status: number; detail: string; retryAfter?: number }

describe('X-RateLimit-* headers (hourly window) on every keyed answer', () => {
  test('Limit is the hourly figure, Remaining counts down, Reset is the next top of the hour in unix seconds', async () => {
    const clock = clockAt('2026-03-10T14:20:00Z')
    const t = await app({ clock, rateLimitHourly: 7 })
    const reset = String(Date.parse('2026-03-10T15:00:00Z') / 1000)
    for (let i = 1; i <= 3; i++) {
      const r = await t.request('/api/v2')
      expect(r.status).toBe(200)
      expect(r.headers.get('x-ratelimit-limit')).toBe('7')
      expect(r.headers.get('x-ratelimit-remaining')).toBe(String(7 - i))
      expect(r.headers.get('x-ratelimit-reset')).toBe(reset)
    }
  })

  test('the defaults are 10000 per hour; errors (400, 404, 405) carry the headers and count', async () => {
    const t = await app({})
    expect((await t.request('/api/v2')).headers.get('x-ratelimit-remaining')).toBe('9999')
    const n404 = await t.request('/api/v2/nope')
    expect(n404.status).toBe(404)
    expect(n404.headers.get('x-ratelimit-limit')).toBe('10000')
    expect(n404.headers.get('x-ratelimit-remaining')).toBe('9998')
    const n405 = await t.request('/api/v2', { method: 'POST' })
    expect(n405.status).toBe(405)
    expect(n405.headers.get('x-ratelimit-remaining')).toBe('9997')
  })

  test('/health and the OpenAPI document are not counted and carry no rate-limit headers', async () => {
    const t = await app({})
    for (const p of ['/health', '/api/v2/openapi.json', '/api/v2/docs']) {
      const r = await t.request(p)
      expect(r.status).toBe(200)
      expect(r.headers.get('x-ratelimit-remaining')).toBeNull()
    }
    expect((await t.request('/api/v2')).headers.get('x-ratelimit-remaining')).toBe('9999')
  })
})

describe('429 at limit + 1', () => {
  test('hourly: the call after the limit gets 429 with Retry-After, retryAfter and a detail naming the hourly figure', async () => {
    const clock = clockAt('2026-03-10T14:20:00Z')
    const t = await app({ clock, rateLimitHourly: 3 })
    for (let i = 0; i < 3; i++) expect((await t.request('/api/v2')).status).toBe(200)
    const r = await t.request('/api/v2')
    expect(r.status).toBe(429)
    expect(r.headers.get('retry-after')).toBe('2400') // 40 minutes to 15:00
    expect(r.headers.get('x-ratelimit-limit')).toBe('3')
    expect(r.headers.get('x-ratelimit-remaining')).toBe('0')
    expect(r.headers.get('x-ratelimit-reset')).toBe(String(Date.parse('2026-03-10T15:00:00Z') / 1000))
    const body = (await json(r)) as Problem
    expect(body).toEqual({
      type: '/errors/rate-limit-exceeded',
      title: 'Rate Limit Exceeded',
      status: 429,
      detail: 'Rate limit exceeded: the hourly limit of 3 requests for this API key is used up. It resets at the top of the hour.',
      retryAfter: 2400,
    })
  })

  test('with the default figures the detail names the hourly limit of 10000', async () => {
    const clock = clockAt()
    const limits = new MemoryCounterStore()
    const t = await app({ clock, limits })
    const id = t.deps.keys.lookup(t.key)!.id
    for (let i = 0; i < 10_000; i++) limits.acquire(id, { hourly: 10_000, daily: 100_000, concurrent: 50 }, clock()).lease!.release()
    const r = await t.request('/api/v2')
    expect(r.status).toBe(429)
    expect(((await json(r)) as Problem).detail).toContain('hourly limit of 10000 requests')
  })

  test('refused calls are not counted, and the next hour admits again', async () => {
    const clock = clockAt('2026-03-10T14:59:00Z')
    const t = await app({ clock, rateLimitHourly: 2 })
    await t.request('/api/v2')
    await t.request('/api/v2')
    for (let i = 0; i < 5; i++) expect((await t.request('/api/v2')).status).toBe(429)
    const id = t.deps.keys.lookup(t.key)!.id
    expect(t.deps.limits.peek(id, clock())).toEqual({ hourCount: 2, dayCount: 2 })
    clock.set('2026-03-10T15:00:00Z')
    const r = await t.request('/api/v2')
    expect(r.status).toBe(200)
    expect(r.headers.get('x-ratelimit-remaining')).toBe('1')
  })

  test('daily window: the day limit refuses across hours until midnight UTC, with the daily figure and retryAfter to midnight', async () => {
    const clock = clockAt('2026-03-10T22:10:00Z')
    const t = await app({ clock, rateLimitHourly: 3, rateLimitDaily: 5 })
    for (let i = 0; i < 3; i++) expect((await t.request('/api/v2')).status).toBe(200)
    expect((await t.request('/api/v2')).status).toBe(429) // hourly
    clock.set('2026-03-10T23:30:00Z')
    expect((await t.request('/api/v2')).status).toBe(200)
    expect((await t.request('/api/v2')).status).toBe(200)
    const r = await t.request('/api/v2')
    expect(r.status).toBe(429)
    const body = (await json(r)) as Problem
    expect(body.detail).toBe('Rate limit exceeded: the daily limit of 5 requests for this API key is used up. It resets at midnight UTC.')
    expect(body.retryAfter).toBe(30 * 60)
    expect(r.headers.get('retry-after')).toBe('1800')
    expect(r.headers.get('x-ratelimit-remaining')).toBe('1') // the headers describe the hourly window
    clock.set('2026-03-11T00:00:01Z')
    expect((await t.request('/api/v2')).status).toBe(200)
  })

  test('counters belong to one key: another key is not affected', async () => {
    const t = await app({ rateLimitHourly: 1 })
    const other = t.deps.keys.create('other@example.com')
    expect((await t.request('/api/v2')).status).toBe(200)
    expect((await t.request('/api/v2')).status).toBe(429)
    expect((await t.request('/api/v2', { headers: { 'x-api-key': other } })).status).toBe(200)
  })

  test('operator limits of a key override the configured ones', async () => {
    const t = await app({ rateLimitHourly: 100, keyLimits: { hourly: 2 } })
    const r = await t.request('/api/v2')
    expect(r.headers.get('x-ratelimit-limit')).toBe('2')
    await t.request('/api/v2')
    expect((await t.request('/api/v2')).status).toBe(429)
  })
})

describe('concurrent limit', () => {
  test('with the limit of requests held open the next one gets 429 naming the concurrent figure, retryAfter 1; slots come back after the responses', async () => {
    const limits = new MemoryCounterStore()
    const t = await app({ rateLimitConcurrent: 3, limits })
    let open!: () => void
    const gate = new Promise<void>((r) => (open = r))
    t.app.get('/api/v2/__hold', async () => {
      await gate
      return new JsonBody('{"data":"held"}')
    })
    const id = t.deps.keys.lookup(t.key)!.id
    const held = [t.request('/api/v2/__hold'), t.request('/api/v2/__hold'), t.request('/api/v2/__hold')]
    await Bun.sleep(5)
    expect(limits.inFlight(id)).toBe(3)
    const r = await t.request('/api/v2')
    expect(r.status).toBe(429)
    expect(r.headers.get('retry-after')).toBe('1')
    const body = (await json(r)) as Problem
    expect(body.retryAfter).toBe(1)
    expect(body.detail).toBe('Rate limit exceeded: the concurrent limit of 3 requests in flight for this API key is reached. Retry when one has finished.')
    open()
    for (const h of await Promise.all(held)) expect(h.status).toBe(200)
    await Bun.sleep(1)
    expect(limits.inFlight(id)).toBe(0)
    expect((await t.request('/api/v2')).status).toBe(200)
  })

  test('slots are released whatever the handler returns (JsonBody, Response, object, string, nothing)', async () => {
    const limits = new MemoryCounterStore()
    const t = await app({ rateLimitConcurrent: 1, limits })
    t.app
      .get('/api/v2/__json-body', () => new JsonBody('{"data":1}'))
      .get('/api/v2/__response', () => new Response('{"data":1}', { headers: { 'content-type': 'application/json' } }))
      .get('/api/v2/__object', () => ({ data: 1 }))
      .get('/api/v2/__string', () => 'plain')
      .get('/api/v2/__nothing', () => undefined)
    const id = t.deps.keys.lookup(t.key)!.id
    for (const path of ['/api/v2/__json-body', '/api/v2/__response', '/api/v2/__object', '/api/v2/__string', '/api/v2/__nothing']) {
      for (let i = 0; i < 3; i++) {
        const r = await t.request(path)
        expect(r.status).toBe(200)
        expect(r.headers.get('x-ratelimit-limit')).toBe('10000')
        expect(limits.inFlight(id)).toBe(0)
      }
    }
  })

  test('slots are released after errors too (404, 400, 500, 413)', async () => {
    const limits = new MemoryCounterStore()
    const t = await app({ rateLimitConcurrent: 2, limits, maxBodyBytes: 10 })
    t.app.get('/api/v2/__fail', () => {
      throw new Error('x')
    })
    const id = t.deps.keys.lookup(t.key)!.id
    for (const [path, init] of [
      ['/api/v2/nope', {}],
      ['/api/v2/__fail', {}],
      ['/api/v2', { method: 'PUT' }],
      ['/api/v2', { method: 'POST', body: 'x'.repeat(50), headers: { 'content-length': '50' } }],
    ] as const) {
      const r = await t.request(path, init as RequestInit)
      expect(r.status).toBeGreaterThanOrEqual(400)
      await Bun.sleep(1)
      expect(limits.inFlight(id)).toBe(0)
    }
  })
})

describe('window arithmetic (unit)', () => {
  test('hour and day windows are fixed UTC calendar windows', () => {
    const w = windowsAt(Date.parse('2026-03-10T23:59:59.999Z'))
    expect(w.hourStart).toBe(Date.parse('2026-03-10T23:00:00Z'))
    expect(w.dayStart).toBe(Date.parse('2026-03-10T00:00:00Z'))
    expect(w.hourReset).toBe(Date.parse('2026-03-11T00:00:00Z') / 1000)
    expect(w.dayReset).toBe(Date.parse('2026-03-11T00:00:00Z') / 1000)
  })
})
