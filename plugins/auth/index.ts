import { Elysia } from 'elysia'
import type { PluginDeps } from '../../src/app-deps'
import { ProblemError } from '../../src/http/problems'
import { authenticate, authenticateFeedToken, BEARER_KEY_DETAIL, QUERY_KEY_DETAIL } from '../../src/keys/authenticate'
import { isV2Path } from '../../src/http/api-paths'
import { CATCH_ALL_ROUTE } from '../../src/http/route-docs'
import { urlFacts } from '../../src/http/url-facts'
import { clientAddress, FailedAuthThrottle } from '../../src/limits/failed-auth-throttle'
import { contextOf } from '../../src/http/request-context'
import { syncHook } from '../../src/http/sync-hook'
import { queryApiKey } from '../../src/v1/v1-key'
import type { KeyRecord } from '../../src/keys/key-directory'

/**
 * X-API-Key -> key record, or 401 (interface.md, Authentication). Whether a key is needed comes
 * from the declaration of the route Elysia matched (`route`, src/http/route-docs.ts), never from
 * a second parse of the URL: a router and a gate that read the path differently once let
 * `Host: a` + `/xy/api/v2/photos` reach the photo list without a key. Unmatched paths reach the
 * app's catch-all route, which is keyed, so they fail closed.
 *
 * Runs at transform, before Elysia's validation, so no 400 is given without a key. Elysia parses
 * a body before transform: routes that take a body read it themselves (`parse: 'none'` and
 * plugins/photos/read-json-body.ts), so a bad body never answers before the key is checked.
 * Failed attempts (a key sent but unknown) are counted per client address
 * (src/limits/failed-auth-throttle.ts; in Redis when the limits are); past the limit they get 429.
 */
export function authPlugin(deps: PluginDeps) {
  const throttle = new FailedAuthThrottle({ limit: deps.config.authFailLimit ?? 30, windowMs: (deps.config.authFailWindowS ?? 60) * 1000 })
  const clock = deps.clock ?? Date.now
  const trustProxy = deps.config.trustProxy
  const shared = deps.limits.countFailedAuth?.bind(deps.limits)

  const refuse = (address: string, retryAfter: number, firstRefusal: boolean): never => {
    if (firstRefusal) deps.log.log('warn', 'auth.throttled', { address, limit: throttle.limit, window_s: throttle.windowMs / 1000 })
    throw new ProblemError('rateLimited', `Too many requests with an invalid API key from this address (limit ${throttle.limit} per ${throttle.windowMs / 1000} s). Retry in ${retryAfter} s.`, {
      retryAfter,
      headers: { 'retry-after': String(retryAfter) },
    })
  }

  /** Counts this failed attempt; throws 429 past the limit. A promise only with shared (Redis) counters. */
  const throttleFailure = (request: Request, peer: string | undefined): void | Promise<void> => {
    const address = clientAddress(peer, request.headers.get('x-forwarded-for'), trustProxy)
    if (address === undefined) return
    const now = clock()
    if (shared) {
      return Promise.resolve(shared(address, throttle.windowMs, now)).then(
        (count) => {
          if (count === undefined) return localThrottle(address, now) // store unreachable: this process's counts
          if (count <= throttle.limit) return
          refuse(address, Math.max(1, Math.ceil((throttle.windowMs - (now % throttle.windowMs)) / 1000)), count === throttle.limit + 1)
        },
      )
    }
    return localThrottle(address, now)
  }
  const localThrottle = (address: string, now: number): void => {
    const retryAfter = throttle.fail(address, now)
    if (retryAfter !== undefined) refuse(address, retryAfter, throttle.firstRefusal(address))
  }

  type Ctx = { request: Request; route: string }
  const check = (request: Request, route: string | undefined): void | Promise<void> => {
    // The first gate of every routed request: the route it ran is noted here for the access log
    // and metrics, so they name what ran instead of matching the path again.
    const ctx = contextOf(request)
    if (route !== undefined) ctx.route = route
    // The catch-all's path as routed: keyed when it may be meant for the API, else a plain 404.
    const path = route === CATCH_ALL_ROUTE ? urlFacts(request.url).path : route
    if (!deps.routes.needsKey(request.method, route, path)) return
    // A key in a place this route never reads it: refused before anything else, saying where it goes.
    const misplaced = misplacedKey(request, path, route !== undefined && deps.routes.lookup(request.method, route)?.keyInQuery === true)
    if (misplaced !== undefined) throw new ProblemError('unauthorized', misplaced)
    if (ctx.key !== undefined) return
    // The header, else the api_key query parameter where the matched route is declared to take
    // it (the v1 compatibility routes only): the one place a key is read.
    const header = request.headers.get('x-api-key') ?? (route !== undefined && deps.routes.lookup(request.method, route)?.keyInQuery ? queryApiKey(request.url) : null)
    // Without a key, a feed route reads its feed token (src/keys/api-key.ts: a token, not the key).
    const feedToken = (header === null || header === '') && route !== undefined && deps.routes.lookup(request.method, route)?.feedToken ? urlFacts(request.url).params().get('feed_token') : null
    // Only a refused key counts towards the throttle (not an unreachable key store: 503).
    const failed = (e: unknown): void | Promise<void> => {
      if (!throttle.enabled || !(header || feedToken) || !(e instanceof ProblemError && e.kind === 'unauthorized')) throw e
      // The peer of this connection (Bun's requestIP), asked only now: see PluginDeps.peer.
      const counted = throttleFailure(request, deps.peer?.(request))
      if (counted === undefined) throw e
      return counted.then(() => {
        throw e
      })
    }
    let found: KeyRecord | Promise<KeyRecord>
    try {
      found = feedToken ? authenticateFeedToken(feedToken, deps.keys) : authenticate(header, deps.keys)
    } catch (e) {
      return failed(e)
    }
    // A key store that must ask its database (PostgreSQL on a cache miss) answers with a promise.
    if (found instanceof Promise) return found.then((record) => void (ctx.key = record), failed)
    ctx.key = found
  }

  const sync = !(shared || deps.keys.kind !== 'sqlite')
  // The same decision at the edge, for a revalidation answered before routing
  // (src/http/early-answers.ts): only a key sent in X-API-Key and found at once; a missing or
  // refused key, or a store that must be asked asynchronously, goes down the pipeline, which
  // decides (and counts refusals towards the throttle) as for any request.
  deps.early?.addGate((ctx, request, route) => {
    if (ctx.key !== undefined) return 'next'
    if (!sync || !deps.routes.needsKey(request.method, route)) return 'pipeline'
    if (misplacedKey(request, route, deps.routes.lookup(request.method, route)?.keyInQuery === true) !== undefined) return 'pipeline'
    const header = request.headers.get('x-api-key')
    if (header === null || header === '') return 'pipeline'
    try {
      const found = authenticate(header, deps.keys)
      if (found instanceof Promise) {
        found.catch(() => {})
        return 'pipeline'
      }
      ctx.key = found
      return 'next'
    } catch {
      return 'pipeline'
    }
  })

  const plugin = new Elysia({ name: 'auth' })
  if (!sync) {
    return plugin.onTransform({ as: 'global' }, async ({ request, route }: Ctx) => await check(request, route))
  }
  // Synchronous with SQLite keys and local counters: declared so (src/http/sync-hook.ts).
  // Destructured, so Elysia sees which context fields the hook reads (a whole `ctx` makes it parse cookies for every route).
  return plugin.onTransform({ as: 'global' }, syncHook(({ request, route }: Ctx) => void check(request, route)))
}

/**
 * Why a key this request sends cannot be used, or undefined (interface.md, Authentication: the key
 * goes in X-API-Key; decisions.md, Keys in the URL: `api_key=` on the v1 routes only). On /api/v2
 * an `api_key` query parameter (any case) or `Authorization: Bearer` is always refused, even beside
 * a valid X-API-Key, so a client learns at once that the header is the one place; elsewhere a
 * Bearer credential is pointed at X-API-Key only when no key came where the route reads one.
 */
export function misplacedKey(request: Request, path: string | undefined, keyInQuery: boolean): string | undefined {
  const v2 = path !== undefined && isV2Path(path)
  if (v2 && urlFacts(request.url).hasQueryKey()) return QUERY_KEY_DETAIL
  const authorization = request.headers.get('authorization')
  if (authorization === null || !BEARER.test(authorization)) return undefined
  if (v2) return BEARER_KEY_DETAIL
  const sent = request.headers.get('x-api-key') ?? (keyInQuery ? queryApiKey(request.url) : null)
  return sent === null || sent === '' ? BEARER_KEY_DETAIL : undefined
}

const BEARER = /^\s*bearer(?:\s|$)/i
