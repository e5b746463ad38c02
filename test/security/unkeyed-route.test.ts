import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { makeTestApp, type TestApp } from '../setup/test-app'
import { startRawServer, type RawServer } from './support'
import { MISSING_KEY_DETAIL } from '../../src/keys/authenticate'
import { isApiPath } from '../../src/http/api-paths'

/**
 * The key check decides from the route that actually runs. Before, the router skipped a fixed
 * number of characters after the scheme while the gate looked for the first `/` after `//`, so
 * `Host: a` + `/xy/api/v2/photos` ran the photo list without a key and without rate limits.
 */
const SHORT_HOSTS = ['a', 'ab', 'abc', 'a:1']
const HOSTILE_HOSTS = [...SHORT_HOSTS, 'localhost', 'example.org:8080', '127.0.0.1', '[::1]:3000']
/**
 * The only routes under /api that need no key: the description of the interface
 * (docs/reliability.md, Security). A new open /api route must be added here on purpose.
 */
const OPEN_API_ROUTES = new Set(['GET /api/v2/openapi.json', 'GET /api/v2/docs'])

let s: RawServer
let t: TestApp
beforeAll(async () => {
  s = await startRawServer()
  t = await makeTestApp()
})
afterAll(async () => {
  await s.close()
  await t.close()
})

describe('a short Host header no longer skips the key check and the limits', () => {
  test('GET /xy/api/v2/photos with Host a, ab, abc, a:1 and no key is refused (401), never answered with photos', async () => {
    for (const host of SHORT_HOSTS) {
      const a = (await s.raw('GET', '/xy/api/v2/photos?rovers=spirit', host))!
      expect({ host, status: a.status }).toEqual({ host, status: 401 })
      expect(a.body).not.toContain('"data"')
    }
  })

  test('POST /qq/api/v2/photos/batch with a short Host and no key is refused (401)', async () => {
    for (const host of SHORT_HOSTS) {
      const a = (await s.raw('POST', '/qq/api/v2/photos/batch', host, { 'content-type': 'application/json' }, '{"ids":[1,2,3]}'))!
      expect({ host, status: a.status }).toEqual({ host, status: 401 })
    }
  })

  test('with a short Host the real path still works as usual: 401 without a key, 200 with rate-limit headers with one', async () => {
    for (const host of SHORT_HOSTS) {
      expect((await s.raw('GET', '/api/v2/photos?rovers=spirit&per_page=1', host))!.status).toBe(401)
      const ok = (await s.raw('GET', '/api/v2/photos?rovers=spirit&per_page=1', host, { 'x-api-key': s.key }))!
      expect(ok.status).toBe(200)
      expect(ok.headers.get('x-ratelimit-limit')).not.toBeNull()
    }
  })
})

/** A concrete path for an Elysia route pattern (`:id` -> 1, `*` -> x). */
const concrete = (pattern: string) => pattern.replace(/:[A-Za-z0-9_]+\??/g, '1').replace(/\*$/, 'x')

describe('every route of the assembled app, including routes added later, needs a key unless declared open', () => {
  test('the declarations: every route under /api is keyed except the OpenAPI document and its page; the catch-all is keyed for a path under the API', () => {
    const routes = t.app.routes
    expect(routes.length).toBeGreaterThan(10)
    expect(t.app.routeDocs.needsKey('GET', '/*')).toBe(true)
    expect(t.app.routeDocs.needsKey('GET', '/*', '/api/v2/nope')).toBe(true)
    expect(t.app.routeDocs.needsKey('GET', '/*', '/nope')).toBe(false)
    expect(t.app.routeDocs.needsKey('GET', '/health')).toBe(false)
    for (const r of routes) {
      const method = r.method === 'ALL' ? 'GET' : r.method
      const open = !t.app.routeDocs.needsKey(method, r.path)
      if (r.path === '/api' || r.path.startsWith('/api/')) expect({ route: `${method} ${r.path}`, open }).toEqual({ route: `${method} ${r.path}`, open: OPEN_API_ROUTES.has(`${method} ${r.path}`) })
    }
  })

  test('in process: every route, under every hostile Host and behind every prefix, answers 401 without a key unless it is declared open', async () => {
    for (const r of t.app.routes) {
      const method = r.method === 'ALL' ? 'GET' : r.method
      const path = concrete(r.path)
      for (const host of HOSTILE_HOSTS) {
        for (const prefix of ['', '/xy', '/qq/zz', '//']) {
          const res = await t.app.handle(new Request(`http://${host}${prefix}${path}`, { method, ...(method === 'POST' ? { body: '{"ids":[1]}', headers: { 'content-type': 'application/json' } } : {}) }))
          const open = prefix === '' && !t.app.routeDocs.needsKey(method, r.path, path)
          const label = `${method} http://${host}${prefix}${path}`
          // An open route may refuse for its own reasons (the dashboard's session), never for want of an API key.
          if (open) expect({ label, keyRefused: res.status === 401 && (await res.text()).includes(MISSING_KEY_DETAIL) }).toEqual({ label, keyRefused: false })
          // A keyed route answers 401 at its own path (under the API or not: /mcp). Behind a prefix no route takes the
          // path: under the API it is keyed, elsewhere a plain 404, never the route's answer.
          else expect({ label, status: res.status }).toEqual({ label, status: prefix === '' || isApiPath(prefix + path) ? 401 : 404 })
        }
      }
    }
  })

  test('over the wire: every route, under every hostile Host and behind every prefix, answers 401 without a key unless it is declared open', async () => {
    for (const r of t.app.routes) {
      const method = r.method === 'ALL' ? 'GET' : r.method
      const path = concrete(r.path)
      for (const host of HOSTILE_HOSTS) {
        for (const prefix of ['', '/xy', '/qq/zz']) {
          const a = await s.raw(method, prefix + path, host, method === 'POST' ? { 'content-type': 'application/json' } : {}, method === 'POST' ? '{"ids":[1]}' : undefined)
          const open = prefix === '' && !t.app.routeDocs.needsKey(method, r.path, path)
          const label = `${method} ${prefix}${path} Host: ${host}`
          if (open) expect({ label, keyRefused: a?.status === 401 && String(a?.body).includes(MISSING_KEY_DETAIL) }).toEqual({ label, keyRefused: false })
          else expect({ label, status: a?.status }).toEqual({ label, status: prefix === '' || isApiPath(prefix + path) ? 401 : 404 })
        }
      }
    }
  })

  test('a route added to the app after it was assembled, and never declared, is keyed (fail closed)', async () => {
    const late = await makeTestApp()
    try {
      late.app.get('/api/v2/__late', () => ({ data: 'late' }))
      late.app.get('/__late-outside', () => ({ data: 'late' }))
      expect((await late.anonymous('/api/v2/__late')).status).toBe(401)
      expect((await late.anonymous('/__late-outside')).status).toBe(401)
      expect((await late.request('/api/v2/__late')).status).toBe(200)
    } finally {
      await late.close()
    }
  })
})
