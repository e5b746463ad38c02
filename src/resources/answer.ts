import type { AppDeps } from '../app-deps'
import type { Store } from '../store/store'
import { JsonBody } from '../http/json-body'
import { origin } from '../http/links'
import { requestKey } from '../http/request-key'
import { fillTimestamp } from '../query/envelope'
import { responseCacheFor } from '../query/response-cache'

export type Render = (store: Store, params: URLSearchParams, base: string) => string

/**
 * The request/response dance shared by the rovers, cameras, locations and panoramas plugins:
 * pin the request's store snapshot, compute the absolute origin for links, serve the JSON text
 * from the shared response cache (index version + origin + canonical request key, so a rebuilt
 * index or another host never sees a stale text) and fill meta.timestamp per response.
 * Problems thrown by `render` propagate to plugins/errors and are never cached.
 */
export function answerer(deps: AppDeps): (request: Request, render: Render) => JsonBody {
  const cache = responseCacheFor(deps.config)
  return (request, render) => {
    const store = deps.stores.forRequest(request)
    const base = origin(request, deps.config)
    const url = new URL(request.url)
    const key = requestKey(request.method, url.pathname, url.searchParams)
    return new JsonBody(fillTimestamp(cache.get(store.version, base, key, () => render(store, url.searchParams, base))))
  }
}

/**
 * A path parameter as text. Elysia hands over null when the segment is not valid percent-encoding
 * (e.g. `/rovers/%`); such an id names nothing, so it becomes "" and the resource answers 404.
 */
export function pathParam(value: unknown): string {
  return typeof value === 'string' ? value : ''
}
