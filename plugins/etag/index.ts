import { Elysia, status } from 'elysia'
import type { PluginDeps } from '../../src/app-deps'
import { originFor } from '../../src/http/links'
import { syncHook } from '../../src/http/sync-hook'
import { urlFacts } from '../../src/http/url-facts'
import { queryProblem } from '../../src/http/query-problem'
import { contextOf, type RequestContext } from '../../src/http/request-context'
import { CATCH_ALL_ROUTE } from '../../src/http/route-docs'
import { entityTag, ifNoneMatch } from '../../src/http/entity-tag'
import { negotiateMediaType } from '../../src/http/negotiate'
import { effectiveLimits, RATE_LIMIT_FIELD_NAMES, rateLimitHeaders, type RateLimitFields } from '../../src/limits/limit-rules'
import { HeaderSet } from '../../src/http/header-set'
import { cacheControlFor } from './cache-policy'
import { EXPORT_PATH, exportTagSuffix, exportVariant } from '../../src/query/export/export-params'

/** The validators last made for one URL: valid while the pinned index version, origin and route are the same. */
interface Validators {
  version: string
  base: string
  route: string
  headers: Readonly<Record<string, string>>
}

const MEMO_MAX = 4096
const MEMO_MAX_URL = 2048

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
  // Per app (the validators depend on this app's routes), per URL string: every value in it
  // is derived from the URL, the route Elysia matched for it, the pinned index version and the
  // origin, all compared before an entry is used, so it never carries one request's state to another.
  const memo = new Map<string, Validators>()

  /**
   * The validator headers of a keyed GET resource, or undefined when the request is not one.
   * One frozen object per URL while the index version and origin stay the same.
   */
  const validators = (ctx: RequestContext, request: Request, route: string): Readonly<Record<string, string>> | undefined => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return undefined
    if (ctx.key === undefined) return undefined
    if (route === undefined || route === CATCH_ALL_ROUTE) return undefined
    // A route declared without validators (the live stream: nothing to validate) never gets a tag, never a 304; its OpenAPI operation says so too.
    if (deps.routes.lookup(request.method, route)?.conditional === false) return undefined
    // A query naming a parameter the route does not take is a 400 (plugins/query-names): no tag, so never a 304.
    if (queryProblem(deps.routes, request, route) !== null) return undefined
    const version = deps.stores.forRequest(request).version
    const base = originFor(request, deps.config)
    const url = request.url
    if (route === EXPORT_PATH) {
      // The export's representation also depends on Accept: one tag per format (RFC 9110 §8.8.3),
      // none for an invalid format (that request is a 400, never a 304). Not memoised per URL.
      const f = urlFacts(url)
      const accept = request.headers.get('accept')
      const variant = exportVariant(f.params(), accept)
      if (variant === undefined) return undefined
      return Object.freeze({ etag: entityTag(version, base, f.getKey() + exportTagSuffix(variant, negotiateMediaType(accept))), 'cache-control': cacheControlFor(route) })
    }
    const m = memo.get(url)
    if (m !== undefined && m.version === version && m.base === base && m.route === route) return m.headers
    // Shared by every request of this URL: the context copies before it would add to it.
    const headers = Object.freeze({ etag: entityTag(version, base, urlFacts(url).getKey()), 'cache-control': cacheControlFor(route) })
    if (url.length <= MEMO_MAX_URL) {
      if (memo.size >= MEMO_MAX) memo.clear()
      memo.set(url, { version, base, route, headers })
    }
    return headers
  }

  type Ctx = { request: Request; route: string; set: { headers: Record<string, unknown> } }
  /**
   * 'tag': a listed tag matched (304 now); 'star': `*` (decided after the handler); undefined:
   * answer normally. A conditional request's route is noted for the edge (src/http/early-answers.ts),
   * so its next revalidation can be answered there.
   */
  const conditional = (ctx: RequestContext, request: Request, route: string, etag: string) => {
    const inm = ctx.ifNoneMatch
    if (inm === null) return undefined
    deps.early?.noteRoute(request.method, request.url, route)
    return ifNoneMatch(inm, etag)
  }

  type Figures = RateLimitFields
  /** The current figures a 304 carries: peeked, never counted (a revalidation is free). */
  const notModifiedFigures = (ctx: RequestContext): Figures | Promise<Figures> => {
    const record = ctx.key!
    const now = clock()
    const limits = effectiveLimits(record, deps.config)
    const figures = (u: { hourCount: number; dayCount: number }) => rateLimitHeaders(limits, u.hourCount, now, u.dayCount)
    const usage = deps.limits.peek(record.id, now)
    return usage instanceof Promise ? usage.then(figures) : figures(usage)
  }

  // At the edge, after the auth gate found the key: the same validators and condition; only a
  // listed tag that matches is answered there (a 304 with the current, uncounted figures).
  deps.early?.addGate((ctx, request, route) => {
    const v = validators(ctx, request, route)
    if (!v) return 'pipeline'
    const inm = ctx.ifNoneMatch
    if (inm === null || ifNoneMatch(inm, v.etag!) !== 'tag') return 'pipeline'
    const f = notModifiedFigures(ctx)
    return f instanceof Promise ? f.then((l) => notModifiedResponse(ctx, v, l)) : notModifiedResponse(ctx, v, f)
  })

  /** The gate in the pipeline: validators on the answer, and a 304 when a listed tag matches. */
  const gate = ({ request, route, set }: Ctx) => {
    const ctx = contextOf(request)
    const v = validators(ctx, request, route)
    if (!v) return
    ctx.addHeaders('success', v)
    const c = conditional(ctx, request, route, v.etag!)
    if (c === 'star') return void (ctx.star = true)
    if (c !== 'tag') return
    const f = notModifiedFigures(ctx)
    return f instanceof Promise ? f.then((l) => notModified(ctx, set, v, l)) : notModified(ctx, set, v, f)
  }

  const plugin = new Elysia({ name: 'etag' })
  // A transform hook may end the request by returning status(...): Elysia's compose maps an
  // ElysiaCustomStatusResponse from transform into the answer, although its types say void.
  // With memory counters the peek is synchronous and the hook is declared so (src/http/sync-hook.ts).
  if (deps.limits.kind === 'memory') plugin.onTransform({ as: 'global' }, syncHook(gate) as never)
  else plugin.onTransform({ as: 'global' }, (async ({ request, route, set }: Ctx) => gate({ request, route, set })) as never)
  return plugin
}

const NOT_MODIFIED_VARY = Object.freeze({ vary: 'Accept, Accept-Encoding' })

/** The header set of a 304 for one set of validators (src/http/header-set.ts): validators and Vary fixed, the figures and the request id filled per answer. */
const notModifiedSets = new WeakMap<object, HeaderSet>()
const NOT_MODIFIED_SLOTS = [...RATE_LIMIT_FIELD_NAMES, 'x-request-id']

/** The same 304 as notModified() below, built at the edge. */
function notModifiedResponse(ctx: RequestContext, validators: Readonly<Record<string, string>>, limits: RateLimitFields): Response {
  let t = notModifiedSets.get(validators)
  if (t === undefined) notModifiedSets.set(validators, (t = new HeaderSet({ ...validators, ...NOT_MODIFIED_VARY }, NOT_MODIFIED_SLOTS)))
  ctx.idSent = true
  return t.response(null, 304, limits, ctx.id)
}

/**
 * RFC 9110 §15.4.5: 304 has no body and carries the ETag, Cache-Control and Vary a 200 would,
 * plus the X-RateLimit-* figures (a 304 is not counted: they are the current ones). Returned from
 * the transform hook as Elysia's status(), with the headers on `set`, so Elysia ends the request.
 */
function notModified(ctx: RequestContext, set: { headers: Record<string, unknown> }, validators: Readonly<Record<string, string>>, limits: Record<string, string>) {
  Object.assign(set.headers, validators, NOT_MODIFIED_VARY, limits)
  ctx.stampId(set.headers)
  ctx.noteBody(0)
  return status(304, '')
}
