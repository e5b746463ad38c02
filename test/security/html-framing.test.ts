import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { makeTestApp, type TestApp } from '../setup/test-app'

/**
 * Every HTML answer the service gives can be neither framed by another site nor run a script it
 * did not declare: Content-Security-Policy with `frame-ancestors 'none'`, no `'unsafe-inline'`
 * script (each inline script allowed by its SHA-256), and `X-Frame-Options: DENY`.
 */
let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(async () => {
  await t.close()
})

const sha256 = (s: string) => `'sha256-${Bun.CryptoHasher.hash('sha256', s, 'base64')}'`

function checkHtml(where: string, r: Response, body: string): void {
  expect(r.headers.get('x-frame-options'), where).toBe('DENY')
  const csp = r.headers.get('content-security-policy')
  expect(csp, where).not.toBeNull()
  const directives = new Map(csp!.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k!, v]))
  expect(directives.get('frame-ancestors'), where).toEqual(["'none'"])
  const scriptSrc = directives.get('script-src') ?? directives.get('default-src')!
  expect(scriptSrc, where).not.toContain("'unsafe-inline'")
  expect(scriptSrc, where).not.toContain("'unsafe-eval'")
  expect(scriptSrc, where).not.toContain('*')
  for (const m of body.matchAll(/<script(?:\s[^>]*)?>([\s\S]*?)<\/script>/gi)) expect(scriptSrc, `${where}: inline script not allowed by its hash`).toContain(sha256(m[1]!))
}

describe('HTML answers cannot be framed', () => {
  test('the docs page (/api/v2/docs, where a key is pasted) and the landing page /: CSP frame-ancestors none, hashed script, X-Frame-Options DENY', async () => {
    for (const path of ['/api/v2/docs', '/']) {
      const r = await t.anonymous(path)
      expect(r.status, path).toBe(200)
      expect(r.headers.get('content-type')).toStartWith('text/html')
      checkHtml(path, r, await r.text())
    }
  })

  test('the dashboard, its error pages and the rover pages carry the same guarantees', async () => {
    for (const path of ['/dashboard', '/dashboard/link?token=short', '/dashboard/confirm?action=x', '/rovers/curiosity', '/rovers/perseverance']) {
      const r = await t.anonymous(path)
      if (!(r.headers.get('content-type') ?? '').startsWith('text/html')) continue
      checkHtml(path, r, await r.text())
    }
  })

  test('every GET route of the assembled app that answers HTML, with or without a key, under a hostile Host too', async () => {
    let html = 0
    const paths = new Set<string>()
    for (const r of t.app.routes) {
      if (r.method !== 'GET' || r.path.includes('*')) continue
      paths.add(r.path.replace(/:([a-z_]+)/gi, (_, n: string) => (n === 'slug' || n === 'rover' ? 'curiosity' : '1')))
    }
    paths.add('/no-such-page')
    for (const path of paths) {
      const inits: RequestInit[] = [{}, { headers: { 'x-api-key': t.key, host: 'evil.example' } }, { headers: { accept: 'text/html' } }]
      for (const init of inits) {
        const r = await t.request(path, init)
        if (!(r.headers.get('content-type') ?? '').startsWith('text/html')) {
          // Not read: a live stream (Server-Sent Events) never ends.
          await r.body?.cancel()
          continue
        }
        html++
        checkHtml(path, r, await r.text())
      }
    }
    expect(html).toBeGreaterThanOrEqual(4)
  }, 60_000)
})

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
describe.skipIf(!existsSync(CHROMIUM))('the docs page under its policy, in Chromium', () => {
  test('its operations render (on the server, under the hashed style), no policy violation, and another page cannot frame it', async () => {
    const puppeteer = (await import('puppeteer-core')).default
    const served = await makeTestApp()
    served.app.listen({ port: 0, hostname: '127.0.0.1' })
    const origin = `http://127.0.0.1:${served.app.server!.port}`
    const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })
    try {
      const page = await browser.newPage()
      const violations: string[] = []
      page.on('console', (m) => {
        if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text())
      })
      expect((await page.goto(`${origin}/api/v2/docs`))!.status()).toBe(200)
      await page.waitForSelector('section.op', { timeout: 10_000 })
      expect(await page.$$eval('section.op', (e) => e.length)).toBeGreaterThan(10)
      // The hashed style block applies: the operation boxes get their border.
      expect(await page.$eval('section.op', (e) => (globalThis as unknown as { getComputedStyle(e: unknown): { borderTopStyle: string } }).getComputedStyle(e).borderTopStyle)).toBe('solid')
      expect(violations).toEqual([])
      // A page of another origin (a data: URL) framing the docs page: the frame stays empty.
      const framer = await browser.newPage()
      const blocked: string[] = []
      framer.on('console', (m) => void blocked.push(m.text()))
      await framer.goto(`data:text/html,<iframe src="${origin}/api/v2/docs"></iframe>`)
      await Bun.sleep(1_000)
      const frame = framer.frames().find((f) => f.url().startsWith(origin))
      const loaded = frame ? await frame.$('section.op').then((e) => e !== null, () => false) : false
      expect(loaded).toBe(false)
    } finally {
      await browser.close()
      await served.app.stop(true)
      await served.close()
    }
  }, 60_000)
})
