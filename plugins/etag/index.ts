import { Elysia } from 'elysia'
import type { AppDeps } from '../../src/app-deps'
import { origin } from '../../src/http/links'
import { requestKey } from '../../src/http/request-key'
import type { KeyRecord } from '../../src/keys/key-store'
import { keyOf } from '../auth/key-of'
import { pathOf } from '../auth/path-of'
import { addHeaders } from '../content-type/answer-state'
import { RouteTable } from '../errors/route-table'
import { effectiveLimits, rateLimitHeaders } from '../rate-limit/limit-rules'
import { cacheControlFor } from './cache-policy'
import { entityTag, ifNoneMatchMatches } from './entity-tag'

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

  /** The validators of a keyed GET resource, or undefined when the request is not one. */
  const validators = (request: Request): { record: KeyRecord; headers: Record<string, string> } | undefined => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return undefined
    const record = keyOf(request)
    if (!record) return undefined
    const path = pathOf(request.url)
    const match = table.match('GET', path)
    if (!match) return undefined
    const q = request.url.indexOf('?')
    const params = new URLSearchParams(q < 0 ? '' : request.url.slice(q + 1))
    const store = deps.stores.forRequest(request)
    const tag = entityTag(store.version, origin(request, deps.config), requestKey('GET', path, params))
    return { record, headers: { etag: tag, 'cache-control': cacheControlFor(match.pattern) } }
  }

  const plugin = new Elysia({ name: 'etag' })
  if (deps.limits.kind === 'memory') {
    plugin.onRequest(({ request }) => {
      const v = validators(request)
      if (!v) return
      if (!matches(request, v.headers.etag!)) return void addHeaders(request, 'success', v.headers)
      const now = clock()
      const usage = deps.limits.peek(v.record.id, now) as { hourCount: number }
      return notModified(v.headers, rateLimitHeaders(effectiveLimits(v.record, deps.config), usage.hourCount, now))
    })
  } else {
    plugin.onRequest(async ({ request }) => {
      const v = validators(request)
      if (!v) return
      if (!matches(request, v.headers.etag!)) return void addHeaders(request, 'success', v.headers)
      const now = clock()
      const usage = await deps.limits.peek(v.record.id, now)
      return notModified(v.headers, rateLimitHeaders(effectiveLimits(v.record, deps.config), usage.hourCount, now))
    })
  }
  return plugin
}

function matches(request: Request, tag: string): boolean {
  const inm = request.headers.get('if-none-match')
  return inm !== null && ifNoneMatchMatches(inm, tag)
}

/** RFC 9110 §15.4.5: 304 has no body and carries the ETag, Cache-Control and Vary a 200 would. */
function notModified(validators: Record<string, string>, limitHeaders: Record<string, string>): Response {
  return new Response(null, { status: 304, headers: { ...validators, vary: 'Accept', ...limitHeaders } })
}
