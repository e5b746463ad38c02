import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { leaks, startRawServer, type RawServer } from './support'

/**
 * A malformed Host header once reached Bun's HTML development error page (absolute file paths,
 * source lines, stack frames), without a key. The server now runs with development mode off,
 * answers such a request with a 400 problem document before anything reads the URL, and its
 * error renderer cannot throw.
 */
const MALFORMED = ['x"y', '', 'a b', 'user@evil.com', 'h:99999', 'a/b', 'a\\b', '[::1', 'é.example', "a'b"]

let s: RawServer
beforeAll(async () => {
  s = await startRawServer()
})
afterAll(() => s.close())

describe('malformed Host headers', () => {
  for (const host of MALFORMED) {
    test(`Host: ${JSON.stringify(host)} gets a problem document (400 from the app, or the HTTP layer's bare refusal), never HTML or a stack`, async () => {
      for (const target of ['/api/v2/photos', '/zz', '/health']) {
        const a = await s.raw('GET', target, host)
        if (a === undefined) continue // the HTTP parser closed the connection: nothing leaked
        expect({ host, target, leaks: leaks(a) }).toEqual({ host, target, leaks: [] })
        expect({ host, target, status: a.status }).toEqual({ host, target, status: 400 })
        if (a.body !== '') {
          expect(a.headers.get('content-type')).toContain('json')
          expect(JSON.parse(a.body).type).toBe('/errors/validation-error')
        }
      }
    })
  }

  test('with a key, too: a malformed Host is a 400 and nothing is served', async () => {
    const a = (await s.raw('GET', '/api/v2/photos?per_page=1', 'x"y', { 'x-api-key': s.key }))!
    expect(a.status).toBe(400)
    expect(a.body).not.toContain('"data"')
  })

  test('a Host Bun cannot build a URL from leaves the bare target as request.url: refused, never routed by a shifted path (`//api/v1/rovers/curiosity` once reached /rovers/curiosity)', async () => {
    for (const host of ['<a>', 'a/b', 'a?b']) {
      for (const [method, target] of [['GET', '//api/v1/rovers/curiosity'], ['GET', '/xxxxxx/rovers/curiosity'], ['HEAD', '/qq/zz/api/v2/panoramas'], ['GET', '/api/v2/photos']] as const) {
        const a = await s.raw(method, target, host)
        if (a === undefined) continue // the HTTP parser closed the connection: nothing served
        expect({ host, target, status: a.status }).toEqual({ host, target, status: 400 })
        expect(a.body).not.toContain('<svg')
      }
    }
  })

  test('valid hosts are still served: names, ports, IPv4, IPv6 literals', async () => {
    for (const host of ['localhost', 'a', 'api.example.org:8443', '127.0.0.1:80', '[::1]', '[::1]:3000']) {
      const a = (await s.raw('GET', '/health', host))!
      expect({ host, status: a.status }).toEqual({ host, status: 200 })
    }
  })

  test('nothing the server logged is a non-JSON line (a stack printed by the runtime would be)', () => {
    const stray = s.server.lines.filter((l) => l.trim() !== '' && !l.startsWith('{'))
    expect(stray).toEqual([])
  })
})
