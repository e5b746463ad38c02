import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import { makeDashboardApp } from './setup/dashboard-app'
import { keyStoreKinds } from './setup/key-stores'
import { linkIn } from './setup/smtp'

// A test may be the first to start this process's PostgreSQL cluster (initdb, a few seconds on a loaded machine).
setDefaultTimeout(30_000)

/**
 * The whole dashboard flow in a real browser: Debian's Chromium (installed by .ci/run), headless,
 * driven by puppeteer-core, against the service listening on a loopback port with its mail going
 * to a real SMTP server in this process. Every page is saved as a screenshot under
 * DASHBOARD_SCREENSHOTS (default .tmp/dashboard-screenshots/<store>/); the README shows the ones
 * committed under docs/dashboard/.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const SHOTS = process.env.DASHBOARD_SCREENSHOTS ?? join(import.meta.dir, '..', '.tmp', 'dashboard-screenshots')
const KEY = /^mv_live_[0-9a-f]{40}$/

const available = existsSync(CHROMIUM)
if (!available) console.warn(`${CHROMIUM} is not installed: the browser test is skipped (apt-get install chromium)`)

let browser: Browser
beforeAll(async () => {
  if (!available) return
  browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })
})
afterAll(async () => {
  await browser?.close()
})

async function api(origin: string, key: string): Promise<number> {
  return (await fetch(`${origin}/api/v2/photos?rovers=curiosity&per_page=1`, { headers: { 'x-api-key': key } })).status
}

for (const kind of keyStoreKinds()) {
  describe.skipIf(!available)(`dashboard in Chromium on ${kind.name}`, () => {
    test('sign in by mail, create a key, call the API with it, regenerate (old 401, new 200), sign out; the used link is refused', async () => {
      const t = await makeDashboardApp(kind)
      const origin = t.listen()
      const context = await browser.createBrowserContext()
      const dir = join(SHOTS, kind.name)
      mkdirSync(dir, { recursive: true })
      let n = 0
      const shot = async (page: Page, name: string) => {
        await page.screenshot({ path: join(dir, `${String(++n).padStart(2, '0')}-${name}.png`), fullPage: true })
      }
      const clickAndWait = async (page: Page, selector: string) => {
        const [res] = await Promise.all([page.waitForNavigation(), page.click(selector)])
        return res!
      }
      try {
        const page = await context.newPage()
        await page.setViewport({ width: 900, height: 700 })
        expect((await page.goto(`${origin}/dashboard`))!.status()).toBe(200)
        await shot(page, 'sign-in')

        await page.type('#email', 'Browser.User@Example.org')
        expect((await clickAndWait(page, 'button[type=submit]')).status()).toBe(200)
        expect(await page.$eval('h1', (e) => e.textContent)).toBe('Check your mailbox')
        await shot(page, 'check-mail')

        const link = linkIn(await t.smtp.nextTo('browser.user@example.org'))
        expect((await page.goto(link))!.status()).toBe(200)
        await shot(page, 'finish-sign-in')
        expect((await clickAndWait(page, 'button[type=submit]')).status()).toBe(200) // after the 303 to /dashboard
        expect(await page.$eval('#key-state', (e) => e.textContent)).toBe('No key yet.')
        await shot(page, 'signed-in-no-key')

        // POST/redirect/GET: the form's answer is a 303 that the browser follows to /dashboard.
        expect((await clickAndWait(page, 'form[action="/dashboard/key"] button')).status()).toBe(200)
        expect(new URL(page.url()).pathname).toBe('/dashboard')
        const first = (await page.$eval('#api-key', (e) => e.textContent))!
        expect(first).toMatch(KEY)
        expect(await page.$eval('button[data-copy]', (e) => (e as unknown as { hidden: boolean }).hidden)).toBe(false) // the script ran under the CSP
        await shot(page, 'key-created')
        expect(await api(origin, first)).toBe(200)
        // A reload asks for /dashboard again (no form resent): the dashboard, the key no longer shown.
        const reloaded = (await page.reload())!
        expect(reloaded.status()).toBe(200)
        expect(reloaded.request().method()).toBe('GET')
        expect(await page.$eval('h1', (e) => e.textContent)).toBe('Your API key')
        expect(await page.$('#api-key')).toBeNull()
        expect(await page.content()).not.toContain('out of date')

        await page.goto(`${origin}/dashboard`)
        expect(await page.$('#api-key')).toBeNull() // shown once only
        expect(await page.$eval('#use-hour', (e) => e.textContent)).toBe('1 of 10,000')
        await shot(page, 'dashboard-with-usage')
        await page.setViewport({ width: 390, height: 844, isMobile: true })
        await shot(page, 'dashboard-on-a-phone')
        await page.setViewport({ width: 900, height: 700 })

        await clickAndWait(page, 'form[action="/dashboard/confirm"] button')
        expect(await page.$eval('h1', (e) => e.textContent)).toBe('Regenerate your key?')
        await shot(page, 'confirm-regenerate')
        await clickAndWait(page, 'button.danger')
        const second = (await page.$eval('#api-key', (e) => e.textContent))!
        expect(second).toMatch(KEY)
        expect(second).not.toBe(first)
        await shot(page, 'key-regenerated')
        expect(await api(origin, first)).toBe(401)
        expect(await api(origin, second)).toBe(200)

        await clickAndWait(page, 'form[action="/dashboard/sign-out"] button')
        expect(await page.$eval('h1', (e) => e.textContent)).toBe('Sign in to your API key dashboard')
        await shot(page, 'signed-out')

        expect((await page.goto(link))!.status()).toBe(200)
        expect((await clickAndWait(page, 'button[type=submit]')).status()).toBe(400)
        expect(await page.$eval('h1', (e) => e.textContent)).toBe('This sign-in link does not work')
        await shot(page, 'link-used-twice')
      } finally {
        await context.close()
        await t.close()
      }
    }, 60_000)
  })
}

/**
 * The site as one product, walked through its shared header in Chromium, and two of the
 * screenshots the README shows: the API docs page and the dashboard right after a key is created
 * (the key and the first request with it); the rover page's is test/rover-page.test.ts's. Written
 * to docs/screenshots/ with UPDATE_SCREENSHOTS=1, else to .tmp/site-screenshots/ (a run does not
 * change tracked files).
 */
const SITE_SHOTS = process.env.UPDATE_SCREENSHOTS ? join(import.meta.dir, '..', 'docs', 'screenshots') : join(import.meta.dir, '..', '.tmp', 'site-screenshots')

describe.skipIf(!available)('the site in Chromium', () => {
  test('from / through the shared header: the dashboard (sign in, create a key: 303 to the page showing it once, with a ready first request; a reload shows the dashboard), the API docs and a rover page', async () => {
    const t = await makeDashboardApp(keyStoreKinds()[0]!)
    const origin = t.listen()
    const context = await browser.createBrowserContext()
    mkdirSync(SITE_SHOTS, { recursive: true })
    const follow = async (page: Page, selector: string) => {
      const [res] = await Promise.all([page.waitForNavigation(), page.click(selector)])
      return res!
    }
    try {
      const page = await context.newPage()
      // Offline machine: NASA's image hosts are answered 404 here (the rover page's thumbnails).
      await page.setRequestInterception(true)
      page.on('request', (r) => void (r.url().startsWith(origin) ? r.continue() : r.respond({ status: 404, body: '' })))
      await page.setViewport({ width: 1000, height: 800 })
      expect((await page.goto(`${origin}/`))!.status()).toBe(200)
      const nav = await page.$$eval('header.site a', (as) => as.map((a) => a.getAttribute('href')))
      expect(nav).toEqual(['/', '/api/v2/docs', '/dashboard', '/rovers/curiosity', '/rovers/opportunity', '/rovers/perseverance', '/rovers/spirit'])

      expect((await follow(page, 'header.site a[href="/dashboard"]')).status()).toBe(200)
      expect(await page.$$eval('header.site a', (as) => as.map((a) => a.getAttribute('href')))).toEqual(nav)
      await page.type('#email', 'site.walk@example.org')
      await follow(page, 'button[type=submit]')
      expect(await page.$eval('main', (e) => e.textContent)).toContain('a sign-in link is on its way to its mailbox')
      await page.goto(linkIn(await t.smtp.nextTo('site.walk@example.org')))
      await follow(page, 'button[type=submit]')
      const created = await follow(page, 'form[action="/dashboard/key"] button')
      expect(created.status()).toBe(200)
      expect(created.request().redirectChain().map((r) => [r.method(), r.response()?.status()])).toEqual([['POST', 303]])
      expect(new URL(page.url()).pathname).toBe('/dashboard')
      const key = (await page.$eval('#api-key', (e) => e.textContent))!
      expect(key).toMatch(KEY)
      const first = (await page.$eval('#first-request', (e) => e.textContent))!
      // The test server's PUBLIC_URL is the address it listens on (test/setup/dashboard-app.ts).
      expect(first).toBe(`curl -H 'X-API-Key: ${key}' \\\n  '${origin}/api/v2/photos?rovers=curiosity&sol=1000&per_page=5'`)
      // the request as shown, sent to this server, answers the five photos
      const shown = /'(http[^']+\/api\/v2\/[^']+)'/.exec(first)![1]!
      const answer = await fetch(shown, { headers: { 'x-api-key': key } })
      expect(answer.status).toBe(200)
      expect(((await answer.json()) as { data: unknown[] }).data.length).toBe(5)
      await page.screenshot({ path: join(SITE_SHOTS, 'dashboard-key-created.png'), fullPage: true })
      expect((await page.reload())!.status()).toBe(200)
      expect(await page.$('#api-key')).toBeNull()
      expect(await page.$('#first-request')).toBeNull()

      expect((await follow(page, 'header.site a[href="/api/v2/docs"]')).status()).toBe(200)
      // the reference may render from the OpenAPI document after load: wait until it has
      await page.waitForFunction(`!document.body.innerText.includes('Loading the OpenAPI document')`, { timeout: 20_000 })
      expect(await page.$eval('body', (e) => (e as unknown as { innerText: string }).innerText)).toContain('/api/v2/photos')
      await page.screenshot({ path: join(SITE_SHOTS, 'api-docs.png') })

      await page.goto(`${origin}/`)
      expect((await follow(page, 'main a[href="/rovers/perseverance"]')).status()).toBe(200)
      expect(await page.$eval('h1', (e) => e.textContent)).toBe('Perseverance: where it went')
      expect(await page.$eval('header.site a[aria-current="page"]', (e) => e.getAttribute('href'))).toBe('/rovers/perseverance')
    } finally {
      await context.close()
      await t.close()
    }
  }, 90_000)
})
