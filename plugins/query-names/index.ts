import { Elysia } from 'elysia'
import type { PluginDeps } from '../../src/app-deps'
import { queryProblem } from '../../src/http/query-problem'
import { syncHook } from '../../src/http/sync-hook'

/**
 * 400 for a query parameter name the matched /api/v2 route does not take, naming it with the
 * closest name it takes (decisions.md, Filters: `rover=` must not silently answer every photo).
 * At transform after the rate limit, so it is an answered (counted) keyed call like any 400, and
 * before the handler reads a parameter. The verdict is the one the ETag gate already read for
 * this request (src/http/query-problem.ts): such a URL never got a tag, so never a 304, at the
 * edge or here, and never reaches the response cache.
 */
export function queryNamesPlugin(deps: PluginDeps) {
  const check = syncHook(({ request, route }: { request: Request; route: string }) => {
    const problem = queryProblem(deps.routes, request, route)
    if (problem !== null) throw problem
  })
  return new Elysia({ name: 'query-names' }).onTransform({ as: 'global' }, check)
}
