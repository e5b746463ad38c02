/**
 * Cache-Control of GET resources, after behaviour.md §5.3 (the public service's values):
 * one hour with revalidation for the catalogue; a day for the rover list, whose figures move at
 * most once per index build. With the ETag a stale entry costs a 304, not a full answer.
 */
const HOUR = 'public, max-age=3600, must-revalidate'
const DAY = 'public, max-age=86400, must-revalidate'

export function cacheControlFor(routePattern: string): string {
  return routePattern === '/api/v2/rovers' ? DAY : HOUR
}
