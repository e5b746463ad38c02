import type { PluginDeps } from '../app-deps'
import type { Store } from '../store/store'
import type { Render } from './cached-answer'
import type { RouteDoc } from './route-docs'
import { paramOf, route, routesPlugin } from './route'

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
 * plugins/errors and are never cached. The GET-only form of ./route.ts.
 */
export function resourcePlugin(deps: PluginDeps, spec: ResourceSpec) {
  return routesPlugin(deps, spec.name, spec.tag, spec.routes.map(({ doc, render }) => route({ method: 'GET', ...doc, render })))
}

export { paramOf }
