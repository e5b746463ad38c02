import type { ProblemError } from './problems'
import { contextOf } from './request-context'
import type { RouteDocs } from './route-docs'
import { urlFacts } from './url-facts'

/**
 * Whether this request's query names a parameter its route does not take (on /api/v2): the 400,
 * or null. Decided once per request, from the route Elysia matched and the URL's own facts, and
 * kept in the request's context: the ETag gate (no tag, so no 304, for such a URL, at the edge
 * or in the pipeline) and the gate that refuses it (plugins/query-names, after the request is
 * counted) read the same verdict.
 */
export function queryProblem(routes: RouteDocs, request: Request, route: string | undefined): ProblemError | null {
  const ctx = contextOf(request)
  if (ctx.queryProblem !== undefined) return ctx.queryProblem
  const takes = routes.takes(request.method, route)
  return (ctx.queryProblem = takes === undefined ? null : urlFacts(request.url).queryProblem(takes))
}
