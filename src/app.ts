import { Elysia } from 'elysia'
import type { AppDeps } from './app-deps'
import { errorsPlugin } from '../plugins/errors'
import { contentTypePlugin } from '../plugins/content-type'
import { healthPlugin } from '../plugins/health'
import { docsPlugin } from '../plugins/docs'
import { authPlugin } from '../plugins/auth'
import { rateLimitPlugin } from '../plugins/rate-limit'
import { etagPlugin } from '../plugins/etag'
import { photosPlugin } from '../plugins/photos'
import { roversPlugin } from '../plugins/rovers'
import { camerasPlugin } from '../plugins/cameras'
import { locationsPlugin } from '../plugins/locations'
import { panoramasPlugin } from '../plugins/panoramas'

/**
 * The request pipeline, top to bottom in the order a request meets it.
 */
export function createApp(deps: AppDeps) {
  return new Elysia()
    .use(errorsPlugin(deps)) // first: every error below, Elysia's own included, becomes a problem document
    .use(contentTypePlugin(deps)) // JsonBody -> Response with the media type Accept asks for
    .use(healthPlugin(deps)) // no key, not counted
    .use(docsPlugin(deps)) // API root and OpenAPI
    .use(authPlugin(deps)) // X-API-Key -> key record, or 401
    .use(etagPlugin(deps)) // If-None-Match -> 304 before counting
    .use(rateLimitPlugin(deps)) // hourly, daily, in-flight limits; headers
    .use(photosPlugin(deps))
    .use(roversPlugin(deps))
    .use(camerasPlugin(deps))
    .use(locationsPlugin(deps))
    .use(panoramasPlugin(deps))
}

export type App = ReturnType<typeof createApp>
