import type { AppDeps } from '../../src/app-deps'
import { requestOrigin } from '../../src/http/links'
import { mailLinkOrigin } from '../../src/http/public-origin'
import { normaliseEmail, InvalidEmailError } from '../../src/keys/email-address'
import { KeyStoreError, type KeyListing, type SessionRecord } from '../../src/keys/key-directory'
import type { Mailer } from '../../src/mail/mailer'
import { clientAddress } from '../../src/limits/failed-auth-throttle'
import { effectiveLimits } from '../../src/limits/limit-rules'
import { clearCookie, readCookie, setCookie } from './cookies'
import { csrfMatches, csrfToken, sameOrigin } from './csrf'
import { FLASH_TTL_MS, openFlash, sealFlash, type Flash } from './flash'
import * as pages from './pages'
import { readForm } from './read-form'
import { SESSION_TTL_MS, SIGN_IN_TTL_MS, SIGN_IN_WINDOW_MS, hashSecret, isWellFormedSecret, newSecret } from './tokens'

const REFUSED_FORM = {
  400: 'The form was cut off before it was complete.',
  408: 'The form did not arrive in time.',
  413: 'The form is too large.',
  415: 'The form must be sent as application/x-www-form-urlencoded.',
} as const

/** What one request to the dashboard knows about its visitor, worked out once. */
export interface Visit {
  request: Request
  /** The origin every POST's Origin must equal: PUBLIC_URL's when set, else the request's own. */
  origin: string
  /** Cookies are Secure when the request arrived over https (as a trusted proxy wrote it). */
  secure: boolean
  /** The signed-in session (and its secret from the cookie), if any. */
  session?: SessionRecord & { secret: string }
  /** The anonymous form secret (from the cookie, or new: then it is set on the answer). */
  formSecret: string
  cookies: string[]
  peer?: string
}

/**
 * The origin users reach the API at, for the first request the dashboard shows with a new key:
 * the configured public address (PUBLIC_URL) when there is one, else the placeholder; never the
 * request's own host, which a client chooses.
 */
function publicBase(config: object): string {
  const u = (config as { publicUrl?: unknown }).publicUrl
  return typeof u === 'string' && /^https?:\/\/[^/?#\s]+$/.test(u) ? u : pages.PLACEHOLDER_BASE
}

/** The answer when the key database cannot be reached: a page, with Retry-After (RFC 9110 §10.2.3). */
export function unavailablePage(): Response {
  return new Response(pages.messagePage('Try again in a moment', 'The dashboard cannot reach its database just now. Nothing was changed.'), {
    status: 503,
    headers: { ...pages.PAGE_HEADERS, 'retry-after': '5' },
  })
}

/**
 * The dashboard's request handling: sign-in by e-mailed link, sessions, and the key actions.
 * Every answer is a whole HTML page (./pages.ts) or a 303 to one; every POST passes the Origin
 * and CSRF checks (./csrf.ts) before it reads anything else of the form.
 */
export class Dashboard {
  readonly #deps: AppDeps
  readonly #mailer: Mailer
  readonly #clock: () => number
  readonly #port: () => number | undefined

  constructor(deps: AppDeps & { port?: () => number | undefined }, mailer: Mailer) {
    this.#deps = deps
    this.#mailer = mailer
    this.#clock = deps.clock ?? Date.now
    this.#port = deps.port ?? (() => undefined)
  }

  /** Where mailed links point: PUBLIC_URL, or this machine; never the request (src/http/public-origin.ts). */
  get #linkOrigin(): string {
    return mailLinkOrigin(this.#deps.config, this.#port())
  }

  async visit(request: Request, peer: string | undefined): Promise<Visit> {
    const own = requestOrigin(request, this.#deps.config)
    const origin = this.#deps.config.publicUrl ?? own
    const secure = own.startsWith('https:')
    const cookie = request.headers.get('cookie')
    const cookies: string[] = []
    let formSecret = readCookie(cookie, 'form', secure)
    if (!isWellFormedSecret(formSecret)) {
      formSecret = newSecret()
      cookies.push(setCookie('form', formSecret, secure, SESSION_TTL_MS / 1000))
    }
    const visit: Visit = { request, origin, secure, formSecret, cookies, peer }
    const sessionSecret = readCookie(cookie, 'session', secure)
    if (isWellFormedSecret(sessionSecret)) {
      const s = await this.#deps.keys.session(hashSecret(sessionSecret), this.#clock())
      if (s) visit.session = { ...s, secret: sessionSecret }
      else cookies.push(clearCookie('session', secure))
    }
    return visit
  }

  /**
   * GET /dashboard: the account page when signed in, else the sign-in form. The flash a key
   * action left (./flash.ts) is taken here, so its notice and new key show on this one view only.
   */
  async home(v: Visit): Promise<Response> {
    if (!v.session) return this.#page(v, 200, pages.signInPage({ csrf: csrfToken(v.formSecret) }))
    const sealed = await this.#deps.keys.takeFlash(hashSecret(v.session.secret), this.#clock())
    const flash = sealed === undefined ? undefined : openFlash(sealed, v.session.secret)
    return this.#page(v, 200, await this.#account(v, v.session.email, { shownKey: flash?.key, shownFeedToken: flash?.feedToken, notice: flash?.notice }))
  }

  /** POST /dashboard/sign-in: e-mail a one-time link. The same answer whether or not the address has an account. */
  async signIn(v: Visit): Promise<Response> {
    const form = await this.#checkedForm(v, v.formSecret)
    if (form instanceof Response) return form
    const raw = form.get('email') ?? ''
    let email: string
    try {
      email = normaliseEmail(raw)
    } catch (e) {
      if (!(e instanceof InvalidEmailError)) throw e
      return this.#page(v, 400, pages.signInPage({ csrf: csrfToken(v.formSecret), error: `That is ${e.message}.`, email: raw.slice(0, 254) }))
    }
    const { config } = this.#deps
    const client = clientAddress(v.peer, v.request.headers.get('x-forwarded-for'), config.trustProxy) ?? 'unknown'
    const token = newSecret()
    const limits = {
      perAddress: config.signInPerAddress ?? 5,
      perClient: config.signInPerClient ?? 20,
      windowMs: SIGN_IN_WINDOW_MS,
      perMailbox: config.signInPerMailbox ?? 5,
      mailboxWindowMs: SIGN_IN_TTL_MS,
    }
    const outcome = await this.#deps.keys.issueSignIn(hashSecret(token), email, client, this.#clock(), SIGN_IN_TTL_MS, limits)
    this.#deps.log.log('info', 'dashboard.sign-in-link', { client, outcome })
    if (outcome !== 'issued') {
      const minutes = SIGN_IN_TTL_MS / 60_000
      const detail =
        outcome === 'address-limit'
          ? `Too many sign-in links were asked for this address from your network in the last hour (at most ${limits.perAddress}). Use the last link you received, or try again later.`
          : outcome === 'mailbox-full'
            ? `${limits.perMailbox} sign-in links were mailed to this address in the last ${minutes} minutes, the most it receives. Each works for ${minutes} minutes: use the latest one in your mail.`
            : `Too many sign-in links were asked for from your network in the last hour (at most ${limits.perClient}). Try again later.`
      const retryS = outcome === 'mailbox-full' ? limits.mailboxWindowMs / 1000 : SIGN_IN_WINDOW_MS / 1000
      return this.#page(v, 429, pages.signInPage({ csrf: csrfToken(v.formSecret), error: detail, email }), { 'retry-after': String(retryS) })
    }
    try {
      await this.#mailer.sendSignIn({ to: email, link: `${this.#linkOrigin}/dashboard/link?token=${token}`, validMinutes: SIGN_IN_TTL_MS / 60_000 })
    } catch (e) {
      this.#deps.log.log('error', 'mail.failed', { transport: this.#mailer.kind, error: e instanceof Error ? e.message : String(e) })
      return this.#page(v, 503, pages.messagePage('The sign-in mail could not be sent', 'The mail server did not take the message. Try again in a few minutes.'))
    }
    return this.#page(v, 200, pages.checkMailPage(this.#mailer.kind))
  }

  /** GET /dashboard/link?token=…: a button that signs in. A GET changes nothing, so link scanners in mail systems cannot use the link up. */
  linkPage(v: Visit, token: unknown): Response {
    if (!isWellFormedSecret(token)) return this.#page(v, 400, pages.linkRefusedPage())
    return this.#page(v, 200, pages.linkPage({ csrf: csrfToken(v.formSecret), token }))
  }

  /** POST /dashboard/link: redeem the link once, start a session. */
  async redeem(v: Visit): Promise<Response> {
    const form = await this.#checkedForm(v, v.formSecret)
    if (form instanceof Response) return form
    const token = form.get('token')
    const now = this.#clock()
    const email = isWellFormedSecret(token) ? await this.#deps.keys.redeemSignIn(hashSecret(token), now) : undefined
    if (!email) {
      this.#deps.log.log('info', 'dashboard.link-refused', {})
      return this.#page(v, 400, pages.linkRefusedPage())
    }
    if (v.session) await this.#deps.keys.endSession(hashSecret(v.session.secret))
    const secret = newSecret()
    await this.#deps.keys.startSession(hashSecret(secret), email, now, SESSION_TTL_MS)
    v.cookies.push(setCookie('session', secret, v.secure, SESSION_TTL_MS / 1000))
    this.#deps.log.log('info', 'dashboard.signed-in', {})
    return this.#redirect(v, '/dashboard')
  }

  /** GET /dashboard/confirm?action=…: the confirmation step of regenerate, revoke and delete (no JavaScript needed). */
  async confirm(v: Visit, action: unknown): Promise<Response> {
    if (!v.session) return this.#redirect(v, '/dashboard')
    if (action !== 'regenerate' && action !== 'revoke' && action !== 'delete') return this.#page(v, 400, pages.messagePage('Unknown action', 'The action must be regenerate, revoke or delete.'))
    const key = await this.#deps.keys.keyOf(v.session.email)
    return this.#page(v, 200, pages.confirmPage({ csrf: csrfToken(v.session.secret), action, state: pages.keyState(key) }))
  }

  /**
   * POST /dashboard/key: create, regenerate or revoke, then a 303 to /dashboard (POST/redirect/
   * GET: a reload shows the dashboard, never resends the form). The notice and the new key go to
   * that page as a one-time flash bound to the session (./flash.ts), never in the URL.
   */
  async keyAction(v: Visit): Promise<Response> {
    if (!v.session) return this.#signedOut(v)
    const form = await this.#checkedForm(v, v.session.secret)
    if (form instanceof Response) return form
    const email = v.session.email
    const action = form.get('action')
    if (action !== 'create' && action !== 'regenerate' && action !== 'revoke' && action !== 'feed-token') return this.#page(v, 400, pages.messagePage('Unknown action', 'The action must be create, regenerate, revoke or feed-token.'))
    const keys = this.#deps.keys
    // The page's state must still be the key's: a reloaded or resent form changes nothing (and never shows a key again).
    if (form.get('state') !== pages.keyState(await keys.keyOf(email))) {
      return this.#page(v, 409, pages.messagePage('This page was out of date', 'Your key changed since this page was shown, so nothing was done. Look at the dashboard again.'))
    }
    const flash: Flash = { notice: '' }
    try {
      if (action === 'create') {
        flash.key = await keys.create(email)
        flash.notice = 'Your key is created.'
      } else if (action === 'feed-token') {
        flash.feedToken = await keys.createFeedToken(email)
        flash.notice = 'Your feed token is made: an earlier one no longer works.'
      } else if (action === 'regenerate') {
        flash.key = await keys.regenerate(email)
        flash.notice = 'Your key is regenerated: the previous key no longer works.'
      } else {
        await keys.revoke(email)
        flash.notice = 'Your key is revoked: it no longer works.'
      }
    } catch (e) {
      if (!(e instanceof KeyStoreError)) throw e
      return this.#page(v, 409, pages.messagePage('Nothing was changed', 'Your key changed since this page was shown. Look at the dashboard again.'))
    }
    const key = await keys.keyOf(email)
    this.#deps.log.log('info', 'dashboard.key-changed', { action, key_id: key?.id })
    await keys.putFlash(hashSecret(v.session.secret), email, sealFlash(flash, v.session.secret), this.#clock() + FLASH_TTL_MS)
    return this.#redirect(v, '/dashboard')
  }

  /** POST /dashboard/sign-out: the session ends on the server, the cookie is cleared. */
  async signOut(v: Visit): Promise<Response> {
    if (!v.session) return this.#redirect(v, '/dashboard')
    const form = await this.#checkedForm(v, v.session.secret)
    if (form instanceof Response) return form
    await this.#deps.keys.endSession(hashSecret(v.session.secret))
    v.cookies.push(clearCookie('session', v.secure))
    return this.#redirect(v, '/dashboard')
  }

  /** POST /dashboard/account/delete: key revoked by removal, address, sessions and links erased (decisions.md, Accounts). */
  async deleteAccount(v: Visit): Promise<Response> {
    if (!v.session) return this.#signedOut(v)
    const form = await this.#checkedForm(v, v.session.secret)
    if (form instanceof Response) return form
    if (form.get('action') !== 'delete') return this.#page(v, 400, pages.messagePage('Unknown action', 'Confirm the deletion on the confirmation page.'))
    await this.#deps.keys.deleteAccount(v.session.email)
    v.cookies.push(clearCookie('session', v.secure))
    this.#deps.log.log('info', 'dashboard.account-deleted', {})
    return this.#page(v, 200, pages.deletedPage())
  }

  async #account(v: Visit, email: string, o: { shownKey?: string; shownFeedToken?: string; notice?: string; key?: KeyListing }): Promise<string> {
    const key = o.key ?? (await this.#deps.keys.keyOf(email))
    const { config, limits: counters } = this.#deps
    const limits = effectiveLimits({ id: key?.id ?? 0, email, limits: key?.limits ?? {} }, config)
    // The same counters the API enforces (src/limits), read without counting anything.
    const peeked = key ? await counters.peek(key.id, this.#clock()) : { hourCount: 0, dayCount: 0 }
    const inFlightOf = (counters as { inFlight?: (id: number) => number }).inFlight
    const usage = { ...peeked, inFlight: key && typeof inFlightOf === 'function' ? inFlightOf.call(counters, key.id) : undefined }
    return pages.accountPage({ email, csrf: csrfToken(v.session?.secret ?? v.formSecret), key, limits, usage, shownKey: o.shownKey, shownFeedToken: o.shownFeedToken, hasFeedToken: key?.status === 'active' && (await this.#deps.keys.hasFeedToken(email)), notice: o.notice, apiBase: publicBase(config) })
  }

  /** The form of a POST after the Origin and CSRF checks, or the 403/413/415 page. */
  async #checkedForm(v: Visit, secret: string): Promise<URLSearchParams | Response> {
    if (!sameOrigin(v.request, v.origin)) {
      this.#deps.log.log('warn', 'dashboard.cross-origin-refused', {})
      return this.#page(v, 403, pages.messagePage('Refused', 'This form was not sent from this site, so it was refused.'))
    }
    const form = await readForm(v.request, (this.#deps.config.bodyTimeoutS ?? 10) * 1000)
    if ('refused' in form) return this.#page(v, form.refused, pages.messagePage('Refused', REFUSED_FORM[form.refused]), form.refused === 408 ? { connection: 'close' } : {})
    if (!csrfMatches(form.fields.get('csrf'), secret)) return this.#page(v, 403, pages.messagePage('This form has expired', 'Reload the page and try again.'))
    return form.fields
  }

  #signedOut(v: Visit): Response {
    return this.#page(v, 401, pages.messagePage('You are signed out', 'Your session has ended. Sign in again.', '<a href="/dashboard">Sign in</a>'))
  }

  #page(v: Visit, status: number, html: string, extra: Record<string, string> = {}): Response {
    const headers = new Headers({ ...pages.PAGE_HEADERS, ...extra })
    for (const c of v.cookies) headers.append('set-cookie', c)
    return new Response(html, { status, headers })
  }

  #redirect(v: Visit, path: string): Response {
    const headers = new Headers({ location: path, 'cache-control': 'no-store' })
    for (const c of v.cookies) headers.append('set-cookie', c)
    return new Response(null, { status: 303, headers })
  }
}
