import { Elysia } from 'elysia'
import type { PluginDeps } from '../app-deps'
import type { Store } from '../store/store'
import { cachedAnswer, type Render } from './cached-answer'
import { JsonBody } from './json-body'
import { pathParam } from './path-param'
import type { RouteAnswer, RouteDoc } from './route-docs'

/** What a route's handler is given: the fields of Elysia's context the app's handlers read. */
export interface RouteContext {
  request: Request
  /** Elysia's path parameters: a segment that is not valid percent-encoding arrives as null despite the type. */
  params: Record<string, string>
  query: Record<string, string | undefined>
  server: { requestIP(r: Request): { address: string } | null } | null | undefined
}

/**
 * One route of the app: its declaration (method, path, words, schemas, whether it is keyed: the
 * OpenAPI document, the docs page, the auth gate and the parameter-name gate read it) and how it
 * answers, in one object. Exactly one of `handle` and `render`:
 *  - `handle`: any Elysia handler, handed to Elysia as written (Elysia guesses sync/async from its
 *    source text, src/http/sync-hook.ts: a wrapper would read as async and await every request);
 *  - `render`: a JSON answer through the shared response cache (src/http/cached-answer.ts), given
 *    the pinned snapshot, the query, the absolute origin and the path's one parameter as text
 *    ('' on a path without one, and for a segment that is not valid percent-encoding).
 */
export interface Route extends Omit<RouteDoc, 'tags'> {
  tags?: string[]
  handle?: (context: RouteContext) => unknown
  render?: (store: Store, query: URLSearchParams, base: string, id: string) => string
  /**
   * The in-process answer of a `handle` route (./route-docs.ts, RouteAnswer): what the app's own
   * callers (the MCP tools) answer through; the handler should answer through it too. A `render`
   * route's in-process answer is its `render`.
   */
  answer?: RouteAnswer
  /** Elysia options that are not schemas: `parse: 'none'` for a route that reads its body itself. */
  hook?: { parse?: 'none' }
  /** More paths answering the same way, declared hidden (the v1 layer's second prefix). */
  aliases?: string[]
}

/** A route declaration (identity: the type, and one word to grep for). */
export const route = <R extends Route>(r: R): R => r

/**
 * A plugin from its routes: each route (and each alias) is declared in the app's RouteDocs and
 * mounted on Elysia in the same loop, so nothing is declared and not mounted, or mounted and not
 * declared (test/security/declared-routes.test.ts holds the assembled app to it). `tag` is the OpenAPI
 * tag of the routes that name none.
 */
export function routesPlugin(deps: PluginDeps, name: string, tag: string, list: Route[]) {
  const app = new Elysia({ name })
  let answer: ReturnType<typeof cachedAnswer> | undefined
  for (const r of list) {
    const { handle, render, answer: ownAnswer, hook, aliases, ...doc } = r
    if ((handle === undefined) === (render === undefined)) throw new Error(`route ${r.method} ${r.path}: give exactly one of handle and render`)
    if (render !== undefined && ownAnswer !== undefined) throw new Error(`route ${r.method} ${r.path}: a render route answers in process through its render`)
    const paths = [r.path, ...(aliases ?? [])]
    paths.forEach((path, i) => {
      deps.routes.register({ ...doc, path, tags: doc.tags ?? [tag], ...(i > 0 || doc.hidden ? { hidden: true } : {}) }, render ?? ownAnswer)
      const handler = handle ?? renderHandler((answer ??= cachedAnswer(deps)), render!, paramOf(path))
      app.route(r.method, path, handler as never, hook as never)
    })
  }
  return app
}

/**
 * The handler of a `render` route. Written `=> new JsonBody(...)`: Elysia reads these as
 * synchronous (src/http/sync-hook.ts).
 */
function renderHandler(answer: ReturnType<typeof cachedAnswer>, render: NonNullable<Route['render']>, param: string | undefined) {
  if (param === undefined) {
    const list: Render = (store, query, base) => render(store, query, base, '')
    return ({ request }: RouteContext) => new JsonBody(answer(request, list))
  }
  return ({ request, params }: RouteContext) => new JsonBody(answer(request, withId(render, pathParam((params as Record<string, unknown>)[param]))))
}

function withId(render: NonNullable<Route['render']>, id: string): Render {
  return (store, query, base) => render(store, query, base, id)
}

/** The name of the path's one parameter (`:slug` -> slug), or undefined for a path without. */
export function paramOf(path: string): string | undefined {
  const names = [...path.matchAll(/\/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!)
  if (names.length > 1) throw new Error(`a rendered route has at most one path parameter: ${path}`)
  return names[0]
}
