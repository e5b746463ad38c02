import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { join } from 'node:path'
import { linkIn } from '../setup/smtp'
import { FormClient, formFields, makeDashboardApp, type DashboardApp } from '../setup/dashboard-app'
import { SQLITE } from '../setup/key-stores'
import { startTestSmtp } from '../setup/smtp'

setDefaultTimeout(30_000)
const ROOT = join(import.meta.dir, '../..')

/** The review's replay: a form fetched and posted with `Host: evil.example` (and its Origin), plus forwarded headers naming it. */
async function poisonedSignIn(t: DashboardApp, email: string, headers: Record<string, string>): Promise<Response> {
  const c = new FormClient((r) => t.app.handle(r), 'http://evil.example')
  const form = await c.get('/dashboard', headers)
  return c.post('/dashboard/sign-in', formFields(await form.text(), '/dashboard/sign-in', { email }), headers)
}

const HOSTILE = { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' }

describe('mailed sign-in links point at PUBLIC_URL, never at a host the request names', () => {
  let pub: DashboardApp
  let none: DashboardApp
  beforeAll(async () => {
    pub = await makeDashboardApp(SQLITE, { publicUrl: 'https://mars-api.example', trustProxy: true })
    none = await makeDashboardApp(SQLITE, { publicUrl: undefined, trustProxy: true, port: 3000 })
  })
  afterAll(async () => {
    await pub.close()
    await none.close()
  })

  test('with PUBLIC_URL: a POST whose Origin is the Host it sent (evil.example) is refused 403 and mails nothing', async () => {
    const r = await poisonedSignIn(pub, 'victim@example.org', HOSTILE)
    expect(r.status).toBe(403)
    await Bun.sleep(200)
    expect(pub.smtp.messages.filter((m) => m.to.includes('victim@example.org'))).toHaveLength(0)
  })

  test('with PUBLIC_URL: a POST from PUBLIC_URL carrying Host and X-Forwarded-Host evil.example mails a link at PUBLIC_URL', async () => {
    const c = new FormClient((r) => pub.app.handle(r), 'http://evil.example')
    const form = await c.get('/dashboard', HOSTILE)
    const r = await c.post('/dashboard/sign-in', formFields(await form.text(), '/dashboard/sign-in', { email: 'victim2@example.org' }), { ...HOSTILE, origin: 'https://mars-api.example' })
    expect(r.status).toBe(200)
    const link = linkIn(await pub.smtp.nextTo('victim2@example.org'))
    expect(link).toStartWith('https://mars-api.example/dashboard/link?token=')
    expect(link).not.toContain('evil')
  })

  test('without PUBLIC_URL: the replay (Host and Origin evil.example, forwarded headers trusted) mails a link at http://localhost:PORT', async () => {
    const r = await poisonedSignIn(none, 'victim@example.org', HOSTILE)
    expect(r.status).toBe(200) // the Origin check falls back to the request's own origin, as before
    const link = linkIn(await none.smtp.nextTo('victim@example.org'))
    expect(link).toStartWith('http://localhost:3000/dashboard/link?token=')
  })
})

describe('the server and PUBLIC_URL', () => {
  test('SMTP_URL without PUBLIC_URL: the server refuses to start and names PUBLIC_URL', async () => {
    const smtp = await startTestSmtp()
    try {
      const proc = Bun.spawn([process.execPath, 'app/server.ts'], {
        cwd: ROOT,
        env: { ...process.env, PORT: '0', WATCH_INDEX: '0', SMTP_URL: smtp.url, PUBLIC_URL: '' },
        stdout: 'pipe',
        stderr: 'pipe',
      })
      expect(await proc.exited).toBe(1)
      expect(await new Response(proc.stderr).text()).toContain('PUBLIC_URL')
    } finally {
      await smtp.close()
    }
  })

  test('a PUBLIC_URL with a path or another scheme is refused at start, naming PUBLIC_URL', async () => {
    for (const bad of ['https://mars-api.example/app', 'ftp://mars-api.example', 'not a url']) {
      const proc = Bun.spawn([process.execPath, 'app/server.ts'], { cwd: ROOT, env: { ...process.env, PORT: '0', WATCH_INDEX: '0', PUBLIC_URL: bad }, stdout: 'pipe', stderr: 'pipe' })
      expect(await proc.exited).toBe(1)
      expect(await new Response(proc.stderr).text()).toContain('PUBLIC_URL')
    }
  })
})
