import { ROVERS, type RoverSlug } from '../../src/catalog/rovers'

/**
 * Which rover a location table belongs to, when the table itself does not say: the rover whose landing
 * site is nearest to the table's mean position. Longitudes come from src/catalog/rovers.ts; the
 * latitudes (planetocentric, degrees) are the landing sites' published values, used only to tell the
 * four sites apart (they are hundreds of km from each other, so rounding does not matter).
 */
const LANDING_LATITUDE: Record<RoverSlug, number> = {
  curiosity: -4.5895,
  opportunity: -1.9462,
  perseverance: 18.4447,
  spirit: -14.5684,
}

/** Metres per degree of latitude on the Mars reference sphere (radius 3,396,190 m). */
export const METRES_PER_DEGREE = (3396190 * Math.PI) / 180

/** The nearest rover within `maxDeg` degrees of (lon, lat); lon may be undefined (latitude only). */
export function roverNearPlace(lonEast: number | undefined, lat: number, maxDeg = 3): RoverSlug | undefined {
  let best: RoverSlug | undefined
  let bestD = Infinity
  for (const r of ROVERS) {
    const dLat = lat - LANDING_LATITUDE[r.slug]
    let d = dLat * dLat
    if (lonEast !== undefined) {
      let dLon = (((lonEast - r.landing_longitude_east) % 360) + 540) % 360 - 180
      dLon *= Math.cos((lat * Math.PI) / 180)
      d += dLon * dLon
    }
    if (d < bestD) {
      bestD = d
      best = r.slug
    }
  }
  return Math.sqrt(bestD) <= maxDeg ? best : undefined
}

/** A rover named in a file name (timetable-spirit.tsv, MERA-MER2-Spirit_…, M20_…, MSL_…), else undefined. */
export function roverFromFileName(name: string): RoverSlug | undefined {
  const n = name.toLowerCase()
  if (/spirit|mer-?2|(^|[^a-z])mer-?a([^a-z]|$)/.test(n)) return 'spirit'
  if (/opportunity|mer-?1|(^|[^a-z])mer-?b([^a-z]|$)/.test(n)) return 'opportunity'
  if (/perseverance|(^|[^a-z])m20([^0-9]|$)|mars2020/.test(n)) return 'perseverance'
  if (/curiosity|(^|[^a-z])msl([^a-z]|$)/.test(n)) return 'curiosity'
  return undefined
}
