import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { makeTestApp, type TestApp } from './setup/test-app'

/**
 * The hot paths answer without a Promise (src/http/sync-hook.ts): Elysia guesses from source text
 * whether a hook or handler is async, and one wrong guess makes every request await. app.fetch
 * hands back the Response itself only when no hook or handler on the way was awaited.
 */
let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(() => t.close())

const LIST = 'http://localhost/api/v2/photos?rovers=curiosity&per_page=5'

function fetchSync(url: string, headers: Record<string, string> = {}): Response {
  const out = t.app.fetch(new Request(url, { headers }))
  expect(out).toBeInstanceOf(Response)
  return out as Response
}

describe('the hot paths answer synchronously, with the same answers', () => {
  test('/health comes back as a Response, not a Promise, and is a 200 JSON body', async () => {
    const r = fetchSync('http://localhost/health')
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(((await r.json()) as { status: string }).status).toBe('ok')
  })

  test('a cached list answer comes back as a Response with its ETag and rate-limit headers', async () => {
    await t.request(LIST.slice('http://localhost'.length)) // fill the response cache
    const r = fetchSync(LIST, { 'x-api-key': t.key })
    expect(r.status).toBe(200)
    expect(r.headers.get('etag')).toMatch(/^W\//)
    expect(r.headers.get('x-ratelimit-limit')).not.toBeNull()
    const body = (await r.json()) as { data: unknown[]; meta: { timestamp: string } }
    expect(body.data.length).toBe(5)
    expect(Date.parse(body.meta.timestamp)).toBeGreaterThan(Date.now() - 60_000)
  })

  test('a 304 revalidation comes back as a Response and is not counted', async () => {
    const first = fetchSync(LIST, { 'x-api-key': t.key })
    const etag = first.headers.get('etag')!
    const remaining = first.headers.get('x-ratelimit-remaining')
    for (let i = 0; i < 3; i++) {
      const r = fetchSync(LIST, { 'x-api-key': t.key, 'if-none-match': etag })
      expect(r.status).toBe(304)
      expect(r.headers.get('etag')).toBe(etag)
      expect(r.headers.get('x-ratelimit-remaining')).toBe(remaining)
      expect(await r.text()).toBe('')
    }
  })

  test('errors still come back as problem documents (the error hook is declared synchronous too)', async () => {
    const r = await t.request('/api/v2/photos?sol=abc')
    expect(r.status).toBe(400)
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8')
    const p = (await r.json()) as { errors?: Array<{ parameter: string }> }
    expect(p.errors?.[0]?.parameter).toBe('sol')
  })
})
