import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { linkIn } from './setup/smtp'
import { FormClient, formFields, makeDashboardApp, type DashboardApp } from './setup/dashboard-app'
import { keyStoreKinds } from './setup/key-stores'
import { hashSecret } from '../plugins/dashboard/tokens'
import { openFlash } from '../plugins/dashboard/flash'

// A test may be the first to start this process's PostgreSQL cluster (initdb, a few seconds on a loaded machine).
setDefaultTimeout(30_000)

const KEY = /mv_live_[0-9a-f]{40}/

/** Signs `email` in through the form, the mail and the link; returns the client and the account page. */
async function signIn(t: DashboardApp, email: string): Promise<{ c: FormClient; page: string }> {
  const c = new FormClient((r) => t.app.handle(r))
  const form = await c.get('/dashboard')
  expect(form.status).toBe(200)
  const sent = await c.post('/dashboard/sign-in', formFields(await form.text(), '/dashboard/sign-in', { email }))
  expect(sent.status).toBe(200)
  // Mail is configured here: the page says the link went to the mailbox.
  expect(await sent.text()).toContain('a sign-in link is on its way to its mailbox')
  const link = new URL(linkIn(await t.smtp.nextTo(email.trim().toLowerCase())))
  const confirm = await c.get(link.pathname + link.search)
  expect(confirm.status).toBe(200)
  const signedIn = await c.post('/dashboard/link', formFields(await confirm.text(), '/dashboard/link'))
  expect(signedIn.status).toBe(303)
  expect(signedIn.headers.get('location')).toBe('/dashboard')
  const page = await (await c.get('/dashboard')).text()
  return { c, page }
}

for (const kind of keyStoreKinds()) {
  describe(`dashboard on ${kind.name}`, () => {
    let t: DashboardApp
    beforeAll(async () => {
      t = await makeDashboardApp(kind)
    })
    afterAll(async () => {
      await t.close()
    })

    test('a feed token made in the dashboard is shown once with a feed URL, opens the feeds without the key, and ends when the key is regenerated', async () => {
      const { c, page } = await signIn(t, 'feeds@example.org')
      expect(page).not.toContain('Make a feed token') // no key yet: nothing to stand for
      const withKey = await (await c.postAndFollow('/dashboard/key', formFields(page, '/dashboard/key'))).text()
      expect(withKey).toContain('No feed token yet.')
      const made = await c.postAndFollow('/dashboard/key', formFields(withKey, '/dashboard/key'))
      const html = await made.text()
      const token = /mv_feed_[0-9a-f]{40}/.exec(html)![0]
      expect(html).toContain(`http://localhost/api/v2/photos/feed.atom?rovers=perseverance&#38;feed_token=${token}`)
      const feed = await t.app.handle(new Request(`http://localhost/api/v2/photos/feed.atom?rovers=perseverance&feed_token=${token}`))
      expect(feed.status).toBe(200)
      const reloaded = await (await c.get('/dashboard')).text()
      expect(reloaded).not.toContain(token)
      expect(reloaded).toContain('You have a feed token')
      const confirm = await (await c.get('/dashboard/confirm?action=regenerate')).text()
      expect((await c.postAndFollow('/dashboard/key', formFields(confirm, '/dashboard/key'))).status).toBe(200)
      expect((await t.app.handle(new Request(`http://localhost/api/v2/photos/feed.atom?rovers=perseverance&feed_token=${token}`))).status).toBe(401)
    })

    test('sign in by the mailed link, create a key shown once, use it on the API, regenerate (old 401, new 200), revoke, sign out', async () => {
      const { c, page } = await signIn(t, '  Flow.User@Example.ORG ')
      expect(page).toContain('Signed in as <strong>flow.user@example.org</strong>')
      expect(page).toContain('No key yet.')
      // POST/redirect/GET: the action answers 303 to /dashboard, whose next view shows the key once.
      const posted = await c.post('/dashboard/key', formFields(page, '/dashboard/key'))
      expect(posted.status).toBe(303)
      expect(posted.headers.get('location')).toBe('/dashboard')
      expect(posted.headers.get('cache-control')).toBe('no-store')
      expect(await posted.text()).not.toMatch(KEY)
      const created = await c.get('/dashboard')
      expect(created.status).toBe(200)
      expect(created.headers.get('cache-control')).toBe('no-store')
      const createdHtml = await created.text()
      expect(createdHtml).toContain('Your key is created.')
      const key = KEY.exec(createdHtml)![0]
      // The first request, ready with the key in it (the placeholder base: no PUBLIC_URL here).
      expect(createdHtml).toContain(`curl -H &#39;X-API-Key: ${key}&#39; \\\n  &#39;http://localhost/api/v2/photos?rovers=curiosity&#38;sol=1000&#38;per_page=5&#39;`)
      expect((await t.app.handle(new Request('http://localhost/api/v2/photos?per_page=1', { headers: { 'x-api-key': key } }))).status).toBe(200)
      // Reloading the dashboard never shows the key again.
      const again = await (await c.get('/dashboard')).text()
      expect(again).not.toMatch(KEY)
      expect(again).toContain('Active since')
      // The usage shown is the counters the API enforces: the one call above.
      expect(again).toMatch(/id="use-hour">1 of 10,000</)
      expect(again).toMatch(/id="use-day">1 of 100,000</)

      const confirm = await (await c.get('/dashboard/confirm?action=regenerate')).text()
      const regenerated = await c.postAndFollow('/dashboard/key', formFields(confirm, '/dashboard/key'))
      expect(regenerated.status).toBe(200)
      const fresh = KEY.exec(await regenerated.text())![0]
      expect(fresh).not.toBe(key)
      expect((await t.app.handle(new Request('http://localhost/api/v2/photos?per_page=1', { headers: { 'x-api-key': key } }))).status).toBe(401)
      expect((await t.app.handle(new Request('http://localhost/api/v2/photos?per_page=1', { headers: { 'x-api-key': fresh } }))).status).toBe(200)

      // The same confirmation form sent again (a reload of the POST) changes nothing and shows no key.
      const resent = await c.post('/dashboard/key', formFields(confirm, '/dashboard/key'))
      expect(resent.status).toBe(409)
      expect(await resent.text()).not.toMatch(KEY)
      expect((await t.app.handle(new Request('http://localhost/api/v2/photos?per_page=1', { headers: { 'x-api-key': fresh } }))).status).toBe(200)

      const revokeForm = await (await c.get('/dashboard/confirm?action=revoke')).text()
      const revoked = await c.postAndFollow('/dashboard/key', formFields(revokeForm, '/dashboard/key'))
      expect(revoked.status).toBe(200)
      const revokedHtml = await revoked.text()
      expect(revokedHtml).toContain('Revoked on')
      expect(revokedHtml).toContain('Your key is revoked: it no longer works.')
      expect(await (await c.get('/dashboard')).text()).not.toContain('Your key is revoked: it no longer works.')
      expect((await t.app.handle(new Request('http://localhost/api/v2/photos?per_page=1', { headers: { 'x-api-key': fresh } }))).status).toBe(401)

      const home = await (await c.get('/dashboard')).text()
      const out = await c.post('/dashboard/sign-out', formFields(home, '/dashboard/sign-out'))
      expect(out.status).toBe(303)
      expect(await (await c.get('/dashboard')).text()).toContain('Send me a sign-in link')
      // No token, key or session id in any log line.
      const logged = JSON.stringify(t.logs)
      expect(logged).not.toMatch(KEY)
      expect(logged).not.toContain('token=')
    })

    test('the new key reaches the page after the redirect as a one-time flash sealed for that session: not in the Location, not in the stored row, not shown to another session of the account, gone after one view', async () => {
      const a = await signIn(t, 'flash@example.org')
      const b = await signIn(t, 'flash@example.org') // a second session of the same account
      const posted = await a.c.post('/dashboard/key', formFields(a.page, '/dashboard/key'))
      expect(posted.status).toBe(303)
      expect(posted.headers.get('location')).toBe('/dashboard')
      expect(await (await b.c.get('/dashboard')).text()).not.toMatch(KEY) // bound to the session that acted
      const first = await (await a.c.get('/dashboard')).text()
      const key = KEY.exec(first)![0]
      expect((await t.app.handle(new Request('http://localhost/api/v2/rovers', { headers: { 'x-api-key': key } }))).status).toBe(200)
      expect(await (await a.c.get('/dashboard')).text()).not.toMatch(KEY) // a reload: shown once only

      // What the store keeps for the next view opens only with the browser's session id.
      const confirm = await (await a.c.get('/dashboard/confirm?action=regenerate')).text()
      expect((await a.c.post('/dashboard/key', formFields(confirm, '/dashboard/key'))).status).toBe(303)
      const secretA = a.c.jar.get('mv_session')!
      const sealed = (await t.keys.takeFlash(hashSecret(secretA), Date.now()))!
      expect(sealed).toBeString()
      expect(sealed).not.toMatch(KEY)
      const opened = openFlash(sealed, secretA)!
      expect(opened.key).toMatch(KEY)
      expect(opened.key).not.toBe(key)
      expect(openFlash(sealed, b.c.jar.get('mv_session')!)).toBeUndefined()
      expect(openFlash(sealed.slice(0, -2) + (sealed.endsWith('A') ? 'BA' : 'AA'), secretA)).toBeUndefined()
      // Taken once: the page after it shows no key (the flash was consumed above).
      expect(await (await a.c.get('/dashboard')).text()).not.toMatch(KEY)

      // A flash older than its time is not shown, and signing out drops a waiting one.
      await t.keys.putFlash(hashSecret(secretA), 'flash@example.org', sealed, Date.now() - 1)
      expect(await (await a.c.get('/dashboard')).text()).not.toMatch(KEY)
      await t.keys.putFlash(hashSecret(secretA), 'flash@example.org', sealed, Date.now() + 60_000)
      await t.keys.endSession(hashSecret(secretA))
      expect(await t.keys.takeFlash(hashSecret(secretA), Date.now())).toBeUndefined()
    })

    test('a sign-in link works once: the second use and a made-up token get the refusal page, and no session cookie', async () => {
      const c = new FormClient((r) => t.app.handle(r))
      const form = await (await c.get('/dashboard')).text()
      await c.post('/dashboard/sign-in', formFields(form, '/dashboard/sign-in', { email: 'twice@example.org' }))
      const link = new URL(linkIn(await t.smtp.nextTo('twice@example.org')))
      const confirm = await (await c.get(link.pathname + link.search)).text()
      expect((await c.post('/dashboard/link', formFields(confirm, '/dashboard/link'))).status).toBe(303)
      const other = new FormClient((r) => t.app.handle(r))
      const confirm2 = await (await other.get(link.pathname + link.search)).text()
      const second = await other.post('/dashboard/link', formFields(confirm2, '/dashboard/link'))
      expect(second.status).toBe(400)
      expect(await second.text()).toContain('already used')
      expect([...other.jar.keys()]).not.toContain('mv_session')
      const madeUp = await other.post('/dashboard/link', formFields(confirm2, '/dashboard/link', { token: 'A'.repeat(43) }))
      expect(madeUp.status).toBe(400)
      expect((await other.get('/dashboard/link?token=short')).status).toBe(400)
    })

    test('a link older than 15 minutes is refused', async () => {
      let now = Date.now()
      const late = await makeDashboardApp(kind, { clock: () => now })
      try {
        const c = new FormClient((r) => late.app.handle(r))
        const form = await (await c.get('/dashboard')).text()
        await c.post('/dashboard/sign-in', formFields(form, '/dashboard/sign-in', { email: 'late@example.org' }))
        const link = new URL(linkIn(await late.smtp.nextTo('late@example.org')))
        const confirm = await (await c.get(link.pathname + link.search)).text()
        now += 15 * 60_000 + 1
        const r = await c.post('/dashboard/link', formFields(confirm, '/dashboard/link'))
        expect(r.status).toBe(400)
        expect(await r.text()).toContain('older than 15 minutes')
      } finally {
        await late.close()
      }
    })

    test('every POST needs this origin and the form token: another Origin, no Origin, or a wrong token gets 403 and changes nothing', async () => {
      const { c, page } = await signIn(t, 'csrf@example.org')
      const fields = formFields(page, '/dashboard/key')
      for (const headers of [{ origin: 'https://evil.example' }, { origin: 'null' }]) {
        const r = await c.post('/dashboard/key', fields, headers)
        expect(r.status).toBe(403)
      }
      const noOrigin = await c.handle(
        new Request('http://localhost/dashboard/key', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: [...c.jar].map(([k, v]) => `${k}=${v}`).join('; ') },
          body: new URLSearchParams(fields).toString(),
        }),
      )
      expect(noOrigin.status).toBe(403)
      for (const site of ['cross-site', 'same-site', 'none']) expect((await c.post('/dashboard/key', fields, { origin: '', 'sec-fetch-site': site })).status).toBe(403)
      expect((await c.post('/dashboard/key', { ...fields, csrf: 'x'.repeat(43) })).status).toBe(403)
      // A token from another visitor's page does not fit this session either.
      const stranger = new FormClient((r) => t.app.handle(r))
      const strangerForm = formFields(await (await stranger.get('/dashboard')).text(), '/dashboard/sign-in')
      expect((await c.post('/dashboard/key', { ...fields, csrf: strangerForm.csrf! })).status).toBe(403)
      expect(await t.keys.keyOf('csrf@example.org')).toBeUndefined()
      // The sign-in form is checked the same way, before any mail is sent.
      const before = t.smtp.messages.length
      expect((await stranger.post('/dashboard/sign-in', { ...strangerForm, email: 'x@example.org' }, { origin: 'https://evil.example' })).status).toBe(403)
      expect(t.smtp.messages.length).toBe(before)
      // Wrong media type and oversized forms are refused as pages, not crashes.
      expect((await c.post('/dashboard/key', fields, { 'content-type': 'text/plain' })).status).toBe(415)
      expect((await c.post('/dashboard/key', { ...fields, pad: 'x'.repeat(5000) })).status).toBe(413)
    })

    test('the sign-in answer is the same for a known and an unknown address; a bad address gets 400 naming why', async () => {
      await t.keys.create('known@example.org')
      const answers: string[] = []
      for (const email of ['known@example.org', 'nobody-here@example.org']) {
        const c = new FormClient((r) => t.app.handle(r))
        const form = await (await c.get('/dashboard')).text()
        const r = await c.post('/dashboard/sign-in', formFields(form, '/dashboard/sign-in', { email }))
        expect(r.status).toBe(200)
        answers.push(await r.text())
      }
      expect(answers[0]).toBe(answers[1]!)
      const c = new FormClient((r) => t.app.handle(r))
      const form = formFields(await (await c.get('/dashboard')).text(), '/dashboard/sign-in')
      for (const [email, why] of [
        ['not-an-address', 'not one address of the form'],
        ['a\u200b@example.org', 'invisible'],
        ['a\u202e@example.org', 'text-direction'],
        [`${'a'.repeat(250)}@example.org`, 'longer than 254'],
      ] as const) {
        const r = await c.post('/dashboard/sign-in', { ...form, email })
        expect(r.status).toBe(400)
        expect(await r.text()).toContain(why)
      }
    })

    test('sign-in links are limited per address and per client (here 5 and 8 an hour) with a clear 429 page naming the limit', async () => {
      const u = await makeDashboardApp(kind, { signInPerAddress: 5, signInPerClient: 8 })
      try {
        const c = new FormClient((r) => u.app.handle(r), 'http://localhost')
        const form = formFields(await (await c.get('/dashboard')).text(), '/dashboard/sign-in')
        const statuses: number[] = []
        for (let i = 0; i < 6; i++) statuses.push((await c.post('/dashboard/sign-in', { ...form, email: 'Limited@Example.org' })).status)
        expect(statuses).toEqual([200, 200, 200, 200, 200, 429])
        const refused = await c.post('/dashboard/sign-in', { ...form, email: ' limited@example.org' })
        expect(refused.status).toBe(429)
        expect(refused.headers.get('retry-after')).toBe('3600')
        expect(await refused.text()).toContain('at most 5')
        expect(u.smtp.messages.filter((m) => m.to.includes('limited@example.org')).length).toBe(5)
        // The same client (no socket: one "unknown" client) asks for other addresses: 3 more, then the client limit.
        const more: number[] = []
        for (let i = 0; i < 4; i++) more.push((await c.post('/dashboard/sign-in', { ...form, email: `other${i}@example.org` })).status)
        expect(more).toEqual([200, 200, 200, 429])
      } finally {
        await u.close()
      }
    })

    test('session cookie: HttpOnly, SameSite=Lax, stored hashed; Secure with the __Host- prefix behind https (TRUST_PROXY), links at PUBLIC_URL', async () => {
      const { c } = await signIn(t, 'cookie@example.org')
      const id = c.jar.get('mv_session')!
      expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(await t.keys.session(id, Date.now())).toBeUndefined() // not stored as it is
      expect(await t.keys.session(Bun.CryptoHasher.hash('sha256', id, 'hex') as string, Date.now())).toMatchObject({ email: 'cookie@example.org' })

      const https = await makeDashboardApp(kind, { trustProxy: true, publicUrl: 'https://dash.example.org' })
      try {
        // The proxy terminates TLS: the service itself sees http:// URLs and learns https from X-Forwarded-Proto.
        const h = new FormClient((r) => https.app.handle(new Request(r.url.replace(/^https:/, 'http:'), r)), 'https://dash.example.org')
        const proxied = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'dash.example.org' }
        const first = await h.get('/dashboard', proxied)
        const formCookie = first.headers.getSetCookie()[0]!
        expect(formCookie).toMatch(/^__Host-mv_form=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax; Secure$/)
        await h.post('/dashboard/sign-in', formFields(await first.text(), '/dashboard/sign-in', { email: 'secure@example.org' }), proxied)
        const link = linkIn(await https.smtp.nextTo('secure@example.org'))
        expect(link.startsWith('https://dash.example.org/dashboard/link?token=')).toBe(true)
        const u = new URL(link)
        const confirm = await (await h.get(u.pathname + u.search, proxied)).text()
        const done = await h.post('/dashboard/link', formFields(confirm, '/dashboard/link'), proxied)
        expect(done.status).toBe(303)
        const session = done.headers.getSetCookie().find((s) => s.startsWith('__Host-mv_session='))!
        expect(session).toMatch(/^__Host-mv_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Lax; Secure$/)
      } finally {
        await https.close()
      }
      const plain = (await new FormClient((r) => t.app.handle(r)).get('/dashboard')).headers.getSetCookie()[0]!
      expect(plain).toMatch(/^mv_form=[A-Za-z0-9_-]{43}; Path=\/dashboard; Max-Age=\d+; HttpOnly; SameSite=Lax$/)
    })

    test('signing out ends the session on the server: the old cookie no longer signs in', async () => {
      const { c, page } = await signIn(t, 'out@example.org')
      const stolen = new Map(c.jar)
      await c.post('/dashboard/sign-out', formFields(page, '/dashboard/sign-out'))
      const replay = new FormClient((r) => t.app.handle(r))
      for (const [k, v] of stolen) replay.jar.set(k, v)
      expect(await (await replay.get('/dashboard')).text()).toContain('Send me a sign-in link')
    })

    test('deleting the account revokes the key at once and erases the address and its sessions', async () => {
      const { c, page } = await signIn(t, 'delete-me@example.org')
      const key = KEY.exec(await (await c.postAndFollow('/dashboard/key', formFields(page, '/dashboard/key'))).text())![0]
      const other = await signIn(t, 'delete-me@example.org') // a second session of the same account
      const confirm = await (await c.get('/dashboard/confirm?action=delete')).text()
      const deleted = await c.post('/dashboard/account/delete', formFields(confirm, '/dashboard/account/delete'))
      expect(deleted.status).toBe(200)
      expect(await deleted.text()).toContain('Account deleted')
      expect((await t.app.handle(new Request('http://localhost/api/v2/photos?per_page=1', { headers: { 'x-api-key': key } }))).status).toBe(401)
      expect(await t.keys.keyOf('delete-me@example.org')).toBeUndefined()
      expect((await t.keys.list()).map((k) => k.email)).not.toContain('delete-me@example.org')
      expect(await (await other.c.get('/dashboard')).text()).toContain('Send me a sign-in link')
    })

    test('a key regenerated in the dashboard of one instance gets 401 from another running instance within 1 s', async () => {
      const other = await makeDashboardApp(kind, { location: t.location })
      try {
        const { c, page } = await signIn(t, 'two-instances@example.org')
        const key = KEY.exec(await (await c.postAndFollow('/dashboard/key', formFields(page, '/dashboard/key'))).text())![0]
        const onOther = (k: string) => other.app.handle(new Request('http://localhost/api/v2/rovers', { headers: { 'x-api-key': k } }))
        expect((await onOther(key)).status).toBe(200) // the other instance has it cached now
        const confirm = await (await c.get('/dashboard/confirm?action=regenerate')).text()
        const fresh = KEY.exec(await (await c.postAndFollow('/dashboard/key', formFields(confirm, '/dashboard/key'))).text())![0]
        const t0 = performance.now()
        while ((await onOther(key)).status !== 401 && performance.now() - t0 < 2000) await Bun.sleep(10)
        expect(performance.now() - t0).toBeLessThan(1000)
        expect((await onOther(fresh)).status).toBe(200)
      } finally {
        await other.close()
      }
    })

    test('pages are complete HTML with labelled inputs, no caching, a strict CSP and nothing from another origin', async () => {
      const r = await new FormClient((x) => t.app.handle(x)).get('/dashboard')
      const html = await r.text()
      expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(r.headers.get('cache-control')).toBe('no-store')
      expect(r.headers.get('content-security-policy')).toStartWith("default-src 'none'; style-src 'sha256-")
      expect(r.headers.get('referrer-policy')).toBe('same-origin')
      expect(html).toContain('<label for="email">E-mail address</label>')
      expect(html).toContain('<meta name="viewport"')
      expect(html).not.toMatch(/(src|href)="(https?:)?\/\//)
      // Dashboard routes need no API key and are not counted: no rate-limit headers.
      expect(r.headers.get('x-ratelimit-limit')).toBeNull()
    })

    test('when the key database is unreachable the dashboard answers a 503 page and the API a 503 problem, never a stack', async () => {
      const down = await makeDashboardApp(kind)
      const { c } = await signIn(down, 'down@example.org')
      const key = await down.keys.create('down-key@example.org')
      await down.keys.close()
      try {
        const r = await c.get('/dashboard')
        if (kind.name === 'postgres') {
          expect(r.status).toBe(503)
          expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8')
          expect(await r.text()).toContain('cannot reach its database')
          const api = await down.app.handle(new Request('http://localhost/api/v2/rovers', { headers: { 'x-api-key': 'mv_live_' + '0'.repeat(40) } }))
          expect(api.status).toBe(503)
          expect(((await api.json()) as { type: string }).type).toBe('/errors/service-unavailable')
        } else {
          // A closed SQLite handle throws too: the same page.
          expect(r.status).toBe(503)
        }
        expect(JSON.stringify(down.logs)).not.toContain(key)
      } finally {
        await down.smtp.close()
      }
    })
  })
}
