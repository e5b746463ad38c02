import type { TObject, TSchema } from '@sinclair/typebox'
import type { Store } from '../store/store'
import { isApiPath, isV2Path } from './api-paths'

/**
 * The route declarations of one app: what each route is (the OpenAPI document in plugins/docs is
 * generated from them, with the same TypeBox schemas the route validates with) and whether it
 * needs an API key. Per app, never process-global: two apps in one process (tests, workers)
 * cannot see or change each other's routes.
 *
 * The auth gate decides from the declaration of the route Elysia actually matched (its `route`
 * pattern, e.g. `/api/v2/photos/:id`), never from a second parse of the URL: a route that is
 * not declared, or a request that matched no declared route, needs a key (fail closed).
 */
export interface RouteDoc {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS'
  /** Elysia-style path, e.g. `/api/v2/photos/:id` (rendered as `{id}` in OpenAPI): exactly the path given to `.get()` etc. */
  path: string
  summary: string
  description?: string
  query?: TObject
  params?: TObject
  body?: TSchema
  /** `mediaType`: the one media type of a non-JSON answer (the docs page's text/html). */
  /** `mediaTypes`: several non-JSON media types of one answer, negotiated (the export's formats). */
  /** `headers`: headers of that answer beyond the ones every keyed answer has, as OpenAPI header objects (a same-named shared one is replaced). */
  responses: Record<number, { description: string; schema?: TSchema; mediaType?: string; mediaTypes?: string[]; headers?: Record<string, { description: string; required?: boolean; schema: Record<string, unknown> }> }>
  tags?: string[]
  /** The OpenAPI operationId when the one made from method and path would repeat another's. */
  operationId?: string
  /**
   * false for a keyed GET whose 200 carries no ETag and which a conditional request never makes a
   * 304 (the live photo stream): its OpenAPI operation declares neither. Default true.
   */
  conditional?: boolean
  /** false for routes that need no X-API-Key (health, the OpenAPI document and its page). Default true. */
  keyed?: boolean
  /**
   * Without X-API-Key, the `feed_token` query parameter (a token the dashboard makes, standing for
   * the key) is read instead: the feed routes, whose clients cannot send headers.
   */
  feedToken?: boolean
  /** The key may also come as the `api_key` query parameter (the v1 compatibility routes only). */
  keyInQuery?: boolean
  /**
   * Query names the route accepts without documenting them, and ignores (the export ignores the
   * list's paging). On /api/v2 any name neither here nor in `query` is a 400 (src/http/query-names.ts).
   */
  ignoresQuery?: readonly string[]
  /** Declared for the gates but left out of the OpenAPI document: an alias of a documented route (the v1 layer's second prefix) or a page of the site (the dashboard). */
  hidden?: boolean
}

/**
 * A route's JSON answer computed in process, from what its HTTP handler answers from: the pinned
 * snapshot, the query, the absolute origin, the path's one parameter as text ('' on a path
 * without one) and, for a POST, the parsed JSON body. Throws the route's ProblemError for bad
 * parameters and unknown ids. meta.timestamp is left as its slot (src/query/render/envelope.ts). Callers
 * inside the app (the MCP tools) answer through it instead of a second pass through the HTTP
 * pipeline, so the one request they serve is the one counted.
 */
export type RouteAnswer = (store: Store, query: URLSearchParams, base: string, id: string, body?: unknown) => string

/** The pattern of the app's catch-all route (every path no other route takes), as Elysia reports it in `route`. */
export const CATCH_ALL_ROUTE = '/*'

export class RouteDocs {
  readonly #byRoute = new Map<string, RouteDoc>()
  /** The same declarations by method, then path: looked up on every request with strings the request already holds (no key built per lookup). */
  readonly #byMethod = new Map<string, Map<string, RouteDoc>>()
  readonly #tagNotes = new Map<string, string>()
  /** The query names each /api/v2 route takes, made once when it is declared. */
  readonly #takes = new WeakMap<RouteDoc, ReadonlySet<string>>()
  /** The in-process answers of the routes that have one, by method + ' ' + path. */
  readonly #answers = new Map<string, RouteAnswer>()

  /** A description for an OpenAPI tag of this app (shown with the tag's operations). */
  describeTag(name: string, description: string): void {
    this.#tagNotes.set(name, description)
  }

  tagDescription(name: string): string | undefined {
    return this.#tagNotes.get(name)
  }

  /** Declare (or re-declare: the same method + path replaces) one route of this app, with its in-process answer when it has one. */
  register(doc: RouteDoc, answer?: RouteAnswer): void {
    this.#byRoute.set(doc.method + ' ' + doc.path, doc)
    if (answer !== undefined) this.#answers.set(doc.method + ' ' + doc.path, answer)
    else this.#answers.delete(doc.method + ' ' + doc.path)
    let paths = this.#byMethod.get(doc.method)
    if (paths === undefined) this.#byMethod.set(doc.method, (paths = new Map()))
    paths.set(doc.path, doc)
    if (isV2Path(doc.path)) this.#takes.set(doc, new Set([...Object.keys(doc.query?.properties ?? {}), ...(doc.ignoresQuery ?? [])]))
  }

  /**
   * The query names the route at `pattern` takes, when it refuses every other name (the /api/v2
   * routes: decisions.md, Filters); undefined when it ignores names it does not know (v1, the
   * site's pages) or is not declared.
   */
  takes(method: string, pattern: string | undefined): ReadonlySet<string> | undefined {
    if (pattern === undefined) return undefined
    const doc = this.lookup(method, pattern)
    return doc === undefined ? undefined : this.#takes.get(doc)
  }

  /** The declaration of `method` at the Elysia route pattern `path`; HEAD falls back to GET (RFC 9110 §9.3.2). */
  lookup(method: string, path: string): RouteDoc | undefined {
    return this.#byMethod.get(method)?.get(path) ?? (method === 'HEAD' ? this.#byMethod.get('GET')?.get(path) : undefined)
  }

  /** The in-process answer of the route `method` at `path` (an Elysia pattern), when it declares one. */
  answerOf(method: string, path: string): RouteAnswer | undefined {
    return this.#answers.get(method + ' ' + path)
  }

  /**
   * Whether a request that Elysia routed to `pattern` needs a key. Only a route declared
   * `keyed: false` is open; anything else (undeclared, no route) needs one. The catch-all (a path
   * no route takes) needs one when its `path` (the request's, as routed) may be meant for the API
   * (src/http/api-paths.ts), so the API keeps failing closed; elsewhere it is a plain 404.
   */
  needsKey(method: string, pattern: string | undefined, path?: string): boolean {
    if (pattern === undefined) return true
    if (pattern === CATCH_ALL_ROUTE) return path === undefined || isApiPath(path)
    return this.lookup(method, pattern)?.keyed !== false
  }

  /** Every declared route but the hidden ones: what the OpenAPI document and the docs page show. */
  documented(): RouteDoc[] {
    return this.all().filter((d) => !d.hidden)
  }

  /** Every declared route, sorted by path then method. */
  all(): RouteDoc[] {
    return [...this.#byRoute.values()].sort((a, b) => (a.path === b.path ? a.method.localeCompare(b.method) : a.path.localeCompare(b.path)))
  }

  /** Changes whenever a declaration is added (memos of generated documents compare it). */
  get size(): number {
    return this.#byRoute.size
  }
}
