import { Elysia, status } from 'elysia'
import type { PluginDeps } from '../../src/app-deps'
import { originFor } from '../../src/http/links'
import { syncHook } from '../../src/http/sync-hook'
import { urlFacts } from '../../src/http/url-facts'
import type { KeyRecord } from '../../src/keys/key-store'
import { keyOf } from '../auth/key-of'
import { CATCH_ALL_ROUTE } from '../errors/catch-all'
import { addHeaders, markStarConditional } from '../content-type/answer-state'
import { effectiveLimits, rateLimitHeaders } from '../rate-limit/limit-rules'
import { cacheControlFor } from './cache-policy'
import { entityTag, ifNoneMatch } from './entity-tag'
import { negotiateMediaType } from '../content-type/negotiate'
import { EXPORT_PATH, exportTagSuffix, exportVariant } from '../../src/query/export/export-params'

interface Validators {
  /** Index version and origin the tag was made for. */
  version: string
  base: string
  headers: Readonly<Record<string, string>> | undefined
}

/**
 * ETag and If-None-Match on keyed GET (and HEAD) resources (interface.md, Photos: conditional
 * requests). At transform, after auth and before rate limiting: the tag comes from the snapshot
 * pinned for this request (so tag and answer share one index version) and the request key; on a
 * match the answer is 304 with no body and is not counted (it peeks at the counters for the
 * X-RateLimit-* headers). Which resource this is comes from the route Elysia matched (`route`),
 * a GET route of the app; the catch-all (no resource) never gets a tag.
 *
 * `If-None-Match: *` (RFC 9110 §13.1.2; decisions.md, ETag and `*`) is true only when the
 * resource exists and the request is valid, which only running it can tell: such a request goes
 * on to the handler, and a successful answer becomes a 304 (plugins/content-type) that the rate
 * limit then leaves uncounted (plugins/rate-limit); a 400 or 404 stays what it is.
 */
export function etagPlugin(deps: PluginDeps) {
  const clock = deps.clock ?? Date.now
  const SLOT = Symbol('etag.validators') // per app: the memo depends on this app's routes

  /**
   * The validators of a keyed GET resource, or undefined when the request is not one. The tag is
   * memoised per URL (src/http/url-facts.ts) and recomputed when the pinned index version or the
   * origin differ.
   */
  const validators = (request: Request, route: string): { record: KeyRecord; headers: Readonly<Record<string, string>>; memo: Validators } | undefined => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return undefined
    const record = keyOf(request)
    if (!record) return undefined
    if (route === undefined || route === CATCH_ALL_ROUTE) return undefined
    const f = urlFacts(request.url)
    let memo = f.slots.get(SLOT) as Validators | undefined
    if (memo === undefined) f.slots.set(SLOT, (memo = { version: '', base: '', headers: undefined }))
    const version = deps.stores.forRequest(request).version
    const base = originFor(request, deps.config)
    if (route === EXPORT_PATH) {
      // The export's representation also depends on Accept: one tag per format (RFC 9110 §8.8.3),
      // none for an invalid format (that request is a 400, never a 304). Not memoised per URL.
      const accept = request.headers.get('accept')
      const variant = exportVariant(f.params(), accept)
      if (variant === undefined) return undefined
      const headers = Object.freeze({ etag: entityTag(version, base, f.getKey() + exportTagSuffix(variant, negotiateMediaType(accept))), 'cache-control': cacheControlFor(route) })
      return { record, headers, memo: { ...memo, headers } }
    }
    if (memo.headers === undefined || memo.version !== version || memo.base !== base) {
      // Shared by every request of this URL: answer-state copies before it would add to it.
      memo.headers = Object.freeze({ etag: entityTag(version, base, f.getKey()), 'cache-control': cacheControlFor(route) })
      memo.version = version
      memo.base = base
    }
    return { record, headers: memo.headers, memo }
  }

  type Ctx = { request: Request; route: string; set: { headers: Record<string, unknown> } }
  /** 'tag': a listed tag matched (304 now); 'star': `*` (decided after the handler); undefined: answer normally. */
  const conditional = (request: Request, etag: string) => {
    const inm = request.headers.get('if-none-match')
    return inm === null ? undefined : ifNoneMatch(inm, etag)
  }

  const plugin = new Elysia({ name: 'etag' })
  if (deps.limits.kind === 'memory') {
    // Synchronous with memory counters: declared so (src/http/sync-hook.ts).
    // A transform hook may end the request by returning status(...): Elysia's compose maps an
    // ElysiaCustomStatusResponse from transform into the answer, although its types say void.
    plugin.onTransform(
      { as: 'global' },
      syncHook(({ request, route, set }: Ctx) => {
        const v = validators(request, route)
        if (!v) return
        addHeaders(request, 'success', v.headers)
        const c = conditional(request, v.headers.etag!)
        if (c === 'star') return void markStarConditional(request)
        if (c !== 'tag') return
        const now = clock()
        const usage = deps.limits.peek(v.record.id, now) as { hourCount: number; dayCount: number }
        return notModified(set, v.headers, rateLimitHeaders(effectiveLimits(v.record, deps.config), usage.hourCount, now, usage.dayCount))
      }) as never,
    )
  } else {
    plugin.onTransform({ as: 'global' }, (async ({ request, route, set }: Ctx) => {
      const v = validators(request, route)
      if (!v) return
      addHeaders(request, 'success', v.headers)
      const c = conditional(request, v.headers.etag!)
      if (c === 'star') return void markStarConditional(request)
      if (c !== 'tag') return
      const now = clock()
      const usage = await deps.limits.peek(v.record.id, now)
      return notModified(set, v.headers, rateLimitHeaders(effectiveLimits(v.record, deps.config), usage.hourCount, now, usage.dayCount))
    }) as never)
  }
  return plugin
}

/**
 * RFC 9110 §15.4.5: 304 has no body and carries the ETag, Cache-Control and Vary a 200 would,
 * plus the X-RateLimit-* figures (a 304 is not counted: they are the current ones). Returned from
 * the transform hook as Elysia's status(), with the headers on `set`, so Elysia ends the request.
 */
function notModified(set: { headers: Record<string, unknown> }, validators: Readonly<Record<string, string>>, limits: Record<string, string>) {
  Object.assign(set.headers, validators, { vary: 'Accept, Accept-Encoding' }, limits)
  return status(304, '')
}
