import { createApp, type App } from '../../app/app'
import type { AppDeps } from '../../src/app-deps'
import { loadConfig, type Config } from '../../src/config'
import type { KeyDirectory } from '../../src/keys/key-directory'
import { MemoryCounterStore } from '../../src/limits/memory-counter-store'
import type { Logger } from '../../src/log'
import { openMailer } from '../../src/mail/mailer'
import { StoreHolder } from '../../src/store/store-holder'
import type { KeyStoreKind } from './key-stores'
import { startTestSmtp, type TestSmtp } from './smtp'
import { testStore, type LogLine } from './test-app'

/** The assembled app on one key store, with its mail going to a real in-process SMTP server. */
export interface DashboardApp {
  app: App
  deps: AppDeps
  keys: KeyDirectory
  /** Where its keys live (pass as `location` to start a second instance on the same store). */
  location: string
  smtp: TestSmtp
  logs: LogLine[]
  /** Listens on a free loopback port; returns its origin. */
  listen(): string
  close(): Promise<void>
}

export async function makeDashboardApp(kind: KeyStoreKind, options: Partial<Config> & { clock?: () => number; location?: string } = {}): Promise<DashboardApp> {
  const { clock, location, ...overrides } = options
  const smtp = await startTestSmtp()
  const where = location ?? (await kind.fresh())
  const keys = await kind.open(where)
  // PUBLIC_URL: the origin FormClient browses from (a server with SMTP_URL needs one).
  const config = loadConfig({ redisUrl: undefined, smtpUrl: smtp.url, mailFrom: 'Mars photos <dashboard@example.org>', publicUrl: 'http://localhost', ...overrides })
  const logs: LogLine[] = []
  const log: Logger = { log: (level, event, fields = {}) => void logs.push({ level, event, fields }) }
  const mailer = openMailer({ smtpUrl: smtp.url, mailFrom: config.mailFrom })
  // Access lines are kept here, not written to stdout between the test results.
  const accessLines: string[] = []
  const deps: AppDeps = { config, stores: new StoreHolder(await testStore(config.indexDir)), keys, limits: new MemoryCounterStore(), log, mailer, clock, accessLog: (line) => void accessLines.push(line) }
  const app = createApp(deps)
  let listening = false
  return {
    app,
    deps,
    keys,
    location: where,
    smtp,
    logs,
    listen() {
      listening = true
      app.listen({ port: 0, hostname: '127.0.0.1' })
      const origin = `http://127.0.0.1:${app.server!.port}`
      // Served on a socket, the app's public origin is the one it listens on (as an operator sets
      // PUBLIC_URL), unless the test chose one: mailed links and the Origin check follow it.
      if (!('publicUrl' in overrides)) config.publicUrl = origin
      return origin
    },
    async close() {
      if (listening) await app.stop(true)
      mailer.close()
      await keys.close()
      await smtp.close()
    },
  }
}

/**
 * A minimal browser for the HTTP tests: a cookie jar, forms posted as a browser posts them
 * (urlencoded, with the page's Origin), and the hidden fields of a page's form read back.
 */
export class FormClient {
  readonly jar = new Map<string, string>()
  constructor(
    readonly handle: (r: Request) => Promise<Response>,
    readonly origin = 'http://localhost',
  ) {}

  async get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    return this.#send(new Request(this.origin + path, { headers: { ...this.#cookie(), ...headers } }))
  }

  async post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    return this.#send(
      new Request(this.origin + path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: this.origin, ...this.#cookie(), ...headers },
        body: new URLSearchParams(fields).toString(),
      }),
    )
  }

  /**
   * Posts a form and, as a browser does, follows a 303 with a GET of its Location
   * (POST/redirect/GET); the answer of that GET, or the POST's own answer when it is not a 303.
   */
  async postAndFollow(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    const r = await this.post(path, fields, headers)
    if (r.status !== 303) return r
    const to = new URL(r.headers.get('location')!, this.origin)
    if (to.origin !== this.origin) throw new Error(`redirect off the site: ${to.href}`)
    return this.get(to.pathname + to.search)
  }

  #cookie(): Record<string, string> {
    return this.jar.size ? { cookie: [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ') } : {}
  }

  async #send(request: Request): Promise<Response> {
    const res = await this.handle(request)
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';')
      const eq = pair!.indexOf('=')
      const name = pair!.slice(0, eq)
      const value = pair!.slice(eq + 1)
      if (value === '' || /max-age=0/i.test(c)) this.jar.delete(name)
      else this.jar.set(name, value)
    }
    return res
  }
}

/** The hidden and named fields of the form posting to `action` in a page. */
export function formFields(html: string, action: string, extra: Record<string, string> = {}): Record<string, string> {
  const start = html.indexOf(`action="${action}"`)
  if (start < 0) throw new Error(`no form posting to ${action} in the page`)
  const form = html.slice(start, html.indexOf('</form>', start))
  const fields: Record<string, string> = {}
  for (const m of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[m[1]!] = unescapeHtml(m[2]!)
  return { ...fields, ...extra }
}

function unescapeHtml(s: string): string {
  return s.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))
}
