import { Elysia } from 'elysia'
import type { AppDeps } from './app-deps'
import { errorsPlugin, methodCheckPlugin } from '../plugins/errors'
import { RouteTable } from '../plugins/errors/route-table'
import { bodyLimitPlugin, contentTypePlugin } from '../plugins/content-type'
import { healthPlugin } from '../plugins/health'
import { docsPlugin } from '../plugins/docs'
import { authPlugin } from '../plugins/auth'
import { rateLimitPlugin } from '../plugins/rate-limit'
import { etagPlugin } from '../plugins/etag'
import { photosPlugin } from '../plugins/photos'
import { exportPlugin } from '../plugins/export'
import { roversPlugin } from '../plugins/rovers'
import { camerasPlugin } from '../plugins/cameras'
import { locationsPlugin } from '../plugins/locations'
import { panoramasPlugin } from '../plugins/panoramas'

/**
 * The request pipeline, top to bottom in the order a request meets it. The gates run at
 * onRequest (before routing and validation), so no answer under /api escapes them; the renderers
 * (onError, mapResponse) come first because Elysia applies them only to routes added after.
 */
export function createApp(deps: AppDeps) {
  const routes = new RouteTable()
  const app = new Elysia()
    .use(errorsPlugin(deps, { routes })) // every error below, Elysia's own included, becomes a problem document
    .use(contentTypePlugin(deps)) // JsonBody -> Response with the media type Accept asks for
    .use(authPlugin(deps)) // X-API-Key -> key record, or 401 (paths under /api only)
    .use(etagPlugin(deps, { routes })) // If-None-Match -> 304 before counting
    .use(rateLimitPlugin(deps)) // hourly, daily, in-flight limits; headers; slot released after the response
    .use(methodCheckPlugin(deps, { routes })) // 405 for a static path of other methods (counted)
    .use(bodyLimitPlugin(deps)) // 413 for oversized bodies (counted: it comes after the rate limit)
    .use(healthPlugin(deps)) // GET /health: no key, not counted
    .use(docsPlugin(deps)) // API root (keyed), OpenAPI document and viewer (no key)
    .use(photosPlugin(deps))
    .use(exportPlugin(deps)) // GET /api/v2/photos/export: streamed; holds its in-flight slot until the stream ends
    .use(roversPlugin(deps))
    .use(camerasPlugin(deps))
    .use(locationsPlugin(deps))
    .use(panoramasPlugin(deps))
  routes.bind(() => app.routes)
  return app
}

export type App = ReturnType<typeof createApp>
