import { afterAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { join } from 'node:path'
import { keyStoreKinds, POSTGRES, SQLITE } from './setup/key-stores'
import { startTestSmtp, linkIn } from './setup/smtp'
import { FormClient, formFields } from './setup/dashboard-app'

// A test may be the first to start this process's PostgreSQL cluster (initdb, a few seconds on a loaded machine).
setDefaultTimeout(30_000)

const ROOT = join(import.meta.dir, '..')

/** `bun app/server.ts` on a free port with both output streams kept line by line. */
async function serve(env: Record<string, string>) {
  const proc = Bun.spawn([process.execPath, 'app/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', WATCH_INDEX: '0', LOG_LEVEL: 'info', SMTP_URL: '', MAIL_FROM: '', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const out: string[] = []
  const err: string[] = []
  const pump = async (stream: ReadableStream<Uint8Array>, into: string[]) => {
    let buf = ''
    for await (const chunk of stream) {
      buf += new TextDecoder().decode(chunk)
      const parts = buf.split('\n')
      buf = parts.pop()!
      into.push(...parts)
    }
  }
  const reading = Promise.all([pump(proc.stdout, out), pump(proc.stderr, err)])
  const wait = async <T>(find: () => T | undefined, what: string, ms = 15_000): Promise<T> => {
    const until = Date.now() + ms
    while (Date.now() < until) {
      const v = find()
      if (v !== undefined) return v
      if (proc.exitCode !== null) break
      await Bun.sleep(20)
    }
    throw new Error(`no ${what}; stderr:\n${err.join('\n')}`)
  }
  const event = (lines: string[], name: string) => lines.map((l) => (l.startsWith('{') ? JSON.parse(l) : {})).find((r) => r.event === name)
  const started = await wait(() => event(out, 'server.started'), 'server.started')
  return {
    origin: `http://127.0.0.1:${started.port}`,
    started,
    out,
    err,
    event,
    wait,
    async stop() {
      proc.kill('SIGTERM')
      await proc.exited
      await reading
    },
  }
}

const running: Array<{ stop(): Promise<void> }> = []
afterAll(async () => {
  for (const s of running) await s.stop()
})

describe('the server with the dashboard', () => {
  test('without SMTP_URL it says at start that sign-in links go to stdout, the sign-in page says the link went to the server console, and each link is one JSON line there (and nowhere else)', async () => {
    const s = await serve({ KEYS_DB: await SQLITE.fresh() })
    running.push(s)
    expect(s.started).toMatchObject({ key_store: 'sqlite', mail: 'log' })
    expect(await s.wait(() => s.event(s.out, 'mail.to-stdout'), 'mail.to-stdout notice')).toMatchObject({ level: 'warn' })
    const c = new FormClient((r) => fetch(r, { redirect: 'manual' }), s.origin)
    const form = await (await c.get('/dashboard')).text()
    const sent = await c.post('/dashboard/sign-in', formFields(form, '/dashboard/sign-in', { email: 'Dev@Example.org' }))
    expect(sent.status).toBe(200)
    expect(await sent.text()).toContain("the sign-in link was written to the server's console (its standard output), not mailed")
    const line = await s.wait(() => s.event(s.out, 'mail.sign-in-link'), 'sign-in link on stdout')
    expect(line.to).toBe('dev@example.org')
    // No PUBLIC_URL: links point at this machine, as the start-up line says; never at the request's Host.
    expect(s.started.mail_link_origin).toBe(`http://localhost:${s.started.port}`)
    expect(line.link).toStartWith(`http://localhost:${s.started.port}/dashboard/link?token=`)
    const token = new URL(line.link).searchParams.get('token')!
    expect(s.out.filter((l) => l.includes(token)).length).toBe(1)
    expect(s.err.join('\n')).not.toContain(token)
  }, 30_000)

  test.skipIf(!keyStoreKinds().includes(POSTGRES))('with KEYS_DB=postgres://… and SMTP_URL it keeps keys in PostgreSQL and mails the link; a key made in the dashboard answers 200', async () => {
    const smtp = await startTestSmtp()
    const s = await serve({ KEYS_DB: await POSTGRES.fresh(), SMTP_URL: smtp.url, MAIL_FROM: 'Mars photos <dash@example.org>', PUBLIC_URL: 'https://mars-api.example' })
    running.push(s, { stop: () => smtp.close() })
    expect(s.started).toMatchObject({ key_store: 'postgres', mail: 'smtp', mail_link_origin: 'https://mars-api.example' })
    const c = new FormClient((r) => fetch(r, { redirect: 'manual' }), s.origin)
    // The browser is on PUBLIC_URL (a proxy in front of this instance): its posts carry that Origin.
    const browser = { origin: 'https://mars-api.example' }
    const form = await (await c.get('/dashboard')).text()
    await c.post('/dashboard/sign-in', formFields(form, '/dashboard/sign-in', { email: 'pg@example.org' }), browser)
    const mail = await smtp.nextTo('pg@example.org')
    expect(mail.from).toBe('dash@example.org')
    const link = new URL(linkIn(mail))
    expect(link.origin).toBe('https://mars-api.example')
    const confirm = await (await c.get(link.pathname + link.search)).text()
    expect((await c.post('/dashboard/link', formFields(confirm, '/dashboard/link'), browser)).status).toBe(303)
    const page = await (await c.get('/dashboard')).text()
    const created = await (await c.postAndFollow('/dashboard/key', formFields(page, '/dashboard/key'), browser)).text()
    const key = /mv_live_[0-9a-f]{40}/.exec(created)![0]
    expect((await fetch(`${s.origin}/api/v2/photos?per_page=1`, { headers: { 'x-api-key': key } })).status).toBe(200)
    expect(s.out.join('\n')).not.toContain(key)
    expect(s.err.join('\n')).not.toContain(key)
    expect(s.event(s.out, 'mail.to-stdout')).toBeUndefined() // checked last: it would have been logged right after the start
  }, 30_000)
})
