/** The settings read here (src/config.ts holds them; named structurally, since config.ts parses PUBLIC_URL with this module). */
interface OriginSettings {
  publicUrl?: string
  port: number
  smtpUrl?: string
}

/**
 * The origin every mailed link points at (the dashboard's sign-in link): PUBLIC_URL, set by the
 * operator, never anything a request carries. A link built from `Host` or `X-Forwarded-Host`
 * hands its one-time token to whichever host the requester named, so a stranger could have the
 * victim's own sign-in link mailed to the victim pointing at the stranger's site.
 *
 * Without PUBLIC_URL the links point at this machine (`http://localhost:PORT`): fine for a
 * developer reading the link on stdout, useless for real mail, which is why a server with
 * SMTP_URL and no PUBLIC_URL refuses to start (publicUrlRefusal).
 */
export function mailLinkOrigin(config: Pick<OriginSettings, 'publicUrl' | 'port'>, port = config.port): string {
  return config.publicUrl ?? `http://localhost:${port}`
}

/** Why the server must not start with this configuration, or undefined. */
export function publicUrlRefusal(config: Pick<OriginSettings, 'publicUrl' | 'smtpUrl'>): string | undefined {
  if (config.smtpUrl && !config.publicUrl)
    return 'SMTP_URL is set but PUBLIC_URL is not: set PUBLIC_URL to the origin your users reach the service at (for example https://mars-api.example). Mailed sign-in links are built from it, never from a request header.'
  return undefined
}

/**
 * PUBLIC_URL as an origin (`scheme://host[:port]`, RFC 6454 §6.2): an http or https URL with
 * nothing after the authority but an optional `/`. Throws saying what is wrong.
 */
export function parsePublicUrl(raw: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new Error(`PUBLIC_URL must be an absolute URL such as https://mars-api.example, got "${raw}"`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`PUBLIC_URL must start with https:// or http://, got "${raw}"`)
  if (url.username || url.password || url.search || url.hash || url.pathname !== '/')
    throw new Error(`PUBLIC_URL must be an origin only (scheme, host and port, no path, query or user), got "${raw}"`)
  return url.origin
}
