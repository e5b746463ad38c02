import type { PluginDeps } from '../src/app-deps'
import { corsHeaders, corsPolicy, isPreflight, preflightResponse } from '../src/http/cors-policy'
import { accessLine, shouldLog, unknownKeyLabel } from '../src/http/access-line'
import { ServiceMetrics } from '../src/metrics/service-metrics'
import { contextOf, type RequestContext } from '../src/http/request-context'
import { urlFacts } from '../src/http/url-facts'
import { writeStdoutLine } from '../src/http/line-writer'
import { isHtml, secureHtml } from '../src/http/html-security'
import { secretEquals } from '../src/http/secret-equal'

type Fetch = (request: Request) => Response | Promise<Response>

/**
 * The edge of the app, around Elysia's whole pipeline (so it sees every answer: 304s and 429s
 * made in onRequest, errors, preflights): CORS preflight before anything else (no key, not
 * counted: decisions.md), then revalidations the gates can answer before routing
 * (./early-answers.ts), then on the way out the request id (when the renderer has not written
 * it already), the CORS headers, one access-log
 * line and the metrics, and the security headers of every HTML answer. Installed with Elysia's `wrap`, which both `app.handle` and the server's
 * native routes go through. /metrics on the main port answers only with `Authorization: Bearer METRICS_TOKEN`.
 */
export function installEdge(app: { wrap(fn: (fn: any, request: Request) => any): unknown }, deps: PluginDeps): ServiceMetrics {
  const cors = corsPolicy(deps.config.corsOrigins)
  const metrics = new ServiceMetrics(deps)
  const logOn = deps.config.accessLog !== false
  const countOn = deps.config.metrics !== false
  const sample = deps.config.accessLogSample ?? 1
  const token = deps.config.metricsToken
  const early = deps.early
  const write = deps.accessLog ?? writeStdoutLine


  const finish = (request: Request, response: Response, ctx: RequestContext, route: string | undefined): Response => {
    let out = response
    const id = ctx.id
    if (!ctx.idSent) out = withHeader(out, 'x-request-id', id)
    // Every HTML answer, whichever plugin made it: no framing, no undeclared script (src/http/html-security.ts).
    if (isHtml(out.headers.get('content-type'))) out = withHeaders(out, secureHtml)
    if (cors.enabled) {
      const allowed = cors.allow(request.headers.get('origin'))
      if (allowed) {
        for (const [k, v] of Object.entries(corsHeaders(cors, allowed))) {
          if (k === 'vary') {
            const cur = out.headers.get('vary')
            out = withHeader(out, 'vary', cur ? cur + ', ' + v : v)
          } else out = withHeader(out, k, v)
        }
      }
    }
    if (!countOn && !logOn) return out
    const ms = performance.now() - ctx.started
    const r = route ?? ctx.route ?? 'unmatched'
    const record = ctx.key
    if (countOn) metrics.observe(r, request.method, out.status, ms / 1000, record !== undefined)
    if (logOn && shouldLog(out.status, sample)) {
      const cl = out.headers.get('content-length')
      const given = request.headers.get('x-api-key')
      write(
        accessLine({
          time: Date.now(),
          id,
          method: request.method,
          route: r,
          status: out.status,
          ms,
          bytes: ctx.bodyBytes >= 0 ? ctx.bodyBytes : cl !== null ? Number(cl) : out.body === null ? 0 : null,
          key: record ? `key:${record.id}` : given ? unknownKeyLabel(given) : null,
          encoding: ctx.bodyCoding,
        }),
      )
    }
    return out
  }

  const edge = (request: Request, inner: Fetch): Response | Promise<Response> => {
    const ctx = contextOf(request)
    if (isPreflight(request)) return finish(request, preflightResponse(cors, request), ctx, 'preflight')
    if (token !== undefined && request.method === 'GET' && urlFacts(request.url).path === '/metrics') {
      const ok = secretEquals(request.headers.get('authorization'), 'Bearer ' + token)
      const res = ok
        ? new Response(metrics.render(), { headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'cache-control': 'no-store' } })
        : new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer realm="metrics"' } })
      return finish(request, res, ctx, '/metrics')
    }
    // A revalidation the gates can decide before routing (src/http/early-answers.ts). Whatever
    // goes wrong there, the pipeline answers the request as if the edge had not looked.
    if (early !== undefined && request.method === 'GET' && ctx.ifNoneMatch !== null) {
      let a: Response | Promise<Response> | undefined
      try {
        a = early.answer(ctx, request)
      } catch {
        a = undefined
      }
      if (a instanceof Promise) return a.then((res) => finish(request, res, ctx, undefined), () => pipeline(request, inner, ctx))
      if (a !== undefined) return finish(request, a, ctx, undefined)
    }
    return pipeline(request, inner, ctx)
  }
  const pipeline = (request: Request, inner: Fetch, ctx: RequestContext): Response | Promise<Response> => {
    const r = inner(request)
    return r instanceof Promise ? r.then((res) => finish(request, res, ctx, undefined)) : finish(request, r, ctx, undefined)
  }
  // Elysia applies `wrap` functions around its general handler and around each route handler
  // it gives Bun's native router, so every request passes here whichever way it was routed.
  // Elysia asks for the wrapper on every request: the last one given out answers a run of requests
  // to one route without a WeakMap lookup.
  const wrapped = new WeakMap<Fetch, Fetch>()
  let lastInner: Fetch | undefined
  let lastWrapper: Fetch | undefined
  app.wrap((fn: unknown) => {
    const inner = fn as Fetch
    if (inner === lastInner) return lastWrapper
    let w = wrapped.get(inner)
    if (w === undefined) wrapped.set(inner, (w = (request: Request) => edge(request, inner)))
    lastInner = inner
    lastWrapper = w
    return w
  })
  return metrics
}

/** `response` with `edit` applied to its headers: in place, or on a copy when they are immutable. */
function withHeaders(response: Response, edit: (h: Headers) => void): Response {
  try {
    edit(response.headers)
    return response
  } catch {
    const copy = new Response(response.body, response)
    edit(copy.headers)
    return copy
  }
}

/** `response` with the header `k` set: in place, or on a copy when its headers are immutable (a fetched Response). */
function withHeader(response: Response, k: string, v: string): Response {
  try {
    response.headers.set(k, v)
    return response
  } catch {
    const copy = new Response(response.body, response)
    copy.headers.set(k, v)
    return copy
  }
}
