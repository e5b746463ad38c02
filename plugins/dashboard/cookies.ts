/**
 * The dashboard's two cookies (RFC 6265bis): the session id once signed in, and the anonymous
 * form secret before (the CSRF token of the sign-in forms derives from it). Both HttpOnly (no
 * script reads them), SameSite=Lax (not sent on cross-site POSTs), Path=/dashboard. Behind https
 * they are Secure and take the `__Host-` prefix, which browsers accept only from a secure origin
 * with Path=/ — so the https names use Path=/ and no Domain, and cannot be set by a sibling host.
 */
export type CookieName = 'session' | 'form'

export function cookieName(which: CookieName, secure: boolean): string {
  const base = which === 'session' ? 'mv_session' : 'mv_form'
  return secure ? `__Host-${base}` : base
}

export function setCookie(which: CookieName, value: string, secure: boolean, maxAgeS: number): string {
  const path = secure ? '/' : '/dashboard'
  return `${cookieName(which, secure)}=${value}; Path=${path}; Max-Age=${maxAgeS}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`
}

export function clearCookie(which: CookieName, secure: boolean): string {
  return setCookie(which, '', secure, 0)
}

/** Largest Cookie header read (RFC 6265bis §5.6 lets browsers send about 4 KiB per cookie). */
const MAX_COOKIE_HEADER = 8192

/** The value of one cookie from a Cookie header, or undefined. Linear, bounded. */
export function readCookie(header: string | null, which: CookieName, secure: boolean): string | undefined {
  if (!header || header.length > MAX_COOKIE_HEADER) return undefined
  const name = cookieName(which, secure)
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq < 0) continue
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}
