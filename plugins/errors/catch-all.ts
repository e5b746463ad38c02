import { Elysia } from 'elysia'
import type { AppDeps } from '../../src/app-deps'
import type { RouteTable } from './route-table'
import { notFoundOrMethod } from './to-problem'
import { CATCH_ALL_ROUTE } from '../../src/http/route-docs'

/**
 * The route of every path no other route takes (the app's last route). It is keyed like the rest
 * of the app, so an unknown path never looks public (401 without a key), and answers 404, or 405
 * with Allow when the path has routes of other methods. It reads no body.
 */
export function catchAllPlugin(_deps: AppDeps, opts: { routes: RouteTable }) {
  const table = opts.routes
  return new Elysia({ name: 'catch-all' }).all(
    CATCH_ALL_ROUTE,
    ({ request, params }) => {
      throw notFoundOrMethod(request.method, '/' + ((params as Record<string, string>)['*'] ?? ''), table)
    },
    { parse: 'none' },
  )
}

