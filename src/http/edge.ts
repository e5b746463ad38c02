import type { AppDeps } from '../app-deps'
import type { RouteTable } from '../../plugins/errors/route-table'
import { keyOf } from '../../plugins/auth/key-of'
import { corsHeaders, corsPolicy, isPreflight, preflightResponse } from '../../plugins/cors/cors-policy'
import { accessLine, shouldLog, unknownKeyLabel } from '../../plugins/request-log/access-line'
import { bodyBytesOf } from '../../plugins/request-log/body-bytes'
import { requestIdOf } from '../../plugins/request-log/request-id'
import { ServiceMetrics } from '../../plugins/metrics/service-metrics'
import { urlFacts } from './url-facts'

type Fetch = (request: Request) => Response | Promise<Response>

/**
 * The edge of the app, around Elysia's whole pipeline (so it sees every answer: 304s and 429s
 * made in onRequest, errors, preflights): CORS preflight before anything else (no key, not
 * counted: decisions.md), then on the way out the request id, the CORS headers, one access-log
 * line and the metrics. Installed by replacing `app.fetch`, which both `app.handle` and the
 * server call. /metrics on the main port answers only with `Authorization: Bearer METRICS_TOKEN`.
 */
export function installEdge(app: { fetch: Fetch }, deps: AppDeps, routes: RouteTable): ServiceMetrics {
  // Elysia composes its handler on the first read of `app.fetch` (a prototype getter that then
  // caches it on the instance); read it at the first request, so routes added until then count.
  let getter: (() => Fetch) | undefined
  for (let o = Object.getPrototypeOf(app); o && !getter; o = Object.getPrototypeOf(o)) getter = Object.getOwnPropertyDescriptor(o, 'fetch')?.get
  let composed: Fetch | undefined
  const inner = (request: Request) => {
    if (composed === undefined) {
      composed = getter!.call(app)
      Object.defineProperty(app, 'fetch', { value: edge, configurable: true, writable: true })
    }
    return composed(request)
  }
  const cors = corsPolicy(deps.config.corsOrigins)
  const metrics = new ServiceMetrics(deps)
  const logOn = deps.config.accessLog !== false
  const sample = deps.config.accessLogSample ?? 1
  const token = deps.config.metricsToken
  const write = deps.accessLog ?? ((line: string) => void process.stdout.write(line))
  const SLOT = Symbol('edge.route')

  const routeOf = (request: Request): string => {
    const f = urlFacts(request.url)
    const gen = routes.generation()
    const memo = f.slots.get(SLOT) as { gen: number; method: string; route: string } | undefined
    if (memo && memo.gen === gen && memo.method === request.method) return memo.route
    const m = routes.match(request.method === 'HEAD' ? 'GET' : request.method, f.path)
    const route = m ? m.pattern : 'unmatched'
    f.slots.set(SLOT, { gen, method: request.method, route })
    return route
  }

  const finish = (request: Request, response: Response, id: string, started: number, route: string | undefined): Response => {
    let out = response
    const set = (k: string, v: string) => {
      try {
        out.headers.set(k, v)
      } catch {
        out = new Response(out.body, out) // immutable headers: copy once
        out.headers.set(k, v)
      }
    }
    set('x-request-id', id)
    if (cors.enabled) {
      const allowed = cors.allow(request.headers.get('origin'))
      if (allowed) {
        for (const [k, v] of Object.entries(corsHeaders(cors, allowed))) {
          if (k === 'vary') {
            const cur = out.headers.get('vary')
            set('vary', cur ? cur + ', ' + v : v)
          } else set(k, v)
        }
      }
    }
    const ms = performance.now() - started
    const r = route ?? routeOf(request)
    const record = keyOf(request)
    metrics.observe(r, request.method, out.status, ms / 1000, record !== undefined)
    if (logOn && shouldLog(out.status, sample)) {
      const body = bodyBytesOf(request)
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
          bytes: body ? body.bytes : cl !== null ? Number(cl) : out.body === null ? 0 : null,
          key: record ? `key:${record.id}` : given ? unknownKeyLabel(given) : null,
          encoding: body?.coding,
        }),
      )
    }
    return out
  }

  const edge: Fetch = (request) => {
    const started = performance.now()
    const id = requestIdOf(request)
    if (isPreflight(request)) return finish(request, preflightResponse(cors, request), id, started, 'preflight')
    if (token !== undefined && request.method === 'GET' && urlFacts(request.url).path === '/metrics') {
      const ok = request.headers.get('authorization') === 'Bearer ' + token
      const res = ok
        ? new Response(metrics.render(), { headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'cache-control': 'no-store' } })
        : new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer realm="metrics"' } })
      return finish(request, res, id, started, '/metrics')
    }
    const r = inner(request)
    return r instanceof Promise ? r.then((res) => finish(request, res, id, started, undefined)) : finish(request, r, id, started, undefined)
  }
  Object.defineProperty(app, 'fetch', { value: edge, configurable: true, writable: true })
  return metrics
}
