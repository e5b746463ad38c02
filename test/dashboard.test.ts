import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { hashKey } from '../src/keys/api-key'
import { linkIn } from './setup/smtp'
import { FormClient, formFields, makeDashboardApp, type DashboardApp } from './setup/dashboard-app'
import { keyStoreKinds } from './setup/key-stores'

const KEY = /mv_live_[0-9a-f]{40}/

/** Signs `email` in through the form, the mail and the link; returns the client and the account page. */
async function signIn(t: DashboardApp, email: string): Promise<{ c: FormClient; page: string }> {
  const c = new FormClient((r) => t.app.handle(r))
  const form = await c.get('/dashboard')
  expect(form.status).toBe(200)
  const sent = await c.post('/dashboard/sign-in', formFields(await form.text(), '/dashboard/sign-in', { email }))
  expect(sent.status).toBe(200)
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

    test('sign in by the mailed link, create a key shown once, use it on the API, regenerate (old 401, new 200), revoke, sign out', async () => {
      const { c, page } = await signIn(t, '  Flow.User@Example.ORG ')
      expect(page).toContain('Signed in as <strong>flow.user@example.org</strong>')
      expect(page).toContain('No key yet.')
      const created = await c.post('/dashboard/key', formFields(page, '/dashboard/key'))
      expect(created.status).toBe(200)
      expect(created.headers.get('cache-control')).toBe('no-store')
      const createdHtml = await created.text()
      const key = KEY.exec(createdHtml)![0]
      expect((await t.app.handle(new Request('http://localhost/api/v2/photos?per_page=1', { headers: { 'x-api-key': key } }))).status).toBe(200)
      // Reloading the dashboard never shows the key again.
      const again = await (await c.get('/dashboard')).text()
      expect(again).not.toMatch(KEY)
      expect(again).toContain('Active since')
      // The usage shown is the counters the API enforces: the one call above.
      expect(again).toMatch(/id="use-hour">1 of 10,000</)
      expect(again).toMatch(/id="use-day">1 of 100,000</)

      const confirm = await (await c.get('/dashboard/confirm?action=regenerate')).text()
      const regenerated = await c.post('/dashboard/key', formFields(confirm, '/dashboard/key'))
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
      const revoked = await c.post('/dashboard/key', formFields(revokeForm, '/dashboard/key'))
      expect(revoked.status).toBe(200)
      expect(await revoked.text()).toContain('Revoked on')
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
  })
}
