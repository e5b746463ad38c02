/**
 * The dashboard's pages, rendered on the server as complete HTML documents under the site's
 * shared header (src/http/site-header.ts). Every form works without JavaScript; the one script
 * (the copy buttons of a new key and its first request) only improves. Style and
 * script are inline and allowed by their SHA-256 in the Content-Security-Policy, so the pages
 * load nothing at all, from this origin or another. Every value from a user or the store goes
 * through `esc`.
 */
import type { KeyListing } from '../../src/keys/key-directory'
import { SITE_STYLE, siteHeader } from '../../src/http/site-header'

const STYLE = `
:root{color-scheme:light dark;font-family:system-ui,sans-serif;line-height:1.5}
body{margin:0}main{margin:0 auto;max-width:42rem;padding:1rem}
${SITE_STYLE}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=email]{width:100%;box-sizing:border-box;padding:.6rem;font-size:1rem}
button{font-size:1rem;padding:.55rem 1rem;margin:.5rem .5rem 0 0;cursor:pointer}
.danger{background:#b3261e;color:#fff;border:0}
.notice{padding:.75rem;border-left:4px solid #2e7d32;background:rgba(46,125,50,.1)}
.error{padding:.75rem;border-left:4px solid #b3261e;background:rgba(179,38,30,.1)}
.key{font-family:ui-monospace,monospace;font-size:1rem;word-break:break-all;padding:.75rem;border:1px solid;display:block}
pre{white-space:pre-wrap;word-break:break-all;padding:.75rem;border:1px solid rgba(128,128,128,.6);font-size:.9rem}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.35rem;border-bottom:1px solid rgba(128,128,128,.4)}
form.inline{display:inline}
`.trim()

const COPY_SCRIPT = `
for (const b of document.querySelectorAll('button[data-copy]')) {
  b.hidden = false
  b.addEventListener('click', () => {
    const text = document.getElementById(b.dataset.copy).textContent
    navigator.clipboard.writeText(text).then(() => { b.textContent = 'Copied' }, () => { b.textContent = 'Select the key and copy it' })
  })
}
`.trim()

const hash = (s: string) => `'sha256-${Bun.CryptoHasher.hash('sha256', s, 'base64')}'`

/**
 * The page headers: no caching anywhere (a page may hold a new key), no framing, and the referrer
 * only to this origin (a link page's URL holds a token; `no-referrer` would also make Chromium
 * drop the Origin header of the page's own form posts, which the CSRF check needs).
 */
export const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': `default-src 'none'; style-src ${hash(STYLE)}; script-src ${hash(COPY_SCRIPT)}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
}

export function esc(v: unknown): string {
  return String(v).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

function layout(title: string, body: string, script = false): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)} · Mars rover photo API</title><style>${STYLE}</style></head>
<body>${siteHeader('dashboard')}<main>
<h1>${esc(title)}</h1>
${body}
</main>${script ? `<script>${COPY_SCRIPT}</script>` : ''}</body></html>`
}

const csrfField = (csrf: string) => `<input type="hidden" name="csrf" value="${esc(csrf)}">`

export function signInPage(o: { csrf: string; error?: string; email?: string }): string {
  return layout(
    'Sign in to your API key dashboard',
    `${o.error ? `<p class="error" role="alert">${esc(o.error)}</p>` : ''}
<p>Type your e-mail address: we send you a link that signs you in. No password.</p>
<form method="post" action="/dashboard/sign-in">${csrfField(o.csrf)}
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" required maxlength="254" autocomplete="email" value="${esc(o.email ?? '')}">
<button type="submit">Send me a sign-in link</button>
</form>`,
  )
}

/**
 * Where the link went: the mailbox, or, on a server with no mail configured (no SMTP_URL), the
 * server's console, where its operator (on a machine of one's own, oneself) reads it. The same
 * page for every address, so it tells nobody whether an address has an account.
 */
export function checkMailPage(transport: 'smtp' | 'log'): string {
  const where =
    transport === 'smtp'
      ? `<p class="notice" role="status">If the address can receive mail, a sign-in link is on its way to its mailbox. It works once, within 15 minutes.</p>`
      : `<p class="notice" role="status">This server sends no mail (no mail server is configured), so the sign-in link was written to the server's console (its standard output), not mailed. Whoever runs the server can open it from there. It works once, within 15 minutes.</p>`
  return layout('Check your mailbox', `${where}\n<p><a href="/dashboard">Back</a></p>`)
}

export function linkPage(o: { csrf: string; token: string }): string {
  return layout(
    'Finish signing in',
    `<p>Press the button to sign in on this device.</p>
<form method="post" action="/dashboard/link">${csrfField(o.csrf)}
<input type="hidden" name="token" value="${esc(o.token)}">
<button type="submit">Sign in</button>
</form>`,
  )
}

export function linkRefusedPage(): string {
  return layout(
    'This sign-in link does not work',
    `<p class="error" role="alert">The link is invalid, was already used, or is older than 15 minutes. Each link works once.</p>
<p><a href="/dashboard">Ask for a new link</a></p>`,
  )
}

export interface AccountView {
  email: string
  csrf: string
  key: KeyListing | undefined
  limits: { hourly: number; daily: number; concurrent: number }
  usage: { hourCount: number; dayCount: number; inFlight?: number }
  /** A key value to show once (just created or regenerated). */
  shownKey?: string
  /** A feed token to show once (just made), with a feed URL holding it. */
  shownFeedToken?: string
  /** The active key has a feed token (its value is never shown again). */
  hasFeedToken?: boolean
  notice?: string
  /** The service's public origin, for the first request (the placeholder when none is configured). */
  apiBase: string
}

/** The base of the first request when the service does not know its public address. */
export const PLACEHOLDER_BASE = 'https://mars-api.example'

/** A ready request with the new key in it: the first call a user makes. */
function firstRequest(key: string, base: string): string {
  const curl = `curl -H 'X-API-Key: ${key}' \\\n  '${base}/api/v2/photos?rovers=curiosity&sol=1000&per_page=5'`
  return `<section aria-labelledby="first"><h2 id="first">Your first request</h2>
<p>Five photos Curiosity took on sol 1000, with your key already in it:</p>
<pre id="first-request">${esc(curl)}</pre>
<button type="button" data-copy="first-request" hidden>Copy the request</button>
${base === PLACEHOLDER_BASE ? `<p>Replace <code>${PLACEHOLDER_BASE}</code> with the address of this service.</p>` : ''}<p>Every operation, its parameters and more examples: <a href="/api/v2/docs">the API docs</a>.</p></section>`
}

/** The form state that makes a resubmitted page (reload, back button) change nothing: the key's last change. */
export function keyState(key: KeyListing | undefined): string {
  return key ? `${key.status}:${key.updated_at}` : 'none'
}

function keyStatus(key: KeyListing | undefined): string {
  if (!key) return 'No key yet.'
  if (key.status === 'revoked') return `Revoked on ${esc(key.updated_at.slice(0, 10))}.`
  return `Active since ${esc(key.updated_at.slice(0, 10))} (${esc(key.updated_at.slice(11, 16))} UTC).`
}

export function accountPage(v: AccountView): string {
  const state = esc(keyState(v.key))
  const shown = v.shownKey
    ? `<section aria-labelledby="new-key"><h2 id="new-key">Your new API key</h2>
<p class="notice" role="status">It is shown this once only: store it now. Send it in the <code>X-API-Key</code> header.</p>
<code class="key" id="api-key">${esc(v.shownKey)}</code>
<button type="button" data-copy="api-key" hidden>Copy</button></section>
${firstRequest(v.shownKey, v.apiBase)}`
    : ''
  const actions = !v.key
    ? `<form method="post" action="/dashboard/key">${csrfField(v.csrf)}<input type="hidden" name="action" value="create"><input type="hidden" name="state" value="${state}"><button type="submit">Create my API key</button></form>`
    : `<form method="get" action="/dashboard/confirm" class="inline"><input type="hidden" name="action" value="regenerate"><button type="submit">${v.key.status === 'active' ? 'Regenerate' : 'Create a new key'}</button></form>
${v.key.status === 'active' ? `<form method="get" action="/dashboard/confirm" class="inline"><input type="hidden" name="action" value="revoke"><button type="submit">Revoke</button></form>` : ''}`
  const feedUrl = v.shownFeedToken ? `${v.apiBase}/api/v2/photos/feed.atom?rovers=perseverance&feed_token=${v.shownFeedToken}` : ''
  const shownFeed = v.shownFeedToken
    ? `<section aria-labelledby="new-feed-token"><h2 id="new-feed-token">Your feed token</h2>
<p class="notice" role="status">It is shown this once only. Put it in a feed URL as <code>feed_token=</code> for a feed reader, which cannot send headers; it stands for your key, counts against it, and ends when the key is regenerated or revoked.</p>
<code class="key" id="feed-token">${esc(v.shownFeedToken)}</code>
<button type="button" data-copy="feed-token" hidden>Copy</button>
<p>New Perseverance photos as an Atom feed:</p>
<pre id="feed-url">${esc(feedUrl)}</pre>
<button type="button" data-copy="feed-url" hidden>Copy the feed URL</button></section>`
    : ''
  const feedActions = v.key?.status === 'active'
    ? `<h2>Feeds</h2>
<p id="feed-state">${v.hasFeedToken ? 'You have a feed token (shown once when made).' : 'No feed token yet.'} Feed readers follow <code>/api/v2/photos/feed.atom</code> or <code>feed.json</code> with it (<a href="/api/v2/docs">the API docs</a>).</p>
<form method="post" action="/dashboard/key">${csrfField(v.csrf)}<input type="hidden" name="action" value="feed-token"><input type="hidden" name="state" value="${state}"><button type="submit">${v.hasFeedToken ? 'Replace my feed token' : 'Make a feed token'}</button></form>`
    : ''
  const used = (n: number, of: number) => `${n.toLocaleString('en-US')} of ${of.toLocaleString('en-US')}`
  return layout(
    'Your API key',
    `${v.notice ? `<p class="notice" role="status">${esc(v.notice)}</p>` : ''}
<p>Signed in as <strong>${esc(v.email)}</strong>.</p>
${shown}
${shownFeed}
<h2>Key</h2>
<p id="key-state">${keyStatus(v.key)}</p>
${actions}
${feedActions}
<h2>Limits and use now</h2>
<table><thead><tr><th scope="col">Limit</th><th scope="col">Used now</th></tr></thead><tbody>
<tr><td>Per UTC hour</td><td id="use-hour">${used(v.usage.hourCount, v.limits.hourly)}</td></tr>
<tr><td>Per UTC day</td><td id="use-day">${used(v.usage.dayCount, v.limits.daily)}</td></tr>
<tr><td>In flight at once</td><td id="use-concurrent">${v.usage.inFlight === undefined ? `at most ${v.limits.concurrent.toLocaleString('en-US')}` : used(v.usage.inFlight, v.limits.concurrent)}</td></tr>
</tbody></table>
<h2>Session</h2>
<form method="post" action="/dashboard/sign-out" class="inline">${csrfField(v.csrf)}<button type="submit">Sign out</button></form>
<form method="get" action="/dashboard/confirm" class="inline"><input type="hidden" name="action" value="delete"><button type="submit" class="danger">Delete my account</button></form>`,
    Boolean(v.shownKey || v.shownFeedToken),
  )
}

export type ConfirmAction = 'regenerate' | 'revoke' | 'delete'

const CONFIRM: Record<ConfirmAction, { title: string; text: string; button: string; path: string }> = {
  regenerate: { title: 'Regenerate your key?', text: 'A new key replaces the current one. The current key stops working at once, everywhere.', button: 'Yes, regenerate', path: '/dashboard/key' },
  revoke: { title: 'Revoke your key?', text: 'The key stops working at once, everywhere. You can create a new one later.', button: 'Yes, revoke', path: '/dashboard/key' },
  delete: { title: 'Delete your account?', text: 'Your key stops working at once, and your e-mail address and sessions are erased.', button: 'Yes, delete my account', path: '/dashboard/account/delete' },
}

export function confirmPage(o: { csrf: string; action: ConfirmAction; state: string }): string {
  const c = CONFIRM[o.action]
  return layout(
    c.title,
    `<p>${esc(c.text)}</p>
<form method="post" action="${c.path}">${csrfField(o.csrf)}<input type="hidden" name="action" value="${o.action}"><input type="hidden" name="state" value="${esc(o.state)}">
<button type="submit" class="danger">${esc(c.button)}</button></form>
<p><a href="/dashboard">Cancel</a></p>`,
  )
}

export function messagePage(title: string, message: string, link = '<a href="/dashboard">Back to the dashboard</a>'): string {
  return layout(title, `<p class="error" role="alert">${esc(message)}</p><p>${link}</p>`)
}

export function deletedPage(): string {
  return layout('Account deleted', `<p class="notice" role="status">Your key no longer works, and your address and sessions are erased.</p><p><a href="/dashboard">Sign in again</a></p>`)
}
