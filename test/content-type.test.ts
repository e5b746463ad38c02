import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { negotiateMediaType } from '../src/http/negotiate'
import { makeTestApp, type TestApp } from './setup/test-app'

/** Response JSON, untyped (tests assert on its fields). */
const json = (r: Response): Promise<any> => r.json()

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(() => t.close())

const CASES: Array<[accept: string | undefined, type: string]> = [
  [undefined, 'application/json'],
  ['application/json', 'application/json'],
  ['text/json', 'text/json'],
  ['text/plain', 'text/plain'],
  ['*/*', 'application/json'],
  ['text/*', 'application/json'],
  ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'application/json'],
  ['application/xml', 'application/json'],
  ['garbage;;;q=zz, ,,,/', 'application/json'],
  ['TEXT/JSON', 'text/json'],
  ['text/plain;q=0.5, text/json;q=0.9', 'text/json'],
  ['application/json;q=0.1, text/plain', 'text/plain'],
  ['text/json;q=0', 'application/json'],
  ['text/plain, application/json', 'application/json'],
  ['text/json; charset=utf-8', 'text/json'],
]

describe('Accept chooses the media type of success bodies (never 406)', () => {
  for (const [accept, type] of CASES) {
    test(`Accept ${accept === undefined ? '(none)' : JSON.stringify(accept)} -> ${type}`, async () => {
      const r = await t.request('/api/v2', accept === undefined ? {} : { headers: { accept } })
      expect(r.status).toBe(200)
      expect(r.headers.get('content-type')).toBe(`${type}; charset=utf-8`)
      expect(r.headers.get('vary')).toBe('Accept, Accept-Encoding')
      expect((await json(r)).links.self).toBe('http://localhost/api/v2')
    })
  }

  test('the body is the same JSON text whatever the media type', async () => {
    const texts = await Promise.all(['application/json', 'text/json', 'text/plain'].map(async (accept) => (await t.request('/api/v2', { headers: { accept } })).text()))
    expect(texts[1]).toBe(texts[0]!)
    expect(texts[2]).toBe(texts[0]!)
  })
})

describe('error bodies are negotiated the same way', () => {
  for (const [accept, type] of CASES) {
    test(`404 with Accept ${accept === undefined ? '(none)' : JSON.stringify(accept)} -> ${type}`, async () => {
      const r = await t.request('/api/v2/nowhere', accept === undefined ? {} : { headers: { accept } })
      expect(r.status).toBe(404)
      expect(r.headers.get('content-type')).toBe(`${type}; charset=utf-8`)
      expect((await json(r)).type).toBe('/errors/not-found')
    })
  }

  test('401 (before any route) and /health follow Accept too', async () => {
    const r = await t.anonymous('/api/v2', { headers: { accept: 'text/plain' } })
    expect(r.status).toBe(401)
    expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    const h = await t.anonymous('/health', { headers: { accept: 'text/json' } })
    expect(h.headers.get('content-type')).toBe('text/json; charset=utf-8')
  })

  test('a problem document may be asked for as application/problem+json (RFC 9457 §3)', async () => {
    const r = await t.request('/api/v2/nowhere', { headers: { accept: 'application/problem+json' } })
    expect(r.headers.get('content-type')).toBe('application/problem+json; charset=utf-8')
    const ok = await t.request('/api/v2', { headers: { accept: 'application/problem+json' } })
    expect(ok.headers.get('content-type')).toBe('application/json; charset=utf-8')
  })
})

describe('negotiateMediaType (unit)', () => {
  test('explicit types win by q, ties by preference; wildcards and junk fall back to application/json', () => {
    expect(negotiateMediaType(null)).toBe('application/json; charset=utf-8')
    expect(negotiateMediaType('text/plain;q=1.5')).toBe('application/json; charset=utf-8')
    expect(negotiateMediaType('text/plain;q=0.3,text/json;q=0.3')).toBe('text/json; charset=utf-8')
    expect(negotiateMediaType('x'.repeat(5000))).toBe('application/json; charset=utf-8')
  })
})
