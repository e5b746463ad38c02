import type { AppDeps } from '../app-deps'
import type { Store } from '../store/store'
import { responseCacheFor } from '../query/response-cache'
import { originFor } from './links'
import { requestKey } from './request-key'
import { urlFacts } from './url-facts'
import { contextOf } from './request-context'

export type Render = (store: Store, params: URLSearchParams, base: string) => string

/**
 * The JSON text answering a GET resource: pinned snapshot, absolute origin, and the shared
 * response cache (index version + origin + canonical request key [+ extraKey]) with
 * meta.timestamp filled (ResponseCache.getStamped). Problems thrown by `render` propagate to
 * plugins/errors and are never cached. It avoids a
 * per-request new URL(), requestKey() and full-body timestamp copy: the URL-derived parts come
 * from src/http/url-facts.ts. A cached 25-photo list went from ~100 to ~25 µs in process.
 * Returns the text, so handlers can be written `=> new JsonBody(...)` (src/http/sync-hook.ts).
 */
export function cachedAnswer(deps: AppDeps): (request: Request, render: Render, extraKey?: string) => string {
  const cache = responseCacheFor(deps.config)
  return (request, render, extraKey = '') => {
    const store = deps.stores.forRequest(request)
    const base = originFor(request, deps.config)
    const f = urlFacts(request.url)
    const key = (request.method === 'GET' ? f.getKey() : requestKey(request.method, f.path, f.params())) + extraKey
    const entry = cache.entry(store.version, base, key, () => render(store, f.params(), base))
    if (entry === undefined) return cache.getStamped(store.version, base, key, () => render(store, f.params(), base))
    contextOf(request).template = entry // plugins/compression splices this entry's compressed pieces
    return entry.stampedAt(Date.now())
  }
}
