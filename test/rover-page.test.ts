import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { makeTestApp, type TestApp } from './setup/test-app'
import { ROVERS } from '../src/catalog/rovers'
import { isNasaImageUrl, NASA_IMAGE_HOSTS } from '../plugins/journeys/nasa-image-hosts'
import { testStore } from './setup/test-app'
import { utf8At } from '../src/query/order/sort-values'

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
  test("every rover page needs no key, is HTML with no script, loads nothing remote but thumbnails from NASA's image hosts, and its CSP allows exactly that", async () => {
    for (const r of ROVERS) {
      const res = await t.anonymous(`/rovers/${r.slug}`)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
      const csp = res.headers.get('content-security-policy')!
      expect(csp).toContain("default-src 'none'")
      expect(csp).not.toContain('script-src')
      expect(csp).toContain(`img-src 'self' data: ${NASA_IMAGE_HOSTS.map((h) => `https://${h} http://${h}`).join(' ')};`)
      const html = await res.text()
      expect(html).not.toMatch(/<script/i)
      expect(html).not.toMatch(/\bxlink:href\s*=\s*"https?:/i)
      const srcs = [...html.matchAll(/\bsrc\s*=\s*"([^"]*)"/gi)].map((m) => m[1]!)
      for (const src of srcs) expect(isNasaImageUrl(src.replaceAll('&amp;', '&'))).toBe(true)
      expect([...html.matchAll(/<img /g)].length).toBe(srcs.length)
      // one header shared with / and the dashboard: home, the API docs, the dashboard and every rover
      expect(html).toContain('<header class="site"><a class="brand" href="/">')
      for (const href of ['/api/v2/docs', '/dashboard', ...ROVERS.map((x) => `/rovers/${x.slug}`)]) expect(html).toContain(`href="${href}"`)
      expect(html).toContain(`<a href="/rovers/${r.slug}" aria-current="page">`)
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
      expect(body).toMatch(/<a class="thumb" href="https:\/\/mars\.nasa\.gov\/[^"]+\.(JPG|jpg|png|PNG)" rel="noreferrer"><img src="https:\/\/mars\.nasa\.gov\/[^"]+" alt="[^"]+" loading="lazy"/)
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

describe('thumbnails and labels', () => {
  test("every image URL of the index is on one of NASA's image hosts the rover page's CSP allows", async () => {
    const store = await testStore()
    const hosts = new Set(store.photos.image_dir.dict.filter((d) => d !== '').map((d) => new URL(d).host))
    expect(hosts.size).toBeGreaterThan(0)
    for (const h of hosts) expect(NASA_IMAGE_HOSTS as readonly string[]).toContain(h)
  })

  test('each photo of a listed place is a thumbnail (the smallest size it has) linking to its largest image, with its id on a line of its own', async () => {
    const store = await testStore()
    const html = await (await t.anonymous('/rovers/perseverance')).text()
    const cards = [...html.matchAll(/<li><a class="thumb" href="([^"]+)" rel="noreferrer"><img src="([^"]+)" alt="[^"]+" [^>]*><\/a><b>[^<]+<\/b>\d{4}-\d{2}-\d{2}<code>([^<]+)<\/code><\/li>/g)]
    expect(cards.length).toBeGreaterThan(100)
    const p = store.photos
    // (thumbnail, link) of every photo by its image id (one id may name several photos)
    const pairs = new Map<string, Set<string>>()
    for (let r = 0; r < p.length; r++) {
      const dir = p.image_dir.dict[p.image_dir.codes[r]!]!
      const sizes = [p.image_small, p.image_medium, p.image_large, p.image_full].map((c) => utf8At(c, r))
      const pair = `${dir + sizes.find((f) => f !== '')} ${dir + [sizes[2], sizes[3], sizes[1], sizes[0]].find((f) => f !== '')}`
      const id = utf8At(p.nasa_id, r)
      ;(pairs.get(id) ?? pairs.set(id, new Set()).get(id)!).add(pair)
    }
    for (const [, href, src, id] of cards) expect(pairs.get(id!)?.has(`${src} ${href}`)).toBe(true)
  })
})

describe('the rover page in a real browser', () => {
  const hasChromium = existsSync(CHROMIUM)
  if (!hasChromium) console.warn(`[rover-page] SKIPPED the browser test: no Chromium at ${CHROMIUM} (install Debian's chromium, or set CHROMIUM_PATH)`)
  test.skipIf(!hasChromium)(
    "headless Chromium draws Curiosity's traverse and marks with ranks that do not overlap, asks for nothing but the page and thumbnails from NASA's image hosts, and on a phone the page does not scroll sideways",
    async () => {
      const puppeteer = (await import('puppeteer-core')).default
      const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req) => t.app.handle(req) })
      const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })
      try {
        const page = await browser.newPage()
        await page.setViewport({ width: 1000, height: 1150 })
        const asked: string[] = []
        // This machine has no route to NASA: image requests the page makes (and its CSP let
        // through) are answered 404 here, so they are counted without waiting on the network.
        await page.setRequestInterception(true)
        page.on('request', (r) => {
          asked.push(r.url())
          if (isNasaImageUrl(r.url())) void r.respond({ status: 404, body: '' })
          else void r.continue()
        })
        const origin = `http://127.0.0.1:${server.port}`
        const res = await page.goto(`${origin}/rovers/curiosity`, { waitUntil: 'load', timeout: 20_000 })
        expect(res?.status()).toBe(200)
        // the thumbnails far below the map load when scrolled to (lazy)
        const nasa = page.waitForRequest((r) => isNasaImageUrl(r.url()), { timeout: 10_000 })
        await page.evaluate(`[...document.querySelectorAll('section')].at(-1).scrollIntoView()`)
        await nasa
        const remote = asked.filter((u) => !u.startsWith(origin))
        expect(remote.every((u) => isNasaImageUrl(u))).toBe(true)
        expect(remote.length).toBeGreaterThan(0)
        await page.evaluate(`window.scrollTo(0, 0)`)
        // Stacked ranks beside one circle, circles, and the photo cards never overlap, on every drawn map.
        const OVERLAPS = `(() => {
          const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5
          const boxes = (sel) => [...document.querySelectorAll(sel)].map((e) => e.getBoundingClientRect())
          let n = 0
          for (const sel of ['svg text.tag', 'ol.photos li']) {
            const b = boxes(sel)
            for (let i = 0; i < b.length; i++) for (let j = i + 1; j < b.length; j++) if (hit(b[i], b[j])) n++
          }
          const tags = boxes('svg text.tag')
          for (const c of boxes('svg circle.mark')) for (const b of tags) if (hit(b, c)) n++
          const ids = [...document.querySelectorAll('ol.photos code')].filter((c) => c.scrollWidth > c.clientWidth + 1).length
          return { n, ids, tags: tags.length }
        })()`
        for (const slug of ['curiosity', 'perseverance', 'spirit']) {
          if (slug !== 'curiosity') await page.goto(`${origin}/rovers/${slug}`, { waitUntil: 'load' })
          const overlaps = (await page.evaluate(OVERLAPS)) as { n: number; ids: number; tags: number }
          expect({ slug, ...overlaps }).toEqual({ slug, n: 0, ids: 0, tags: overlaps.tags })
          if (slug !== 'spirit') expect(overlaps.tags).toBeGreaterThan(1)
        }
        await page.goto(`${origin}/rovers/curiosity`, { waitUntil: 'load' })
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

        // A phone: the page fits its width (the map scrolls inside its own box), two thumbnails a row.
        await page.setViewport({ width: 390, height: 844, isMobile: true, deviceScaleFactor: 2 })
        await page.reload({ waitUntil: 'load' })
        const phone = (await page.evaluate(`(() => {
          const row = [...document.querySelectorAll('section ol.photos')][0].children
          return { page: document.documentElement.scrollWidth, view: window.innerWidth, perRow: [...row].filter((li) => li.getBoundingClientRect().top === row[0].getBoundingClientRect().top).length }
        })()`)) as { page: number; view: number; perRow: number }
        expect(phone.page).toBeLessThanOrEqual(phone.view)
        expect(phone.perRow).toBe(2)
      } finally {
        await browser.close()
        server.stop(true)
      }
    },
    60_000,
  )
})
