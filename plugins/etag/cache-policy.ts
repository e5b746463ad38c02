/**
 * Cache-Control of keyed GET resources: the max-age of behaviour.md §5.3 (one hour with
 * revalidation for the catalogue; a day for the rover list, whose figures move at most once per
 * index build), but `private` where the public service says `public` (decisions.md,
 * Cache-Control): a keyed answer carries its key's X-RateLimit-* figures and must only be reused
 * by that client's own cache (RFC 9111 §5.2.2.7), never by a shared cache for a request without
 * the key. With the ETag a stale entry costs a 304, not a full answer.
 */
const HOUR = 'private, max-age=3600, must-revalidate'
const DAY = 'private, max-age=86400, must-revalidate'

export function cacheControlFor(routePattern: string): string {
  return routePattern === '/api/v2/rovers' ? DAY : HOUR
}
