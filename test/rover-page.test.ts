import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { makeTestApp, type TestApp } from './setup/test-app'
import { ROVERS } from '../src/catalog/rovers'

/**
 * The public rover pages (/rovers/{slug}): what the HTML promises (no key, no script, nothing
 * remote, marks linked to listed places), then the page drawn by a real headless Chromium
 * (Debian's /usr/bin/chromium through puppeteer-core), screenshotted. Set UPDATE_SCREENSHOT=1 to
 * write the screenshot to docs/rover-page-curiosity.png (the one the README shows).
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(() => t.close())

describe('GET /rovers/{slug}', () => {
  test('every rover page needs no key, is HTML with no script, no remote resource and a CSP forbidding both', async () => {
    for (const r of ROVERS) {
      const res = await t.anonymous(`/rovers/${r.slug}`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'")
      const html = await res.text()
      expect(html).not.toMatch(/<script/i)
      expect(html).not.toMatch(/\b(src|xlink:href)\s*=\s*"https?:/i)
      expect(html).not.toMatch(/<link[^>]+stylesheet/i)
      expect(html).not.toMatch(/url\(\s*['"]?https?:/i)
      expect(html).toContain(`<h1>${r.name}: where it went</h1>`)
    }
  })

  test("a rover with waypoints gets an SVG traverse coloured by sol; each numbered mark links to its place's section, which lists its photos as links to NASA's image files", async () => {
    const html = await (await t.anonymous('/rovers/perseverance')).text()
    expect(html).toContain('<svg')
    const colours = new Set([...html.matchAll(/<polyline points="[^"]+" stroke="(#[0-9a-f]{6})"/g)].map((m) => m[1]))
    expect(colours.size).toBeGreaterThan(5)
    const svg = html.slice(html.indexOf('<svg'), html.indexOf('</svg>'))
    const marks = [...svg.matchAll(/<a href="#(site-\d+-\d+)">/g)].map((m) => m[1]!)
    expect(marks.length).toBe(10)
    for (const id of marks) {
      const section = html.slice(html.indexOf(`<section id="${id}">`))
      expect(section.length).toBeLessThan(html.length)
      const body = section.slice(0, section.indexOf('</section>'))
      expect(body).toMatch(/<a href="https:\/\/mars\.nasa\.gov\/[^"]+\.(JPG|jpg|png|PNG)">/)
    }
    expect(html).toContain("NASA&#39;s own cumulative distance")
  })

  test('a rover without waypoints says so instead of drawing; an unknown rover is a 404; a repeat with the ETag is a 304', async () => {
    const opp = await (await t.anonymous('/rovers/opportunity')).text()
    expect(opp).not.toContain('<svg')
    expect(opp).toContain('No waypoint table for Opportunity')
    const missing = await t.anonymous('/rovers/sojourner')
    expect(missing.status).toBe(404)
    const first = await t.anonymous('/rovers/curiosity')
    const tag = first.headers.get('etag')!
    expect((await t.anonymous('/rovers/curiosity', { headers: { 'if-none-match': tag } })).status).toBe(304)
  })
})

describe('the rover page in a real browser', () => {
  const hasChromium = existsSync(CHROMIUM)
  if (!hasChromium) console.warn(`[rover-page] SKIPPED the browser test: no Chromium at ${CHROMIUM} (install Debian's chromium, or set CHROMIUM_PATH)`)
  test.skipIf(!hasChromium)(
    "headless Chromium draws Curiosity's traverse and marks, asks for nothing beyond the page itself, and the screenshot shows them",
    async () => {
      const puppeteer = (await import('puppeteer-core')).default
      const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req) => t.app.handle(req) })
      const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })
      try {
        const page = await browser.newPage()
        await page.setViewport({ width: 1000, height: 1150 })
        const asked: string[] = []
        page.on('request', (r) => void asked.push(r.url()))
        const origin = `http://127.0.0.1:${server.port}`
        const res = await page.goto(`${origin}/rovers/curiosity`, { waitUntil: 'load', timeout: 20_000 })
        expect(res?.status()).toBe(200)
        expect(asked.every((u) => u.startsWith(origin))).toBe(true)
        // evaluated in the page (a string: the test itself has no DOM types)
        const drawn = (await page.evaluate(`(() => {
          const svg = document.querySelector('svg')
          const box = svg.getBoundingClientRect()
          const lines = [...document.querySelectorAll('svg polyline')]
          const length = lines.reduce((s, l) => s + l.getTotalLength(), 0)
          return { width: box.width, height: box.height, lines: lines.length, length, marks: document.querySelectorAll('svg a[href^="#site-"]').length }
        })()`)) as { width: number; height: number; lines: number; length: number; marks: number }
        expect(drawn.width).toBeGreaterThan(800)
        expect(drawn.height).toBeGreaterThan(300)
        expect(drawn.lines).toBeGreaterThan(10)
        expect(drawn.length).toBeGreaterThan(1000)
        expect(drawn.marks).toBeGreaterThanOrEqual(3) // Curiosity photos at a site and drive with a waypoint: sols 1000 and 3027 (3 places)
        const png = (await page.screenshot({ type: 'png' })) as Uint8Array
        // a PNG of the viewport's size (IHDR width and height, big-endian)
        expect([...png.slice(1, 4)].map((c) => String.fromCharCode(c)).join('')).toBe('PNG')
        const view = new DataView(png.buffer, png.byteOffset)
        expect(view.getUint32(16)).toBe(1000)
        expect(view.getUint32(20)).toBe(1150)
        expect(png.length).toBeGreaterThan(30_000)
        const out = process.env.UPDATE_SCREENSHOT ? join(import.meta.dir, '../docs/rover-page-curiosity.png') : join(import.meta.dir, '../.tmp/rover-page-curiosity.png')
        mkdirSync(join(out, '..'), { recursive: true })
        writeFileSync(out, png)
      } finally {
        await browser.close()
        server.stop(true)
      }
    },
    60_000,
  )
})
