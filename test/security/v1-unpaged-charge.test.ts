import { afterEach, describe, expect, test } from 'bun:test'
import { makeTestApp, type TestApp } from '../setup/test-app'

/**
 * A v1 photos answer without `page` (a whole day) is charged like an export of the same rows: one
 * call per started 1,000 photos, 429 stating the cost when fewer are left, shown in the
 * rate-limit headers. Curiosity's sol 0 holds 3,702 photos in the bundled real records: 4 calls.
 */
const DAY = '/api/v1/rovers/curiosity/photos?sol=0'
let t: TestApp | undefined
afterEach(async () => {
  await t?.close()
  t = undefined
})

describe('v1 whole-day answers cost what an export of their rows costs', () => {
  test('the review replay: photos?sol=0 without page (3,702 photos) costs 4 calls, every time (cached or not), shown in X-RateLimit-Remaining', async () => {
    t = await makeTestApp({ rateLimitHourly: 100 })
    const first = await t.request(DAY)
    expect(first.status).toBe(200)
    expect(((await first.json()) as { photos: unknown[] }).photos).toHaveLength(3702)
    expect(first.headers.get('x-ratelimit-remaining')).toBe('96')
    expect(first.headers.get('x-request-charged')).toBe('4')
    const again = await t.request(DAY)
    expect(again.status).toBe(200)
    expect(again.headers.get('x-ratelimit-remaining')).toBe('92')
    // The same rows through the export cost the same.
    const exported = await t.request('/api/v2/photos/export?rovers=curiosity&sol=0&format=ndjson')
    expect(exported.headers.get('x-export-charged')).toBe('4')
    await exported.arrayBuffer()
    expect(exported.headers.get('x-ratelimit-remaining')).toBe('88')
  })

  test('the same day by pages costs one call a page; a day under 1,000 photos costs one call; the api_key= form is charged alike', async () => {
    t = await makeTestApp({ rateLimitHourly: 100 })
    expect((await t.request(`${DAY}&page=1`)).headers.get('x-ratelimit-remaining')).toBe('99')
    expect((await t.request('/api/v1/rovers/curiosity/photos?sol=100')).headers.get('x-ratelimit-remaining')).toBe('98')
    const viaQuery = await t.anonymous(`/mars-photos${DAY}&api_key=${t.key}`)
    expect(viaQuery.status).toBe(200)
    expect(viaQuery.headers.get('x-ratelimit-remaining')).toBe('94')
  })

  test('with fewer calls left than the day costs: 429 stating the cost and what is left, nothing charged, Retry-After; page=1 still answers', async () => {
    t = await makeTestApp({ rateLimitHourly: 6 })
    expect((await t.request(`${DAY}&page=1`)).status).toBe(200)
    expect((await t.request(`${DAY}&page=2`)).status).toBe(200)
    expect((await t.request(`${DAY}&page=3`)).status).toBe(200) // 3 used, 3 left: the day costs 4
    const refused = await t.request(DAY)
    expect(refused.status).toBe(429)
    expect(refused.headers.get('x-request-cost')).toBe('4')
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('3')
    const problem = (await refused.json()) as { detail: string; status: number }
    expect(problem.status).toBe(429)
    expect(problem.detail).toContain('3702 photos costs 4 requests')
    expect(problem.detail).toContain('3 of its hourly limit of 6 left')
    expect(problem.detail).toContain('page=1')
    const page = await t.request(`${DAY}&page=4`)
    expect(page.status).toBe(200)
    expect(page.headers.get('x-ratelimit-remaining')).toBe('2')
  })
})
