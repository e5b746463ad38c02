import { greatCircleM, MARS_RADIUS_M } from '../../../src/geo/great-circle'
import type { RoverSlug } from '../../../src/catalog/rovers'
import type { Waypoint as PlacedWaypoint } from '../waypoint'
import type { Rng } from './rng'
import type { Waypoint } from './shaping-data'
import type { Traverse } from './traverse'

/**
 * Where the synthetic rover stood at each (site, drive) of its traverse (./traverse.ts), as the
 * waypoint rows the builder reads from the real location tables (../waypoint.ts), so the builder
 * derives the traverse, the photos' positions and the sun's place from them exactly as it does
 * for real records. Every row is labelled `synthetic` (the traverse's source column).
 *
 * A point the real tables place (Curiosity and Perseverance waypoints, Spirit's drive table) keeps
 * its real position. Every other point, the synthetic continuation after the last real waypoint
 * and all of Opportunity, steps on from the point before: a distance drawn from the rover's own
 * real steps between consecutive placed waypoints (Spirit's for Opportunity, which has no table),
 * in a heading that wanders by a normal turn of TURN_DEG per step. So positions move sol by sol
 * along one path, and the photos per position follow the traverse's sites and drives.
 */
export const SYNTHETIC_SOURCE = 'synthetic'

/** Standard deviation of the heading change between two steps, degrees. */
const TURN_DEG = 25
/** Steps used when a rover's tables place fewer than MIN_STEPS consecutive waypoints (metres). */
const FALLBACK_STEPS = [5, 10, 20, 30, 40, 60, 80, 120]
const MIN_STEPS = 20
/** A step longer than this between two placed waypoints is a gap in the table, not one drive. */
const MAX_STEP_M = 1_000

const RAD = Math.PI / 180

/** Metres between consecutive placed waypoints (by site, then drive), the real steps a rover drove. */
export function realSteps(waypoints: readonly Waypoint[]): number[] {
  const placed = waypoints.filter((w) => w.lat !== undefined && w.lon !== undefined).sort((a, b) => a.site - b.site || a.drive - b.drive)
  const steps: number[] = []
  for (let i = 1; i < placed.length; i++) {
    const [a, b] = [placed[i - 1]!, placed[i]!]
    if (a.site === b.site && a.drive === b.drive) continue
    const d = greatCircleM(a.lon!, a.lat!, b.lon!, b.lat!)
    if (d > 0.5 && d <= MAX_STEP_M) steps.push(d)
  }
  return steps
}

export function traversePositions(
  rover: RoverSlug,
  t: Traverse,
  real: readonly Waypoint[],
  steps: readonly number[],
  landing: { lat: number; lon: number },
  rng: Rng,
): PlacedWaypoint[] {
  const at = new Map<number, { lat: number; lon: number }>()
  for (const w of real) if (w.lat !== undefined && w.lon !== undefined) at.set(key(w.site, w.drive), { lat: w.lat, lon: w.lon })
  const draw = steps.length >= MIN_STEPS ? steps : FALLBACK_STEPS
  const out: PlacedWaypoint[] = []
  let lat = landing.lat
  let lon = landing.lon
  let heading = rng.real(0, 360)
  const place = (site: number, drive: number, sol: number, first: boolean) => {
    const known = at.get(key(site, drive))
    if (known) {
      if (!first) heading = bearing(lat, lon, known.lat, known.lon)
      lat = known.lat
      lon = known.lon
    } else if (!first) {
      heading += rng.normal() * TURN_DEG
      const d = draw[Math.floor(rng.next() * draw.length)]!
      const a = d / MARS_RADIUS_M / RAD
      lat += a * Math.cos(heading * RAD)
      lon += (a * Math.sin(heading * RAD)) / Math.cos(lat * RAD)
    }
    if (lon < 0 || lon >= 360) lon = ((lon % 360) + 360) % 360
    out.push({ rover, site, drive, sol, lat, lon, format: 'waypoints', source: SYNTHETIC_SOURCE })
  }
  const sols = t.startSite.length
  if (sols === 0) return out
  place(t.startSite[0]!, t.startDrive[0]!, 0, true)
  for (let s = 0; s < sols; s++) {
    for (let m = t.moveStart[s]!; m < t.moveStart[s + 1]!; m++) place(t.moveSite[m]!, t.moveDrive[m]!, s, false)
  }
  return out
}

function key(site: number, drive: number): number {
  return site * 1_000_000 + drive
}

/** Initial bearing from one point to another, degrees clockwise from north. */
function bearing(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const y = Math.sin((lon2 - lon1) * RAD) * Math.cos(lat2 * RAD)
  const x = Math.cos(lat1 * RAD) * Math.sin(lat2 * RAD) - Math.sin(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.cos((lon2 - lon1) * RAD)
  return Math.atan2(y, x) / RAD
}
