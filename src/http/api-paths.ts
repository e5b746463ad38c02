/**
 * Which paths belong to the API, read from a request path as Elysia routed it. One module, so
 * the gates that treat v2 differently (unknown query names, where a key may come from) and the
 * catch-all (keyed under the API, a plain 404 elsewhere) agree.
 */
export const V2_PREFIX = '/api/v2'

/** True for a route pattern or path at or under /api/v2. */
export function isV2Path(path: string): boolean {
  return path === V2_PREFIX || path.startsWith(V2_PREFIX + '/')
}

/**
 * True for a path that no route took but that may be meant for the API: one with an `api` or
 * `mars-photos` segment anywhere, in any case, percent-encoded or not (`/API/v2/x`, `/xy/api/v2/photos`,
 * `/%61pi/v2`). Such paths keep failing closed (a key first, then 404); the rest of the site's
 * unknown paths are a plain 404. Errs towards the API: a doubt costs a 401, never an open door.
 */
export function isApiPath(path: string): boolean {
  return API_SEGMENT.test(path) || API_SEGMENT.test(decoded(path))
}

const API_SEGMENT = /(?:^|\/)(?:api|mars-photos)(?:\/|$)/i

function decoded(path: string): string {
  try {
    return decodeURIComponent(path)
  } catch {
    return path.replace(/%[0-9a-f]{2}/gi, (h) => String.fromCharCode(parseInt(h.slice(1), 16)))
  }
}
