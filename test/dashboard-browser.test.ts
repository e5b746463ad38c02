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

        await clickAndWait(page, 'form[action="/dashboard/key"] button')
        const first = (await page.$eval('#api-key', (e) => e.textContent))!
        expect(first).toMatch(KEY)
        expect(await page.$eval('button[data-copy]', (e) => (e as unknown as { hidden: boolean }).hidden)).toBe(false) // the script ran under the CSP
        await shot(page, 'key-created')
        expect(await api(origin, first)).toBe(200)

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
