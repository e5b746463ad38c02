import { secretEquals } from '../../src/http/secret-equal'

/**
 * Cross-site request forgery defences on every dashboard POST (OWASP CSRF cheat sheet):
 *
 * 1. Origin: the request's `Origin` header (RFC 6454 §7; browsers send it on POSTs) must be
 *    exactly this service's origin; a POST with neither Origin nor `Sec-Fetch-Site: same-origin`
 *    is refused.
 * 2. A token in the form, derived from the secret of the visitor's cookie (the session id once
 *    signed in, the anonymous form secret before): SHA-256 over a fixed label and that secret.
 *    Another site can neither read the cookie nor compute the token, and the token changes with
 *    every session. Nothing extra is stored.
 */
export function csrfToken(secret: string): string {
  return Bun.CryptoHasher.hash('sha256', 'mars-photos dashboard csrf\0' + secret, 'base64url') as string
}

/** Constant-time check of a submitted token against the cookie's secret. */
export function csrfMatches(submitted: unknown, secret: string | undefined): boolean {
  if (typeof submitted !== 'string' || !secret) return false
  return secretEquals(submitted, csrfToken(secret))
}

/**
 * True when the request's Origin is exactly `origin` (scheme, host and port). A browser that sent
 * no Origin must then say `Sec-Fetch-Site: same-origin` (Fetch Metadata; scripts cannot set it).
 */
export function sameOrigin(request: Request, origin: string): boolean {
  const o = request.headers.get('origin')
  if (o !== null) return o === origin
  return request.headers.get('sec-fetch-site') === 'same-origin'
}
