import { Elysia } from 'elysia'
import type { AppDeps } from '../../src/app-deps'
import { openMailer } from '../../src/mail/mailer'
import { Dashboard } from './dashboard'

type Server = { requestIP(r: Request): { address: string } | null } | null | undefined

/**
 * The self-service key dashboard (interface.md, Authentication 3: "A key is created in a web
 * dashboard after signing in by an e-mail link"), served under /dashboard, outside /api: its
 * routes take no API key and are not counted; they are authenticated by the dashboard's own
 * session cookie (./dashboard.ts). Bodies are read by ./read-form.ts (parse: 'none').
 */
export function dashboardPlugin(deps: AppDeps) {
  const mailer = deps.mailer ?? openMailer({ smtpUrl: deps.config.smtpUrl, mailFrom: deps.config.mailFrom })
  const d = new Dashboard(deps, mailer)
  const visit = (request: Request, server: Server) => d.visit(request, server?.requestIP(request)?.address)
  const raw = { parse: 'none' as const }
  return new Elysia({ name: 'dashboard' })
    .get('/dashboard', async ({ request, server }) => d.home(await visit(request, server)))
    .post('/dashboard/sign-in', async ({ request, server }) => d.signIn(await visit(request, server)), raw)
    .get('/dashboard/link', async ({ request, server, query }) => d.linkPage(await visit(request, server), query.token))
    .post('/dashboard/link', async ({ request, server }) => d.redeem(await visit(request, server)), raw)
    .get('/dashboard/confirm', async ({ request, server, query }) => d.confirm(await visit(request, server), query.action))
    .post('/dashboard/key', async ({ request, server }) => d.keyAction(await visit(request, server)), raw)
    .post('/dashboard/sign-out', async ({ request, server }) => d.signOut(await visit(request, server)), raw)
    .post('/dashboard/account/delete', async ({ request, server }) => d.deleteAccount(await visit(request, server)), raw)
}
