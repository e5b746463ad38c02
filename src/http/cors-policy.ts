/**
 * Cross-origin access (Fetch standard, CORS protocol) for the origins the operator lists in
 * CORS_ORIGINS (`*` for any). Unset: no Access-Control-* header at all, so browsers refuse
 * cross-origin reads. A preflight (OPTIONS with Access-Control-Request-Method) is not an API
 * call (decisions.md, CORS preflight): it is answered here with 204, needs no key and is not
 * counted. Exposed headers: what a browser client needs to read from an answer (ETag for
 * revalidation, the rate-limit fields, the request id).
 */
export const EXPOSED_HEADERS = 'ETag, X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit-Policy, RateLimit, Retry-After'
export const ALLOWED_HEADERS = 'X-API-Key, Content-Type, If-None-Match, X-Request-Id'
export const ALLOWED_METHODS = 'GET, HEAD, POST, OPTIONS'
/** Browsers may cache a preflight this long (seconds). */
export const PREFLIGHT_MAX_AGE = 600

export interface CorsPolicy {
  /** The Access-Control-Allow-Origin value for this Origin, or undefined when it is not allowed. */
  allow(origin: string | null): string | undefined
  readonly enabled: boolean
  readonly any: boolean
}

export function corsPolicy(origins: readonly string[] = []): CorsPolicy {
  const any = origins.includes('*')
  const listed = new Set(origins.filter((o) => o !== '*').map((o) => o.replace(/\/+$/, '').toLowerCase()))
  return {
    enabled: any || listed.size > 0,
    any,
    allow(origin) {
      if (origin === null || origin.length > 2048) return undefined
      if (any) return '*'
      return listed.has(origin.toLowerCase()) ? origin : undefined
    },
  }
}

/** Headers every answer to an allowed cross-origin request carries. */
export function corsHeaders(policy: CorsPolicy, allowed: string): Record<string, string> {
  const h: Record<string, string> = { 'access-control-allow-origin': allowed, 'access-control-expose-headers': EXPOSED_HEADERS }
  // A listed origin is echoed: caches must keep one copy per Origin (RFC 9110 §12.5.5).
  if (!policy.any) h.vary = 'Origin'
  return h
}

export function isPreflight(request: Request): boolean {
  return request.method === 'OPTIONS' && request.headers.has('access-control-request-method')
}

/** 204 for an allowed preflight; a refused one gets 204 too, but without Access-Control-* headers (the browser then blocks the call). */
export function preflightResponse(policy: CorsPolicy, request: Request): Response {
  const allowed = policy.allow(request.headers.get('origin'))
  const headers: Record<string, string> = allowed
    ? {
        'access-control-allow-origin': allowed,
        'access-control-allow-methods': ALLOWED_METHODS,
        'access-control-allow-headers': ALLOWED_HEADERS,
        'access-control-max-age': String(PREFLIGHT_MAX_AGE),
        vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
      }
    : { vary: 'Origin' }
  return new Response(null, { status: 204, headers })
}
