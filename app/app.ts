import { Elysia } from 'elysia'
import type { AppDeps, PluginDeps } from '../src/app-deps'
import { RouteDocs } from '../src/http/route-docs'
import { EarlyAnswers } from '../src/http/early-answers'
import { catchAllPlugin, errorsPlugin, hostCheckPlugin, methodCheckPlugin } from '../plugins/errors'
import { RouteTable } from '../plugins/errors/route-table'
import { bodyLimitPlugin, contentTypePlugin } from '../plugins/content-type'
import { healthPlugin } from '../plugins/health'
import { docsPlugin } from '../plugins/docs'
import { authPlugin } from '../plugins/auth'
import { rateLimitPlugin } from '../plugins/rate-limit'
import { etagPlugin } from '../plugins/etag'
import { queryNamesPlugin } from '../plugins/query-names'
import { photosPlugin } from '../plugins/photos'
import { feedsPlugin } from '../plugins/feeds'
import { streamPlugin } from '../plugins/stream'
import { exportPlugin } from '../plugins/export'
import { roversPlugin } from '../plugins/rovers'
import { camerasPlugin } from '../plugins/cameras'
import { locationsPlugin } from '../plugins/locations'
import { panoramasPlugin } from '../plugins/panoramas'
import { compressionFor } from '../plugins/compression'
import { installEdge } from './edge'
import { roverManifestPlugin } from '../plugins/rover-manifest'
import { v1Plugin } from '../plugins/v1'
import { dashboardPlugin } from '../plugins/dashboard'
import { journeysPlugin } from '../plugins/journeys'
import { mcpPlugin } from '../plugins/mcp'

/**
 * The request pipeline, top to bottom in the order a request meets it. The gates (auth, ETag,
 * rate limit, method and body checks) run at transform, once Elysia has matched the route and
 * before its validation: each decides from the route that actually runs (`route`, declared in
 * this app's RouteDocs), never from a second parse of the URL. Every request matches a route:
 * the catch-all, last, takes unknown paths and is keyed, so nothing fails open. The renderers
 * (onError, mapResponse) come first because Elysia applies them only to routes added after.
 */
export function createApp(appDeps: AppDeps) {
  const routes = new RouteTable()
  // `app` is read when a request asks for its peer, by then assigned.
  const peer = (request: Request) => app.server?.requestIP(request)?.address
  const port = () => app.server?.port
  const deps: PluginDeps = { ...appDeps, routes: new RouteDocs(), early: new EarlyAnswers(), peer, port }
  // standardHostname off: Elysia reads the path after the first `/` past `//`, not at a fixed
  // offset that a Host shorter than 4 characters moved into the path.
  const app = new Elysia({ handler: { standardHostname: false } })
    .use(errorsPlugin(deps, { routes, docs: deps.routes })) // every error below, Elysia's own included, becomes a problem document
    .use(hostCheckPlugin(deps)) // 400 for a malformed Host, before anything reads the URL
    .use(contentTypePlugin(deps, { encode: compressionFor(deps) })) // JsonBody -> Response with the media type Accept asks for, compressed as Accept-Encoding allows
    .use(authPlugin(deps)) // X-API-Key -> key record, or 401, for every route not declared open
    .use(etagPlugin(deps)) // If-None-Match -> 304 before counting
    .use(rateLimitPlugin(deps)) // hourly, daily, in-flight limits; headers; slot released after the response
    .use(methodCheckPlugin(deps, { routes })) // 405 for a static path of other methods (counted)
    .use(bodyLimitPlugin(deps)) // 400 for a body on GET/HEAD, 413 for oversized bodies (counted: it comes after the rate limit)
    .use(queryNamesPlugin(deps)) // 400 for a query name the /api/v2 route does not take, with the closest it takes (counted; never tagged, so never a 304)
    .use(healthPlugin(deps)) // GET /health: no key, not counted
    .use(docsPlugin(deps)) // API root (keyed), OpenAPI document and viewer (no key)
    .use(photosPlugin(deps))
    .use(feedsPlugin(deps)) // GET /api/v2/photos/feed.atom, feed.json: the key or a feed token
    .use(streamPlugin(deps)) // GET /api/v2/photos/stream: Server-Sent Events; holds its in-flight slot while open
    .use(exportPlugin(deps)) // GET /api/v2/photos/export: streamed; holds its in-flight slot until the stream ends
    .use(roversPlugin(deps))
    .use(camerasPlugin(deps))
    .use(locationsPlugin(deps))
    .use(panoramasPlugin(deps))
    .use(roverManifestPlugin(deps)) // /rovers/{slug}/manifest and /cameras
    .use(v1Plugin(deps)) // the v1 compatibility layer (/api/v1, /mars-photos/api/v1)
    .use(dashboardPlugin(deps)) // /dashboard: HTML pages on their own session cookie; no API key, not counted
    .use(journeysPlugin(deps)) // journey, traverse (keyed) and the public rover pages
    .use(mcpPlugin(deps)) // POST /mcp: the Model Context Protocol; the tools answer through the routes' in-process answers, one request per POST
    .use(catchAllPlugin(deps, { routes })) // every other path: keyed 404 / 405
  routes.bind(() => app.routes)
  // Request id, CORS, access log and metrics around the whole pipeline (app/edge.ts).
  const metrics = installEdge(app, deps)
  return Object.assign(app, { routeDocs: deps.routes, metrics })
}

export type App = ReturnType<typeof createApp>
