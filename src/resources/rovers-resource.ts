import type { Store } from '../store/store'
import { ROVERS, roverCode, type RoverFacts } from '../catalog/rovers'
import { camerasOf } from '../catalog/cameras'
import { notFound } from '../http/problems'
import { formatDay } from '../query/bytes/day-text'
import { singleEnvelope, wholeListEnvelope } from '../query/render/envelope'
import { roverStats, type RoverStats } from '../query/stats/rover-stats'
import { shareMembers } from '../query/stats/catalogue-share'

/**
 * GET /api/v2/rovers and /rovers/{slug} (interface "Rover"; behaviour.md §12).
 *
 * - Facts (name, dates, status) from src/catalog/rovers.ts; max_sol, max_date and total_photos
 *   computed from the index (src/query/stats/rover-stats.ts), never the published figures.
 * - The list is ordered by rover code (slug order) and is one page: the interface gives it no
 *   parameters, so `page`/`per_page` are not read. Its envelope is the list envelope of every
 *   list (decisions.md: meta.total_count, returned_count, timestamp on every list, rovers
 *   included; the Anchor sent no total_count, behaviour.md §12.2 DEV).
 * - The slug is matched case-insensitively; `data.id` and `links.self` are the lower-case slug
 *   (the Anchor echoed the slug as typed, §12.3). Unknown slug: 404.
 * - A rover with no photos in the index has total_photos 0 and no max_sol / max_date (unknown
 *   values are omitted, never invented: decisions.md).
 * - nasa_total_photos and catalogue_share (src/query/stats/catalogue-share.ts) say how much of NASA's
 *   catalogue the index holds, for the rovers NASA's v1 manifests cover; absent for the others.
 */
export const ROVERS_PATH = '/api/v2/rovers'

export function listRovers(store: Store, params: URLSearchParams, base: string): string {
  const stats = roverStats(store)
  return wholeListEnvelope(ROVERS.map((facts, code) => roverJson(facts, stats.rovers[code]!, shareMembers(store, code), '')), base, ROVERS_PATH, params)
}

export function getRover(store: Store, slug: string, base: string): string {
  const code = roverCode(slug.toLowerCase())
  if (code < 0) throw notFound(`No rover has the slug "${slug.slice(0, 40)}". Rovers: ${ROVERS.map((r) => r.slug).join(', ')}.`)
  const facts = ROVERS[code]!
  const cameras = camerasOf(facts.slug).map((c) => `{"id":${JSON.stringify(c.name)},"type":"camera","attributes":{"name":${JSON.stringify(c.name)},"full_name":${JSON.stringify(c.full_name)}}}`)
  const data = roverJson(facts, roverStats(store).rovers[code]!, shareMembers(store, code), `,"relationships":{"cameras":[${cameras.join(',')}]}`)
  return singleEnvelope(data, `${base}${ROVERS_PATH}/${facts.slug}`)
}

function roverJson(facts: RoverFacts, stats: RoverStats, share: string, extra: string): string {
  const counted = stats.total > 0 ? `,"max_sol":${stats.maxSol},"max_date":"${formatDay(stats.maxDate)}"` : ''
  return (
    `{"id":"${facts.slug}","type":"rover","attributes":{"name":${JSON.stringify(facts.name)},"landing_date":"${facts.landing_date}",` +
    `"launch_date":"${facts.launch_date}","status":"${facts.status}"${counted},"total_photos":${stats.total}${share}}${extra}}`
  )
}
