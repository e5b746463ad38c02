import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { MISSING_KEY_DETAIL } from '../src/keys/authenticate'
import { NOT_FOUND_LINKS, prefersHtml } from '../plugins/errors/not-found-page'
import { makeTestApp, type TestApp } from './setup/test-app'

/**
 * Paths outside the API that no route takes are a 404, not "An API key is required": a browser
 * gets an HTML page with links to the home page, the reference and the dashboard, anything else
 * a problem document; /favicon.ico is a real icon. Under /api (and anything that may be meant for
 * it) unknown paths keep failing closed, and a declared route keeps its own rule.
 */
let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(() => t.close())

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8' }

describe('outside the API', () => {
  test('/favicon.ico is a 32×32 ICO image, without a key, cacheable', async () => {
    for (const method of ['GET', 'HEAD']) {
      const r = await t.anonymous('/favicon.ico', { method })
      expect(r.status).toBe(200)
      expect(r.headers.get('content-type')).toBe('image/x-icon')
      expect(r.headers.get('cache-control')).toBe('public, max-age=86400')
      if (method === 'HEAD') continue
      const b = new Uint8Array(await r.arrayBuffer())
      const v = new DataView(b.buffer)
      expect([v.getUint16(0, true), v.getUint16(2, true), v.getUint16(4, true)]).toEqual([0, 1, 1]) // ICONDIR: icon, one image
      expect([b[6], b[7], v.getUint16(12, true)]).toEqual([32, 32, 32]) // 32×32, 32 bits a pixel
      expect(v.getUint32(18, true) + v.getUint32(14, true)).toBe(b.length) // the image fills the file
      expect(v.getUint32(22, true)).toBe(40) // a BITMAPINFOHEADER
      // some pixels drawn, the corners transparent
      const alpha = (x: number, y: number) => b[62 + (y * 32 + x) * 4 + 3]
      expect(alpha(0, 0)).toBe(0)
      expect(alpha(16, 16)).toBe(255)
    }
  })

  test('/nope and /dashbord: a browser gets a 404 HTML page linking home, the reference and the dashboard', async () => {
    for (const path of ['/nope', '/dashbord', '/rovers', '/docs/', '/%3Cscript%3Ealert(1)%3C/script%3E']) {
      const r = await t.anonymous(path, { headers: BROWSER })
      expect({ path, status: r.status, type: r.headers.get('content-type') }).toEqual({ path, status: 404, type: 'text/html; charset=utf-8' })
      const html = await r.text()
      for (const l of NOT_FOUND_LINKS) expect(html).toContain(`<a href="${l.href}">`)
      expect(NOT_FOUND_LINKS.map((l) => l.href)).toEqual(['/', '/api/v2/docs', '/dashboard'])
      expect(html).not.toContain('script')
    }
  })

  test('anything but a browser gets the 404 problem document; other methods a 405 with Allow, none asking for a key', async () => {
    for (const headers of [{}, { accept: 'application/json' }, { accept: 'application/json, text/html;q=0.5' }, { accept: '*/*' }] as Array<Record<string, string>>) {
      const r = await t.anonymous('/nope', { headers })
      expect({ headers, status: r.status }).toEqual({ headers, status: 404 })
      const p = (await r.json()) as { type: string; detail: string }
      expect(p.type).toBe('/errors/not-found')
      expect(p.detail).toBe('There is no resource at /nope.')
    }
    const post = await t.anonymous('/nope', { method: 'POST', headers: BROWSER })
    expect(post.status).toBe(404)
    expect(post.headers.get('content-type')).toStartWith('application/')
    const del = await t.anonymous('/health', { method: 'DELETE' })
    expect(del.status).toBe(405)
    expect(del.headers.get('allow')).toBe('GET, HEAD')
  })

  test('prefersHtml reads Accept as a browser means it', () => {
    expect(prefersHtml(BROWSER.accept)).toBe(true)
    expect(prefersHtml('text/html')).toBe(true)
    expect(prefersHtml(null)).toBe(false)
    expect(prefersHtml('*/*')).toBe(false)
    expect(prefersHtml('text/html;q=0')).toBe(false)
    expect(prefersHtml('application/json, text/html;q=0.9')).toBe(false)
  })
})

describe('under the API, and declared routes elsewhere, nothing changes', () => {
  test('an unknown path under /api (or meant for it) is 401 without a key, a browser included, and 404 with one', async () => {
    for (const path of ['/api/v2/nope', '/api/nope', '/api', '/API/v2/photos', '/xy/api/v2/photos', '/mars-photos/api/v1/nope', '/%61pi/v2/photos']) {
      const r = await t.anonymous(path, { headers: BROWSER })
      expect({ path, status: r.status }).toEqual({ path, status: 401 })
      expect(((await r.json()) as { detail: string }).detail).toBe(MISSING_KEY_DETAIL)
      expect({ path, status: (await t.request(path)).status }).toEqual({ path, status: 404 })
    }
  })

  test('declared routes outside the API keep their rule: the site pages open, an undeclared mounted route keyed', async () => {
    expect((await t.anonymous('/', { headers: BROWSER })).status).toBe(200)
    expect((await t.anonymous('/rovers/curiosity', { headers: BROWSER })).status).toBe(200)
    expect((await t.anonymous('/rovers/pluto', { headers: BROWSER })).status).toBe(404)
    expect((await t.anonymous('/dashboard', { headers: BROWSER })).status).toBe(200)
    const late = await makeTestApp()
    try {
      late.app.get('/__late-outside', () => 'late')
      expect((await late.anonymous('/__late-outside')).status).toBe(401)
      expect((await late.anonymous('/__late-outsidex')).status).toBe(404)
    } finally {
      await late.close()
    }
  })
})
