/**
 * Where the v1 compatibility layer lives: the v1 API's own base path (`/mars-photos/api/v1`, as
 * api.nasa.gov served it) and `/api/v1` beside our `/api/v2`. One predicate, so auth (the only
 * place that reads a key from the query string), the error renderer and the docs agree on what
 * a v1 path is.
 */
export const V1_PREFIXES = ['/api/v1', '/mars-photos/api/v1'] as const

/** True for a path at or under a v1 prefix (case-insensitive, as every path of this service). */
export function isV1Path(path: string): boolean {
  const p = path.toLowerCase()
  for (const prefix of V1_PREFIXES) if (p === prefix || p.startsWith(prefix + '/')) return true
  return false
}
