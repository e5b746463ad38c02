import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { QUERY_KEY_DETAIL } from '../src/keys/authenticate'
import { connect } from 'node:net'
import { makeTestApp, type TestApp } from './setup/test-app'

/**
 * Keys in the URL (decisions.md): only the v1 layer accepts `api_key=`; it counts like the
 * header, and the value never reaches a log line, a cache or ETag key, or a link we return.
 */
let t: TestApp
let second: string
beforeAll(async () => {
  t = await makeTestApp({ authFailLimit: 3, trustProxy: true })
  second = t.deps.keys.create('second-v1@example.com')
})
afterAll(() => t.close())

const anon = (path: string, headers: Record<string, string> = {}) => t.anonymous(path, { headers })

describe('api_key in the query string', () => {
  test('is accepted on both v1 prefixes and refused on v2, where only X-API-Key counts', async () => {
    expect((await anon(`/api/v1/rovers?api_key=${t.key}`)).status).toBe(200)
    expect((await anon(`/mars-photos/api/v1/rovers/spirit/photos?sol=1&api_key=${t.key}`)).status).toBe(200)
    const v2 = await anon(`/api/v2/rovers?api_key=${t.key}`)
    expect(v2.status).toBe(401)
    expect(((await v2.json()) as any).detail).toBe(QUERY_KEY_DETAIL)
    expect((await anon(`/api/v2/photos/102693?api_key=${t.key}`)).status).toBe(401)
    // Without any key the v1 paths are keyed too (/mars-photos is outside /api).
    const none = await anon('/mars-photos/api/v1/rovers')
    expect(none.status).toBe(401)
    expect(typeof ((await none.json()) as any).errors).toBe('string')
  })

  test('over HTTP, a target that starts under a v1 prefix but resolves to v2 (dot segments, encoded or not) does not take api_key', async () => {
    const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (r) => t.app.handle(r) })
    try {
      const raw = (target: string) =>
        new Promise<string>((resolve) => {
          const c = connect(server.port!, '127.0.0.1', () => c.write(`GET ${target} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n`))
          let buf = ''
          c.setTimeout(5000, () => c.destroy())
          c.on('data', (d) => (buf += d))
          c.on('close', () => resolve(buf.split('\r\n')[0] ?? ''))
        })
      for (const target of ['/api/v1/../v2/rovers', '/api/v1/%2e%2e/v2/rovers', '/mars-photos/api/v1/../../../api/v2/photos/102693'])
        expect([target, await raw(`${target}?api_key=${t.key}`)]).toEqual([target, 'HTTP/1.1 401 Unauthorized'])
      expect(await raw(`/mars-photos/api/v1/rovers?api_key=${t.key}`)).toBe('HTTP/1.1 200 OK')
    } finally {
      server.stop(true)
    }
  })

  test('an unknown api_key is a 401 on v1; the header wins when both are sent', async () => {
    const bad = 'mv_live_' + '0'.repeat(40)
    expect((await anon(`/api/v1/rovers?api_key=${bad}`)).status).toBe(401)
    expect((await anon(`/api/v1/rovers?api_key=${bad}`, { 'x-api-key': t.key })).status).toBe(200)
  })

  test('calls with api_key and with the header count against the same key and carry the same headers', async () => {
    const remaining = async (r: Response) => Number(r.headers.get('x-ratelimit-remaining'))
    const a = await remaining(await anon(`/api/v1/rovers?api_key=${second}`))
    const b = await remaining(await anon('/api/v2/rovers', { 'x-api-key': second }))
    const c = await remaining(await anon(`/mars-photos/api/v1/manifests/spirit?api_key=${second}`))
    expect([b, c]).toEqual([a - 1, a - 2])
  })

  test('the answer, its ETag and its cache entry do not depend on which key sent it, nor how', async () => {
    const path = '/api/v1/rovers/curiosity/photos?sol=1000&camera=navcam'
    const r1 = await anon(`${path}&api_key=${t.key}`)
    const r2 = await anon(`${path}&api_key=${second}`)
    const r3 = await anon(path, { 'x-api-key': second })
    const tags = [r1, r2, r3].map((r) => r.headers.get('etag'))
    expect(new Set(tags).size).toBe(1)
    expect(await r1.text()).toBe(await r2.text())
    // The ETag is made from the canonical request key, the same key the response cache uses: a key in it would split them.
    const cond = await anon(`${path}&api_key=${second}`, { 'if-none-match': tags[0]! })
    expect(cond.status).toBe(304)
  })
})

describe('a key in the URL never comes back or reaches the log', () => {
  test('api_key on v2, whatever its case and beside a valid X-API-Key, is a 401 pointing at the header that never echoes the key', async () => {
    const secret = 'mv_live_' + 'a'.repeat(40)
    for (const name of ['api_key', 'API_KEY', 'Api_Key']) {
      const r = await anon(`/api/v2/photos?rovers=curiosity&per_page=2&${name}=${secret}`, { 'x-api-key': t.key })
      expect(r.status).toBe(401)
      const text = await r.text()
      expect(text).not.toContain(secret)
      expect(JSON.parse(text).detail).toBe(QUERY_KEY_DETAIL)
      for (const h of r.headers.values()) expect(h).not.toContain(secret)
    }
  })

  test('no log line holds a key sent in the URL: valid, unknown, throttled, or on a failing request', async () => {
    const unknown = 'mv_live_' + 'b'.repeat(40)
    const from = { 'x-forwarded-for': '203.0.113.9' }
    for (let i = 0; i < 6; i++) await anon(`/api/v1/rovers/curiosity/photos?sol=1000&api_key=${unknown}`, from)
    const throttled = await anon(`/api/v1/rovers?api_key=${unknown}`, from)
    expect(throttled.status).toBe(429)
    expect(t.logs.some((l) => l.event === 'auth.throttled')).toBe(true)
    for (const p of ['/api/v1/rovers/zeus', '/api/v1/photos/abc', '/api/v1/rovers/curiosity/photos', '/api/v1/nowhere']) await anon(`${p}?api_key=${t.key}`)
    const logged = JSON.stringify(t.logs)
    for (const k of [t.key, second, unknown]) expect(logged).not.toContain(k)
    expect(logged).not.toContain('api_key=')
  })
})
