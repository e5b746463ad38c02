import type { PluginDeps } from '../../src/app-deps'
import { openMailer } from '../../src/mail/mailer'
import { route, routesPlugin, type Route } from '../../src/http/route'
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
  const pageRoute = (method: 'GET' | 'POST', path: string, summary: string, handle: Route['handle']) =>
    route({ method, path, summary, keyed: false, hidden: true, responses: { 200: { description: 'An HTML page', mediaType: 'text/html' } }, handle, ...(method === 'POST' ? { hook: raw } : {}) })
  return routesPlugin(deps, 'dashboard', 'dashboard', [
    pageRoute('GET', '/dashboard', 'The key dashboard: sign in, or your key', page((v) => d.home(v))),
    pageRoute('POST', '/dashboard/sign-in', 'Ask for a sign-in link by e-mail', page((v) => d.signIn(v))),
    pageRoute('GET', '/dashboard/link', 'The sign-in link: a button that finishes signing in', page((v, q) => d.linkPage(v, q.token))),
    pageRoute('POST', '/dashboard/link', 'Finish signing in with the link', page((v) => d.redeem(v))),
    pageRoute('GET', '/dashboard/confirm', 'Confirm a change to your key', page((v, q) => d.confirm(v, q.action))),
    pageRoute('POST', '/dashboard/key', 'Create, regenerate or revoke your key', page((v) => d.keyAction(v))),
    pageRoute('POST', '/dashboard/sign-out', 'Sign out', page((v) => d.signOut(v))),
    pageRoute('POST', '/dashboard/account/delete', 'Delete your account', page((v) => d.deleteAccount(v))),
  ])
}
