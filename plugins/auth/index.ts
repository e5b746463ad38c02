import { Elysia } from 'elysia'
import type { AppDeps } from '../../src/app-deps'
import { ProblemError } from '../../src/http/problems'
import { authenticate, needsKey } from './authenticate'
import { clientAddress, FailedAuthThrottle } from './failed-auth-throttle'
import { setKeyOf } from './key-of'
import type { KeyRecord } from '../../src/keys/key-directory'
import { urlFacts } from '../../src/http/url-facts'

export { keyOf } from './key-of'

/**
 * X-API-Key -> key record, or 401 (interface.md, Authentication). Runs at onRequest, before
 * routing and validation, so that no answer under /api (400, 404 and 405 included) is given
 * without a valid key. The key value is never logged or stored; the record carries its id.
 * Failed attempts (a key that is sent but unknown) are counted per client address; past the
 * limit they get 429 instead of 401 (./failed-auth-throttle.ts). Valid keys are never throttled.
 */
export function authPlugin(deps: AppDeps) {
  const throttle = new FailedAuthThrottle({ limit: deps.config.authFailLimit ?? 30, windowMs: (deps.config.authFailWindowS ?? 60) * 1000 })
  const clock = deps.clock ?? Date.now
  const trustProxy = deps.config.trustProxy

  /** 429 when the address of this failed attempt is over its limit; otherwise nothing. */
  const throttleFailure = (request: Request, peer: string | undefined) => {
    const address = clientAddress(peer, request.headers.get('x-forwarded-for'), trustProxy)
    if (address === undefined) return
    const retryAfter = throttle.fail(address, clock())
    if (retryAfter === undefined) return
    if (throttle.firstRefusal(address)) deps.log.log('warn', 'auth.throttled', { address, limit: throttle.limit, window_s: throttle.windowMs / 1000 })
    throw new ProblemError('rateLimited', `Too many requests with an invalid API key from this address (limit ${throttle.limit} per ${throttle.windowMs / 1000} s). Retry in ${retryAfter} s.`, {
      retryAfter,
      headers: { 'retry-after': String(retryAfter) },
    })
  }

  const SLOT = Symbol('auth.needs-key')
  const keyed = (url: string): boolean => {
    const f = urlFacts(url)
    let k = f.slots.get(SLOT) as boolean | undefined
    if (k === undefined) f.slots.set(SLOT, (k = needsKey(f.path)))
    return k
  }

  const failed = (e: unknown, header: string | null, request: Request, server: { requestIP(r: Request): { address: string } | null } | null) => {
    // Elysia's Bun adapter hands the server to hooks: requestIP is the peer of this connection.
    if (throttle.enabled && header && e instanceof ProblemError && e.kind === 'unauthorized') throttleFailure(request, server?.requestIP(request)?.address)
    return e
  }

  const plugin = new Elysia({ name: 'auth' })
  // SQLite answers every lookup directly: keep the hook synchronous so Elysia does not await it.
  if (deps.keys.kind === 'sqlite') {
    return plugin.onRequest(({ request, server }) => {
      if (!keyed(request.url)) return
      const header = request.headers.get('x-api-key')
      try {
        setKeyOf(request, authenticate(header, deps.keys) as KeyRecord)
      } catch (e) {
        throw failed(e, header, request, server)
      }
    })
  }
  // PostgreSQL answers a cache miss with a promise; Elysia awaits async hooks in order, so the record is set before rate limiting.
  return plugin.onRequest(async ({ request, server }) => {
    if (!keyed(request.url)) return
    const header = request.headers.get('x-api-key')
    try {
      setKeyOf(request, await authenticate(header, deps.keys))
    } catch (e) {
      throw failed(e, header, request, server)
    }
  })
}
