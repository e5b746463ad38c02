import { Elysia } from 'elysia'
import type { AppDeps, PluginDeps } from '../../src/app-deps'
import { ProblemError } from '../../src/http/problems'
import { contextOf } from '../../src/http/request-context'
import { MISSING_KEY_DETAIL } from '../../src/keys/authenticate'
import { renderProblem } from './render-problem'
import { RouteTable } from './route-table'
import { methodNotAllowed, notFoundOrMethod, toProblem } from './to-problem'
import { syncHook } from '../../src/http/sync-hook'
import { validAuthority } from '../../src/http/host-check'
import { isV1Path } from '../../src/v1/v1-paths'

/**
 * Renders every error once, as a problem document: ProblemErrors thrown anywhere, and Elysia's
 * own validation (-> 400 naming every bad parameter), parse (bad JSON -> 400), not-found (404, or
 * 405 with Allow when the path has other methods) errors. Anything else is a 500 with a generic
 * detail and a request id; the error itself is logged with that id and never leaves the server.
 * Mounted first: Elysia applies a global onError only to routes added after it.
 *
 * The renderer cannot throw: whatever goes wrong while rendering (a malformed request URL, a
 * broken header) ends in a fixed 500 problem, never in the server's own error page.
 */
export { catchAllPlugin } from './catch-all'

export function errorsPlugin(deps: AppDeps, opts: { routes?: RouteTable; docs?: PluginDeps['routes'] } = {}) {
  const table = opts.routes ?? new RouteTable()
  // Synchronous: declared so (src/http/sync-hook.ts), or every route handler would be async.
  const render = syncHook(({ code, error, request, set, route }: { code: unknown; error: unknown; request: Request; set: { headers: unknown }; route?: string }) => {
    try {
      const ctx = contextOf(request)
      let { problem, internal } = code === 'NOT_FOUND' && ctx.key === undefined
        ? { problem: new ProblemError('unauthorized', MISSING_KEY_DETAIL), internal: undefined } // no route matched: fail closed
        : toProblem({ code, error, request }, table, opts.docs)
      if (internal !== undefined) {
        const requestId = ctx.id
        const e = internal as { message?: unknown; stack?: unknown }
        deps.log.log('error', 'request.failed', {
          request_id: requestId,
          method: request.method,
          path: safePath(request.url),
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
      // v1's error shape for the v1 routes, decided by the route that matched (not the URL).
      const res = renderProblem(problem, request.headers.get('accept'), ctx.answered().always, typeof route === 'string' && isV1Path(route), ctx.id, (text) => ctx.noteText(text))
      ctx.idSent = true
      return res
    } catch (e) {
      try {
        deps.log.log('error', 'request.render-failed', { error: e instanceof Error ? e.message : 'unknown' })
      } catch {
        /* the log itself failed: the answer below still goes out */
      }
      return lastResortResponse()
    }
  })
  return new Elysia({ name: 'errors' }).onError({ as: 'global' }, render)
}

/** The answer when rendering a problem failed: fixed text, nothing from the request or the error. */
export function lastResortResponse(): Response {
  return new Response('{"type":"/errors/internal","title":"Internal Server Error","status":500,"detail":"The server failed to answer this request."}', {
    status: 500,
    headers: { 'content-type': 'application/problem+json' },
  })
}

/** The path of a request URL for the log, without new URL() (which throws on a malformed URL), at most 200 characters. */
function safePath(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start < 0) return '/'
  const q = url.indexOf('?', start)
  return (q < 0 ? url.slice(start) : url.slice(start, q)).slice(0, 200)
}

/**
 * 405 for a path that is exactly a route of other methods only: Elysia routes
 * `GET /api/v2/photos/batch` (a POST route) to `GET /api/v2/photos/:id` with id "batch". The path
 * is rebuilt from the route Elysia matched and its params, not parsed again from the URL. At
 * transform after rate limiting, so it is an answered (counted) keyed call.
 */
export function methodCheckPlugin(_deps: AppDeps, opts: { routes: RouteTable }) {
  const table = opts.routes
  const check = syncHook(({ request, route, params }: { request: Request; route: string; params: Record<string, string | undefined> | undefined }) => {
    if (route === undefined || !route.includes(':')) return
    const path = route.replace(/:([A-Za-z0-9_]+)\??/g, (_, name: string) => params?.[name] ?? '')
    const methods = table.staticMethodsAt(path)
    if (methods.length === 0 || methods.includes(request.method)) return
    if (request.method === 'HEAD' && methods.includes('GET')) return
    throw methodNotAllowed(request.method, path, methods)
  })
  return new Elysia({ name: 'method-check' }).onTransform({ as: 'global' }, check)
}

/**
 * 400 before routing for a request whose Host (as Bun put it in request.url) is not a valid
 * host (src/http/host-check.ts): no route, key check or cache runs on a URL that does not parse.
 * Needs no key: nothing of the service is read to answer it.
 */
export function hostCheckPlugin(_deps: AppDeps) {
  const check = syncHook(({ request }: { request: Request }) => {
    if (!validAuthority(request.url)) throw new ProblemError('validation', 'The Host header is not a valid host name (RFC 9110 §7.2).', { errors: [{ parameter: 'Host', message: 'must be a host name or IP address, with an optional port' }] })
  })
  return new Elysia({ name: 'host-check' }).onRequest(check)
}
