import { Elysia } from 'elysia'
import type { PluginDeps } from '../../src/app-deps'
import { openMailer } from '../../src/mail/mailer'
import { Dashboard, unavailablePage, type Visit } from './dashboard'

type Server = { requestIP(r: Request): { address: string } | null } | null | undefined

/**
 * The self-service key dashboard (interface.md, Authentication 3: "A key is created in a web
 * dashboard after signing in by an e-mail link"), served under /dashboard, outside /api: its
 * routes take no API key and are not counted; they are authenticated by the dashboard's own
 * session cookie (./dashboard.ts). Bodies are read by ./read-form.ts (parse: 'none').
 */
export function dashboardPlugin(deps: PluginDeps) {
  const mailer = deps.mailer ?? openMailer({ smtpUrl: deps.config.smtpUrl, mailFrom: deps.config.mailFrom })
  const d = new Dashboard(deps, mailer)
  const raw = { parse: 'none' as const }
  type Ctx = { request: Request; server: Server; query: Record<string, string | undefined> }
  /** Each handler gets its visit worked out once; a failure (the key database unreachable) is a 503 page, never a stack. */
  const page = (fn: (v: Visit, query: Ctx['query']) => Response | Promise<Response>) => async ({ request, server, query }: Ctx) => {
    try {
      return await fn(await d.visit(request, server?.requestIP(request)?.address), query)
    } catch (e) {
      deps.log.log('error', 'dashboard.failed', { path: new URL(request.url).pathname, error: e instanceof Error ? e.message : String(e) })
      return unavailablePage()
    }
  }
  // Declared open for the gates (no API key, not counted); HTML pages of the site, not API operations.
  const ROUTES = [
    ['GET', '/dashboard', 'The key dashboard: sign in, or your key'],
    ['POST', '/dashboard/sign-in', 'Ask for a sign-in link by e-mail'],
    ['GET', '/dashboard/link', 'The sign-in link: a button that finishes signing in'],
    ['POST', '/dashboard/link', 'Finish signing in with the link'],
    ['GET', '/dashboard/confirm', 'Confirm a change to your key'],
    ['POST', '/dashboard/key', 'Create, regenerate or revoke your key'],
    ['POST', '/dashboard/sign-out', 'Sign out'],
    ['POST', '/dashboard/account/delete', 'Delete your account'],
  ] as const
  for (const [method, path, summary] of ROUTES)
    deps.routes.register({ method, path, summary, keyed: false, hidden: true, tags: ['dashboard'], responses: { 200: { description: 'An HTML page', mediaType: 'text/html' } } })
  return new Elysia({ name: 'dashboard' })
    .get('/dashboard', page((v) => d.home(v)))
    .post('/dashboard/sign-in', page((v) => d.signIn(v)), raw)
    .get('/dashboard/link', page((v, q) => d.linkPage(v, q.token)))
    .post('/dashboard/link', page((v) => d.redeem(v)), raw)
    .get('/dashboard/confirm', page((v, q) => d.confirm(v, q.action)))
    .post('/dashboard/key', page((v) => d.keyAction(v)), raw)
    .post('/dashboard/sign-out', page((v) => d.signOut(v)), raw)
    .post('/dashboard/account/delete', page((v) => d.deleteAccount(v)), raw)
}
