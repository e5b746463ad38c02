import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { makeTestApp, type TestApp } from './setup/test-app'

let t: TestApp
let open: TestApp
beforeAll(async () => {
  t = await makeTestApp({ corsOrigins: ['https://app.example.org'], metricsToken: 'secret-token-1' })
  open = await makeTestApp({ corsOrigins: [] })
})
afterAll(async () => {
  await t.close()
  await open.close()
})

const remaining = (r: Response) => Number(r.headers.get('x-ratelimit-remaining'))

describe('request id and access log', () => {
  test('a valid X-Request-Id is echoed, an invalid one replaced, and every answer (304 and 401 included) carries one', async () => {
    const given = await t.request('/api/v2/rovers', { headers: { 'x-request-id': 'abc-123.x:y_z' } })
    expect(given.headers.get('x-request-id')).toBe('abc-123.x:y_z')
    const bad = await t.request('/api/v2/rovers', { headers: { 'x-request-id': 'has space\u00e9' } })
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    const tag = given.headers.get('etag')!
    const notModified = await t.request('/api/v2/rovers', { headers: { 'if-none-match': tag } })
    expect(notModified.status).toBe(304)
    expect(notModified.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    expect((await t.anonymous('/api/v2/rovers')).headers.get('x-request-id')).toBeTruthy()
  })

  test('one JSON line per request with the route pattern, status, duration, bytes and a key label that is not the key', async () => {
    const before = t.accessLines.length
    const r = await t.request('/api/v2/photos/1275027?fields=sol', { headers: { 'x-request-id': 'trace-1' } })
    await t.anonymous('/api/v2/photos', { headers: { 'x-api-key': 'mv_live_' + 'f'.repeat(40) } })
    const lines = t.accessLines.slice(before).map((l) => JSON.parse(l))
    expect(lines.length).toBe(2)
    expect(lines[0]).toMatchObject({ event: 'http.request', request_id: 'trace-1', method: 'GET', route: '/api/v2/photos/:id', status: r.status, bytes: expect.any(Number), key: expect.stringMatching(/^key:\d+$/) })
    expect(lines[0].duration_ms).toBeGreaterThanOrEqual(0)
    expect(lines[1]).toMatchObject({ route: '/api/v2/photos', status: 401, key: expect.stringMatching(/^sha256:[0-9a-f]{12}$/) })
    const all = t.accessLines.join('\n')
    expect(all).not.toContain(t.key)
    expect(all).not.toContain('f'.repeat(40))
  })

  test('the bytes logged are the bytes of the body sent: problem documents and 304s from the pipeline or the edge included', async () => {
    const before = t.accessLines.length
    const refused = await t.anonymous('/api/v2/photos', { headers: { 'x-api-key': 'mv_live_' + 'e'.repeat(40) } })
    const missing = await t.request('/api/v2/photos/999999999')
    const path = '/api/v2/photos?rovers=perseverance&per_page=1'
    const etag = (await t.request(path)).headers.get('etag')!
    const viaPipeline = await t.request(path, { headers: { 'if-none-match': etag } })
    const atEdge = await t.request(path, { headers: { 'if-none-match': etag } })
    const lines = t.accessLines.slice(before).map((l) => JSON.parse(l))
    expect(lines.map((l) => l.status)).toEqual([401, 404, 200, 304, 304])
    expect(lines[0].bytes).toBe(Buffer.byteLength(await refused.text()))
    expect(lines[1].bytes).toBe(Buffer.byteLength(await missing.text()))
    expect(lines[3].bytes).toBe(0)
    expect(lines[4].bytes).toBe(0)
    expect(await viaPipeline.text()).toBe('')
    expect(await atEdge.text()).toBe('')
  })

  test('the route named in the log is the one Elysia ran (the catch-all for an unknown path, the page pattern for a rover page)', async () => {
    const before = t.accessLines.length
    await t.request('/api/v2/no-such-thing')
    await t.app.handle(new Request('http://localhost/rovers/curiosity'))
    const routes = t.accessLines.slice(before).map((l) => JSON.parse(l).route)
    expect(routes).toEqual(['/*', '/rovers/:slug'])
  })
})

describe('CORS (CORS_ORIGINS)', () => {
  test('a preflight from a listed origin is 204 without a key and is not counted', async () => {
    const left = remaining(await t.request('/api/v2/rovers'))
    const pre = await t.anonymous('/api/v2/photos', { method: 'OPTIONS', headers: { origin: 'https://app.example.org', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' } })
    expect(pre.status).toBe(204)
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://app.example.org')
    expect(pre.headers.get('access-control-allow-headers')).toContain('X-API-Key')
    expect(remaining(await t.request('/api/v2/rovers'))).toBe(left - 1)
  })

  test('answers to a listed origin expose ETag and the rate-limit headers; other origins and an unset list get no CORS header', async () => {
    const r = await t.request('/api/v2/rovers', { headers: { origin: 'https://app.example.org' } })
    expect(r.headers.get('access-control-allow-origin')).toBe('https://app.example.org')
    expect(r.headers.get('access-control-expose-headers')).toContain('ETag')
    expect(r.headers.get('access-control-expose-headers')).toContain('RateLimit-Policy')
    expect(r.headers.get('vary')).toContain('Origin')
    expect((await t.request('/api/v2/rovers', { headers: { origin: 'https://evil.example' } })).headers.get('access-control-allow-origin')).toBeNull()
    const pre = await open.anonymous('/api/v2/photos', { method: 'OPTIONS', headers: { origin: 'https://app.example.org', 'access-control-request-method': 'GET' } })
    expect(pre.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('IETF rate-limit fields', () => {
  test('RateLimit-Policy names the hour and day policies; RateLimit gives what is left of each', async () => {
    const r = await t.request('/api/v2/rovers')
    expect(r.headers.get('ratelimit-policy')).toBe('"hour";q=10000;w=3600, "day";q=100000;w=86400')
    const m = /^"hour";r=(\d+);t=(\d+), "day";r=(\d+);t=(\d+)$/.exec(r.headers.get('ratelimit')!)
    expect(m).not.toBeNull()
    expect(Number(m![1])).toBe(remaining(r))
    expect(Number(m![2])).toBeLessThanOrEqual(3600)
    expect(Number(m![4])).toBeLessThanOrEqual(86400)
  })

  test('an `If-None-Match: *` answer counts in the day window of RateLimit as in the hour window', async () => {
    const path = '/api/v2/photos?rovers=curiosity&per_page=2'
    const day = (r: Response) => Number(/"day";r=(\d+)/.exec(r.headers.get('ratelimit')!)![1])
    const hour = (r: Response) => Number(/"hour";r=(\d+)/.exec(r.headers.get('ratelimit')!)![1])
    const before = await t.request('/api/v2/rovers')
    const miss = await t.request('/api/v2/photos/999999999', { headers: { 'if-none-match': '*' } }) // a 404: counted
    expect(miss.status).toBe(404)
    expect(hour(miss)).toBe(hour(before) - 1)
    expect(day(miss)).toBe(day(before) - 1)
    const star = await t.request(path, { headers: { 'if-none-match': '*' } }) // a 304: the figures say what counting it would leave
    expect(star.status).toBe(304)
    expect(hour(star)).toBe(hour(before) - 2)
    expect(day(star)).toBe(day(before) - 2)
  })
})

describe('metrics', () => {
  test('/metrics on the main port needs the token and reports requests, latency, limiter, cache and index figures', async () => {
    await t.request('/api/v2/rovers')
    expect((await t.anonymous('/metrics')).status).toBe(401)
    const r = await t.anonymous('/metrics', { headers: { authorization: 'Bearer secret-token-1' } })
    expect(r.status).toBe(200)
    const text = await r.text()
    expect(text).toMatch(/http_requests_total\{route="\/api\/v2\/rovers",method="GET",status="200"\} \d+/)
    expect(text).toContain('http_request_duration_seconds_bucket{route="/api/v2/rovers",method="GET",status="200",le="0.005"}')
    expect(text).toMatch(/rate_limit_decisions_total\{decision="admitted"\} \d+/)
    expect(text).toMatch(/response_cache_hits_total \d+/)
    expect(text).toContain(`index_info{version="${t.deps.stores.current.version}"`)
    expect(text).toMatch(/index_age_seconds \d/)
    expect(text).toMatch(/process_resident_memory_bytes \d+/)
    expect(text).not.toContain(t.key)
  })
})

describe('metrics labels', () => {
  test('a client-chosen method token does not become a label value: unknown methods count as OTHER', () => {
    const m = t.app.metrics
    m.observe('unmatched', 'BREW', 405, 0.001, false)
    m.observe('unmatched', 'X'.repeat(50), 405, 0.001, false)
    const text = m.render()
    expect(text).toContain('http_requests_total{route="unmatched",method="OTHER",status="405"} 2')
    expect(text).not.toContain('BREW')
  })
})
