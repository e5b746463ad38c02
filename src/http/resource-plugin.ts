import { Elysia } from 'elysia'
import type { PluginDeps } from '../app-deps'
import type { Store } from '../store/store'
import { cachedAnswer, type Render } from './cached-answer'
import { JsonBody } from './json-body'
import { pathParam } from './path-param'
import type { RouteDoc } from './route-docs'

/**
 * One GET route of a read-only resource: its declaration and how its JSON is rendered.
 * `doc.path` is the Elysia path, with at most one parameter (`/rovers/:slug`); GET is implied.
 */
export interface ResourceRoute {
  doc: Omit<RouteDoc, 'method' | 'tags'>
  /**
   * The answer from the request's pinned snapshot, its query string and the absolute origin.
   * `id` is the path parameter as text: '' on a list route, and for a segment that is not valid
   * percent-encoding (it names nothing, so the resource answers 404).
   */
  render: (store: Store, query: URLSearchParams, base: string, id: string) => ReturnType<Render>
}

export interface ResourceSpec {
  /** The Elysia plugin name (deduplicates the plugin when used twice). */
  name: string
  /** The OpenAPI tag of every route. */
  tag: string
  routes: ResourceRoute[]
}

/**
 * A resource plugin from its declaration: each route is declared once in the app's RouteDocs
 * (from which the OpenAPI document, the docs page and the auth gate read it) and answered
 * through the shared response cache (index version + origin + canonical request key, ETag
 * downstream), so every list and by-id resource has the same pinning, caching and errors:
 * problems thrown by `render` (400 for bad parameters, 404 for unknown ids) reach
 * plugins/errors and are never cached.
 */
export function resourcePlugin(deps: PluginDeps, spec: ResourceSpec) {
  const answer = cachedAnswer(deps)
  const app = new Elysia({ name: spec.name })
  for (const { doc, render } of spec.routes) {
    deps.routes.register({ method: 'GET', ...doc, tags: [spec.tag] })
    const param = paramOf(doc.path)
    if (param === undefined) {
      const list: Render = (store, query, base) => render(store, query, base, '')
      // `=> new JsonBody(...)`: Elysia reads these as synchronous (src/http/sync-hook.ts).
      app.get(doc.path, ({ request }) => new JsonBody(answer(request, list)))
    } else {
      app.get(doc.path, ({ request, params }) => new JsonBody(answer(request, withId(render, pathParam((params as Record<string, unknown>)[param])))))
    }
  }
  return app
}

function withId(render: ResourceRoute['render'], id: string): Render {
  return (store, query, base) => render(store, query, base, id)
}

/** The name of the path's one parameter (`:slug` -> slug), or undefined for a path without. */
export function paramOf(path: string): string | undefined {
  const names = [...path.matchAll(/\/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!)
  if (names.length > 1) throw new Error(`a resource route has at most one path parameter: ${path}`)
  return names[0]
}
