import { Elysia } from 'elysia'
import type { AppDeps } from '../../src/app-deps'
import { originFor } from '../../src/http/links'
import { syncHook } from '../../src/http/sync-hook'
import { urlFacts } from '../../src/http/url-facts'
import type { KeyRecord } from '../../src/keys/key-store'
import { keyOf } from '../auth/key-of'
import { addHeaders } from '../content-type/answer-state'
import { RouteTable } from '../errors/route-table'
import { effectiveLimits, rateLimitHeaders } from '../rate-limit/limit-rules'
import { cacheControlFor } from './cache-policy'
import { entityTag, ifNoneMatchMatches } from './entity-tag'
import { negotiateMediaType } from '../content-type/negotiate'
import { EXPORT_PATH, exportTagSuffix, exportVariant } from '../../src/query/export/export-params'

interface Validators {
  /** RouteTable generation the route lookup belongs to. */
  generation: number
  /** Cache-Control of the GET route at this path; undefined when no GET route answers it. */
  cacheControl: string | undefined
  /** Index version and origin the tag was made for. */
  version: string
  base: string
  headers: Readonly<Record<string, string>> | undefined
  /** The last 304 sent for these validators, and the X-RateLimit-* values it carries. */
  last304?: { limit: string; remaining: string; reset: string; response: Response }
}

/**
 * ETag and If-None-Match on keyed GET (and HEAD) resources (interface.md, Photos: conditional
 * requests). At onRequest, after auth and before rate limiting: the tag comes from the snapshot
 * pinned for this request (so tag and answer share one index version) and the normalised
 * request; on a match the answer is 304 with no body and is not counted (it peeks at the counters
 * for the X-RateLimit-* headers). Otherwise ETag and Cache-Control are attached to the answer as
 * success-only headers, so error answers never carry them.
 */
export function etagPlugin(deps: AppDeps, opts: { routes?: RouteTable } = {}) {
  const table = opts.routes ?? new RouteTable()
  const clock = deps.clock ?? Date.now
  const SLOT = Symbol('etag.validators') // per app: the memo depends on this app's routes

  /**
   * The validators of a keyed GET resource, or undefined when the request is not one. The route,
   * Cache-Control and tag are memoised per URL (src/http/url-facts.ts) and recomputed when the
   * routes, the pinned index version or the origin differ: together with the memoised request key
   * this took about 4 µs off each keyed GET (in-process app.handle profile, issue 6).
   */
  const validators = (request: Request): { record: KeyRecord; headers: Readonly<Record<string, string>>; memo: Validators } | undefined => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return undefined
    const record = keyOf(request)
    if (!record) return undefined
    const f = urlFacts(request.url)
    const generation = table.generation()
    let memo = f.slots.get(SLOT) as Validators | undefined
    if (memo === undefined || memo.generation !== generation) {
      const match = table.match('GET', f.path)
      memo = { generation, cacheControl: match ? cacheControlFor(match.pattern) : undefined, version: '', base: '', headers: undefined }
      f.slots.set(SLOT, memo)
    }
    if (memo.cacheControl === undefined) return undefined
    const version = deps.stores.forRequest(request).version
    const base = originFor(request, deps.config)
    if (f.path === EXPORT_PATH) {
      // The export's representation also depends on Accept: one tag per format (RFC 9110 §8.8.3),
      // none for an invalid format (that request is a 400, never a 304). Not memoised per URL.
      const accept = request.headers.get('accept')
      const variant = exportVariant(f.params(), accept)
      if (variant === undefined) return undefined
      const headers = Object.freeze({ etag: entityTag(version, base, f.getKey() + exportTagSuffix(variant, negotiateMediaType(accept))), 'cache-control': memo.cacheControl })
      return { record, headers, memo: { ...memo, headers, last304: undefined } }
    }
    if (memo.headers === undefined || memo.version !== version || memo.base !== base) {
      // Shared by every request of this URL: answer-state copies before it would add to it.
      memo.headers = Object.freeze({ etag: entityTag(version, base, f.getKey()), 'cache-control': memo.cacheControl })
      memo.version = version
      memo.base = base
      memo.last304 = undefined
    }
    return { record, headers: memo.headers, memo }
  }

  const plugin = new Elysia({ name: 'etag' })
  if (deps.limits.kind === 'memory') {
    // Synchronous with memory counters: declared so (src/http/sync-hook.ts).
    plugin.onRequest(
      syncHook(({ request }: { request: Request }) => {
        const v = validators(request)
        if (!v) return
        if (!matches(request, v.headers.etag!)) return void addHeaders(request, 'success', v.headers)
        const now = clock()
        const usage = deps.limits.peek(v.record.id, now) as { hourCount: number }
        return notModified(v.memo, rateLimitHeaders(effectiveLimits(v.record, deps.config), usage.hourCount, now))
      }),
    )
  } else {
    plugin.onRequest(async ({ request }) => {
      const v = validators(request)
      if (!v) return
      if (!matches(request, v.headers.etag!)) return void addHeaders(request, 'success', v.headers)
      const now = clock()
      const usage = await deps.limits.peek(v.record.id, now)
      return notModified(v.memo, rateLimitHeaders(effectiveLimits(v.record, deps.config), usage.hourCount, now))
    })
  }
  return plugin
}

function matches(request: Request, tag: string): boolean {
  const inm = request.headers.get('if-none-match')
  return inm !== null && ifNoneMatchMatches(inm, tag)
}

/**
 * RFC 9110 §15.4.5: 304 has no body and carries the ETag, Cache-Control and Vary a 200 would.
 * A 304 is not counted, so repeated revalidations of one URL carry the same X-RateLimit-* values
 * until another call is counted or the hour turns: then the previous 304 is cloned, which costs
 * ~1.2 µs against ~2.8 µs for a new Response with six headers (bun microbench, issue 6).
 */
function notModified(memo: Validators, limits: Record<string, string>): Response {
  const limit = limits['x-ratelimit-limit']!
  const remaining = limits['x-ratelimit-remaining']!
  const reset = limits['x-ratelimit-reset']!
  const last = memo.last304
  if (last !== undefined && last.remaining === remaining && last.limit === limit && last.reset === reset) return last.response.clone() as Response
  const response = new Response(null, { status: 304, headers: { ...memo.headers, vary: 'Accept', ...limits } })
  memo.last304 = { limit, remaining, reset, response }
  return response.clone() as Response
}
