/**
 * The security headers of every HTML answer (the docs page where users paste their key, the
 * landing page, the dashboard, the rover pages, any HTML error page): no other site may frame
 * it (`frame-ancestors 'none'`, CSP Level 3 §6.4.2, and `X-Frame-Options: DENY`, RFC 7034, for
 * browsers without CSP), and no script runs that the page did not declare by its SHA-256.
 *
 * A page with inline style or script declares its policy with `pagePolicy(html)`, which hashes
 * each inline `<script>` and `<style>` block of the document it will send. The edge
 * (app/edge.ts) passes every answer through `secureHtml`: an HTML answer without a policy gets
 * FALLBACK_POLICY (inline style, no script at all), one whose policy lacks `frame-ancestors`
 * gets it added, and every one gets `X-Frame-Options: DENY` and `nosniff`. So a page added later
 * is covered without remembering to be.
 */
export const FALLBACK_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

const INLINE = /<(script|style)(?:\s[^>]*)?>([\s\S]*?)<\/\1\s*>/gi

const sha256 = (s: string) => `'sha256-${Bun.CryptoHasher.hash('sha256', s, 'base64')}'`

/** Sources a page may add to its policy (e.g. `img-src` hosts of thumbnails), directive -> sources. */
export type PolicyExtras = Partial<Record<'img-src' | 'connect-src' | 'form-action', string[]>>

/**
 * The Content-Security-Policy of `html`: nothing by default; each inline script and style
 * allowed by its hash (so an injected one is not); images, fetches and form posts to this origin.
 */
export function pagePolicy(html: string, extras: PolicyExtras = {}): string {
  const scripts = new Set<string>()
  const styles = new Set<string>()
  for (const m of html.matchAll(INLINE)) (m[1]!.toLowerCase() === 'script' ? scripts : styles).add(sha256(m[2]!))
  const src = (base: string[], extra: string[] = []) => [...base, ...extra].join(' ')
  return [
    "default-src 'none'",
    ...(scripts.size ? [`script-src ${[...scripts].join(' ')}`] : []),
    ...(styles.size ? [`style-src ${[...styles].join(' ')}`] : []),
    `img-src ${src(["'self'", 'data:'], extras['img-src'])}`,
    `connect-src ${src(["'self'"], extras['connect-src'])}`,
    `form-action ${src(["'self'"], extras['form-action'])}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/** True when a Content-Type names HTML (any parameters). Asked of every answer: most are JSON, told apart by their first character. */
export function isHtml(contentType: string | null): boolean {
  if (contentType === null) return false
  const c = contentType.charCodeAt(0)
  return (c === 0x74 || c === 0x54 || c === 0x20) && /^\s*text\/html\s*(?:;|$)/i.test(contentType)
}

/** Puts the HTML security headers on `headers` (an HTML answer's), keeping a stricter policy the page set itself. */
export function secureHtml(headers: Headers): void {
  const csp = headers.get('content-security-policy')
  if (csp === null) headers.set('content-security-policy', FALLBACK_POLICY)
  else if (!/(?:^|;)\s*frame-ancestors\s/i.test(csp)) headers.set('content-security-policy', `${csp}; frame-ancestors 'none'`)
  headers.set('x-frame-options', 'DENY')
  headers.set('x-content-type-options', 'nosniff')
}
