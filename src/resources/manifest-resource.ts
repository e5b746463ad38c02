import type { Store } from '../store/store'
import { ROVERS, roverCode, type RoverFacts } from '../catalog/rovers'
import { camerasOf } from '../catalog/cameras'
import { notFound } from '../http/problems'
import { formatDay } from '../query/bytes/day-text'
import { singleEnvelope, wholeListEnvelope } from '../query/render/envelope'
import { roverManifests, type ManifestDay, type RoverManifest } from '../query/stats/rover-manifest'
import { ROVERS_PATH } from './rovers-resource'
import { shareMembers } from '../query/stats/catalogue-share'

/**
 * GET /api/v2/rovers/{slug}/manifest and /rovers/{slug}/cameras (behaviour.md §12.4, §12.5),
 * both read from the builder's one manifest computation (src/query/stats/rover-manifest.ts), so they
 * agree with each other, with the v1 manifest and with the photo endpoints.
 *
 * - manifest: `{data: {id: slug, type: "manifest", attributes: {name, landing_date, launch_date,
 *   status, max_sol, max_date, total_photos, nasa_total_photos?, catalogue_share?, photos[]}},
 *   links.self}` (the two NASA figures as on the rover, src/query/stats/catalogue-share.ts); photos[] per
 *   (sol, earth_date) ascending: `{sol, earth_date, total_photos, nasa_total_photos?, cameras[]}`.
 *   `nasa_total_photos` is NASA's own v1 manifest figure for the sol where one states it
 *   (decisions.md, Journeys): total_photos below it says how much of that day we do not hold.
 *   A rover with no photos has total_photos 0, photos [] and no max_sol / max_date.
 * - cameras: every camera of the rover (catalogue), sorted by name, each with photo_count (0 when
 *   none) and first_photo_sol / last_photo_sol (omitted when it has no photos), in the list
 *   envelope of every list.
 * Unknown slug: 404 (case-insensitive match; ids and links use the lower-case slug).
 */
export function roverOf(slug: string): { facts: RoverFacts; code: number } {
  const code = roverCode(slug.toLowerCase())
  if (code < 0) throw notFound(`No rover has the slug "${slug.slice(0, 40)}". Rovers: ${ROVERS.map((r) => r.slug).join(', ')}.`)
  return { facts: ROVERS[code]!, code }
}

export function getManifest(store: Store, slug: string, base: string): string {
  const { facts, code } = roverOf(slug)
  const m = roverManifests(store)[code]!
  const attributes = `${roverHead(facts, m)}${shareMembers(store, code)},"photos":[${m.days.map((d) => dayJson(d, true)).join(',')}]`
  return singleEnvelope(`{"id":"${facts.slug}","type":"manifest","attributes":{${attributes}}}`, `${base}${ROVERS_PATH}/${facts.slug}/manifest`)
}

export function listRoverCameras(store: Store, slug: string, params: URLSearchParams, base: string): string {
  const { facts, code } = roverOf(slug)
  const m = roverManifests(store)[code]!
  const cams = [...camerasOf(facts.slug)].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const items = cams.map((c) => {
    const s = m.cameras.get(c.name)
    const sols = s ? `,"first_photo_sol":${s.firstSol},"last_photo_sol":${s.lastSol}` : ''
    return (
      `{"id":${JSON.stringify(c.name)},"type":"camera","attributes":{"name":${JSON.stringify(c.name)},"full_name":${JSON.stringify(c.full_name)},` +
      `"photo_count":${s?.count ?? 0}${sols}},"relationships":{"rover":{"id":"${facts.slug}","type":"rover"}}}`
    )
  })
  return wholeListEnvelope(items, base, `${ROVERS_PATH}/${facts.slug}/cameras`, params)
}

/** name, dates, status, max_sol, max_date, total_photos: the members v1 and v2 manifests share. */
export function roverHead(facts: RoverFacts, m: RoverManifest): string {
  const counted = m.total > 0 ? `,"max_sol":${m.maxSol},"max_date":"${formatDay(m.maxDate)}"` : ''
  return `"name":${JSON.stringify(facts.name)},"landing_date":"${facts.landing_date}","launch_date":"${facts.launch_date}","status":"${facts.status}"${counted},"total_photos":${m.total}`
}

/** One day of the manifest; v1 has no nasa_total_photos (its own figure is total_photos). */
export function dayJson(d: ManifestDay, withNasa: boolean): string {
  const nasa = withNasa && d.nasaTotal !== undefined ? `,"nasa_total_photos":${d.nasaTotal}` : ''
  return `{"sol":${d.sol},"earth_date":"${formatDay(d.day)}","total_photos":${d.total}${nasa},"cameras":${JSON.stringify(d.cameras)}}`
}
