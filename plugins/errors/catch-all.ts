import { Elysia } from 'elysia'
import type { AppDeps } from '../../src/app-deps'
import type { RouteTable } from './route-table'
import { notFoundOrMethod } from './to-problem'
import { CATCH_ALL_ROUTE } from '../../src/http/route-docs'
import { isApiPath } from '../../src/http/api-paths'
import { urlFacts } from '../../src/http/url-facts'
import { notFoundPage, prefersHtml } from './not-found-page'

/**
 * The route of every path no other route takes (the app's last route). A path that may be meant
 * for the API is keyed like the API (plugins/auth, RouteDocs.needsKey), so an unknown API path
 * never looks public (401 without a key); any other path needs no key. It answers 404, or 405
 * with Allow when the path has routes of other methods; a browser asking for a page outside the
 * API (`/nope`, `/dashbord`) gets the 404 as an HTML page with links on. It reads no body.
 */
export function catchAllPlugin(_deps: AppDeps, opts: { routes: RouteTable }) {
  const table = opts.routes
  const page = notFoundPage()
  return new Elysia({ name: 'catch-all' }).all(
    CATCH_ALL_ROUTE,
    ({ request, params }) => {
      const problem = notFoundOrMethod(request.method, '/' + ((params as Record<string, string>)['*'] ?? ''), table)
      // The same path and test as the auth gate's (urlFacts, isApiPath): a page only where no key was asked for.
      const html = problem.status === 404 && (request.method === 'GET' || request.method === 'HEAD') && !isApiPath(urlFacts(request.url).path)
      if (html && prefersHtml(request.headers.get('accept'))) return new Response(page, { status: 404, headers: { 'content-type': 'text/html; charset=utf-8' } })
      throw problem
    },
    { parse: 'none' },
  )
}

