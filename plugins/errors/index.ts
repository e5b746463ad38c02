import { Elysia } from 'elysia'
import type { AppDeps } from '../../src/app-deps'
import { ProblemError } from '../../src/http/problems'
import { answered } from '../content-type/answer-state'
import { renderProblem } from './render-problem'
import { RouteTable } from './route-table'
import { methodNotAllowed, toProblem } from './to-problem'
import { syncHook } from '../../src/http/sync-hook'
import { urlFacts } from '../../src/http/url-facts'
import { isV1Path } from '../../src/v1/v1-paths'

/**
 * Renders every error once, as a problem document: ProblemErrors thrown anywhere, and Elysia's
 * own validation (-> 400 naming every bad parameter), parse (bad JSON -> 400), not-found (404, or
 * 405 with Allow when the path has other methods) errors. Anything else is a 500 with a generic
 * detail and a request id; the error itself is logged with that id and never leaves the server.
 * Mounted first: Elysia applies a global onError only to routes added after it.
 */
export function errorsPlugin(deps: AppDeps, opts: { routes?: RouteTable } = {}) {
  const table = opts.routes ?? new RouteTable()
  // Synchronous: declared so (src/http/sync-hook.ts), or every route handler would be async.
  const render = syncHook(({ code, error, request, set }: { code: unknown; error: unknown; request: Request; set: { headers: unknown } }) => {
    let { problem, internal } = toProblem({ code, error, request }, table)
    if (internal !== undefined) {
      const requestId = crypto.randomUUID()
      const e = internal as { message?: unknown; stack?: unknown }
      deps.log.log('error', 'request.failed', {
        request_id: requestId,
        method: request.method,
        path: new URL(request.url).pathname,
        code: typeof code === 'string' ? code : undefined,
        error: typeof e?.message === 'string' ? e.message : String(internal),
        stack: typeof e?.stack === 'string' ? e.stack : undefined,
      })
      problem = new ProblemError('internal', `The server failed to answer this request. If it persists, report request id ${requestId}.`, {
        headers: { 'x-request-id': requestId },
      })
    }
    // Validators and cache rules belong to successful answers only (a handler may have set them).
    const h = set.headers as Record<string, unknown>
    delete h['etag']
    delete h['cache-control']
    delete h['content-type']
    return renderProblem(problem, request.headers.get('accept'), answered(request)?.always, isV1Path(urlFacts(request.url).path))
  })
  return new Elysia({ name: 'errors' }).onError({ as: 'global' }, render)
}

/**
 * 405 before routing for a path that is exactly a route of other methods only: Elysia would
 * otherwise send `GET /api/v2/photos/batch` (a POST route) to `GET /api/v2/photos/:id` with
 * id "batch". Mounted after rate limiting, so it is an answered (counted) keyed call.
 */
export function methodCheckPlugin(_deps: AppDeps, opts: { routes: RouteTable }) {
  const table = opts.routes
  // Memoised per URL and route generation: staticMethodsAt builds, filters and sorts arrays,
  // which every request paid for (profile of app.handle, issue 5).
  const SLOT = Symbol('method-check')
  const methodsOf = (url: string): string[] => {
    const f = urlFacts(url)
    const generation = table.generation()
    const m = f.slots.get(SLOT) as { generation: number; methods: string[] } | undefined
    if (m !== undefined && m.generation === generation) return m.methods
    const methods = table.staticMethodsAt(f.path)
    f.slots.set(SLOT, { generation, methods })
    return methods
  }
  return new Elysia({ name: 'method-check' }).onRequest(({ request }) => {
    const methods = methodsOf(request.url)
    if (methods.length === 0 || methods.includes(request.method)) return
    if (request.method === 'HEAD' && methods.includes('GET')) return
    throw methodNotAllowed(request, methods)
  })
}
