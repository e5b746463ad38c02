import type { Store } from '../../src/store/store'
import { ROVERS } from '../../src/catalog/rovers'
import { link } from '../../src/http/links'
import { formatDay } from '../../src/query/bytes/day-text'
import { singleEnvelope } from '../../src/query/render/envelope'
import { readJourneyParams, roverOfSlug } from './journey-params'
import { degrees, metres, stretchFigures } from './stretch-figures'
import { lowerBound, roverRows, traverseWindow } from './traverse-window'

/**
 * GET /api/v2/rovers/{slug}/journey (behaviour.md §16.2, without its faults): the photos of a sol
 * window grouped by (sol, site, drive) in that order, each with the position of the waypoint at
 * that site and drive when the tables have one; and the distance travelled and elevation change
 * over the window measured from the waypoints (./traverse-window.ts, ./stretch-figures.ts). The
 * Anchor's distance was made up from drive numbers and its map/KML links pointed nowhere; here
 * the distance says how it was measured, is absent with a reason when the rover has no
 * waypoints for the window, and the link is the traverse of the same window.
 */
export const JOURNEY_PATH = '/api/v2/rovers/:slug/journey'

export function journeyAnswer(store: Store, slug: string, params: URLSearchParams, base: string): string {
  const code = roverOfSlug(slug)
  const p = readJourneyParams(params)
  const rover = ROVERS[code]!.slug
  const s = store.journeyStops
  const t = store.traverses
  const [first, end] = roverRows(s.rover, s.length, code)
  const lo = p.solMin === undefined ? first : lowerBound(s.sol, first, end, p.solMin)
  const hi = p.solMax === undefined ? end : lowerBound(s.sol, first, end, p.solMax + 1)

  let photos = 0
  const places = new Set<string>()
  const path: string[] = []
  for (let i = lo; i < hi; i++) {
    const site = s.site[i]!
    const drive = s.drive[i]!
    photos += s.photo_count[i]!
    const known = site >= 0 && drive >= 0
    if (known) places.add(`${site}_${drive}`)
    const pt = s.point[i]!
    const e = pt >= 0 ? t.elevation_m[pt]! : NaN
    const position = pt >= 0 ? `,"position":{"lon":${degrees(t.lon[pt]!)},"lat":${degrees(t.lat[pt]!)}${Number.isNaN(e) ? '' : `,"elevation_m":${metres(e)}`}}` : ''
    const query = `rovers=${rover}&sol=${s.sol[i]}${known ? `&site=${site}&drive=${drive}` : ''}`
    path.push(
      `{"sol":${s.sol[i]},"earth_date":"${formatDay(s.first_date[i]!)}"${known ? `,"site":${site},"drive":${drive}` : ''},"photos_taken":${s.photo_count[i]}${position},` +
        `"links":{"photos":${JSON.stringify(`${base}/api/v2/photos?${query}`)}}}`,
    )
  }

  const w = traverseWindow(t, code, p.solMin, p.solMax)
  const solStart = p.solMin ?? minDefined(hi > lo ? s.sol[lo] : undefined, w.first !== undefined ? t.sol[w.first] : undefined)
  const solEnd = p.solMax ?? maxDefined(hi > lo ? s.sol[hi - 1] : undefined, w.last !== undefined ? Math.max(t.sol[w.last]!, t.last_sol[w.last]!) : undefined)
  const attrs: string[] = [`"rover":"${rover}"`]
  if (solStart !== undefined) attrs.push(`"sol_start":${solStart}`)
  if (solEnd !== undefined) attrs.push(`"sol_end":${solEnd}`)
  attrs.push(`"total_photos":${photos}`, `"locations_visited":${places.size}`)
  if (w.ok) {
    const f = stretchFigures(t, w.start, w.end)
    attrs.push(
      `"distance_traveled_m":${metres(f.distanceM)}`,
      `"distance_traveled_km":${metres(f.distanceM / 1000)}`,
      `"distance_method":"${f.method}"`,
      `"distance_note":${JSON.stringify(f.note)}`,
    )
    if (f.elevation) attrs.push(`"elevation_change_m":${metres(f.elevation.net)}`, `"elevation_gain_m":${metres(f.elevation.gain)}`, `"elevation_loss_m":${metres(f.elevation.loss)}`)
    else attrs.push(`"elevation_note":"The waypoints of this window state no elevation."`)
    attrs.push(`"waypoints":{"count":${w.end - w.start + 1},"first_sol":${t.sol[w.start]},"last_sol":${t.sol[w.end]}}`)
  } else {
    attrs.push(`"distance_note":${JSON.stringify(w.reason)}`)
  }
  const traverse = link(base, `/api/v2/rovers/${rover}/traverse`, windowParams(p.solMin, p.solMax))
  const data = `{"id":"${rover}","type":"journey","attributes":{${attrs.join(',')}},"path":[${path.join(',')}],"links":{"traverse":${JSON.stringify(traverse)}}}`
  return singleEnvelope(data, link(base, `/api/v2/rovers/${rover}/journey`, params))
}

function windowParams(solMin: number | undefined, solMax: number | undefined): URLSearchParams {
  const q = new URLSearchParams()
  if (solMin !== undefined) q.set('sol_min', String(solMin))
  if (solMax !== undefined) q.set('sol_max', String(solMax))
  return q
}

function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b)
}

function maxDefined(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.max(a, b)
}
