import { ROVERS } from '../../src/catalog/rovers'
import type { TraverseColumns } from '../../src/store/schema'

/**
 * Where a rover stood when it took a photo, for the sun's position (./derive-sun.ts), from the
 * traverse the builder derived from the location tables (../derive/traverses.ts):
 *   waypoint   the traverse point of the photo's own (site, drive): where the rover stood;
 *   traverse   else the point the rover had reached by the photo's sol (the latest point whose
 *              sol is at most the photo's): on a drive sol this is where the sol began;
 *   landing    else the landing site (a rover without a traverse, or a sol before its first point).
 * Latitudes planetocentric (north), longitudes east, as the tables state them.
 *
 * What a fallback costs: one degree of arc on Mars is 59.3 km (radius 3,396.19 km) and the sun's
 * direction moves with the place by the same angle, so a position d km off moves the sun by at
 * most d / 59.3 degrees (measured on the labelled photos in docs/derived-fields.md).
 */
export type PlaceMethod = 'waypoint' | 'traverse' | 'landing'
export const PLACE_METHODS: readonly PlaceMethod[] = ['waypoint', 'traverse', 'landing']

export interface RoverPlace {
  lat: number
  lon: number
  method: PlaceMethod
}

/**
 * Landing sites, planetocentric (NASA/JPL mission pages and the MMGIS/MER tables' first points):
 * Curiosity Bradbury Landing −4.5895°N 137.4417°E, Opportunity Eagle crater −1.9462°N 354.4734°E,
 * Perseverance Octavia E. Butler Landing 18.4447°N 77.4508°E, Spirit Columbia Memorial Station
 * −14.5684°N 175.4726°E. Longitudes as src/catalog/rovers.ts.
 */
const LANDING_LATITUDE: readonly number[] = ROVERS.map((r) => ({ curiosity: -4.5895, opportunity: -1.9462, perseverance: 18.4447, spirit: -14.5684 })[r.slug])

export class RoverPlaces {
  readonly #bySiteDrive = new Map<number, number>()
  /** Per rover code: traverse rows in table order (sols never decrease along a traverse). */
  readonly #rows: number[][] = ROVERS.map(() => [])

  constructor(readonly traverse: TraverseColumns) {
    for (let p = 0; p < traverse.length; p++) {
      this.#bySiteDrive.set(key(traverse.rover[p]!, traverse.site[p]!, traverse.drive[p]!), p)
      this.#rows[traverse.rover[p]!]?.push(p)
    }
  }

  /** The rover's place for a photo of rover code `rover` at (site, drive) on `sol`; site/drive < 0 when unknown. */
  at(rover: number, site: number, drive: number, sol: number): RoverPlace {
    const t = this.traverse
    if (site >= 0 && drive >= 0) {
      const p = this.#bySiteDrive.get(key(rover, site, drive))
      if (p !== undefined) return { lat: t.lat[p]!, lon: t.lon[p]!, method: 'waypoint' }
    }
    const rows = this.#rows[rover] ?? []
    // The last point reached on or before the sol: binary search over the sol-ordered rows.
    let lo = 0
    let hi = rows.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (t.sol[rows[mid]!]! <= sol) lo = mid + 1
      else hi = mid
    }
    if (lo > 0) {
      const p = rows[lo - 1]!
      return { lat: t.lat[p]!, lon: t.lon[p]!, method: 'traverse' }
    }
    return this.landing(rover)
  }

  /** The landing site of rover code `rover`. */
  landing(rover: number): RoverPlace {
    return { ...landingSite(rover), method: 'landing' }
  }
}

/** The landing site of rover code `rover` (planetocentric latitude, east longitude). */
export function landingSite(rover: number): { lat: number; lon: number } {
  return { lat: LANDING_LATITUDE[rover]!, lon: ROVERS[rover]!.landing_longitude_east }
}

function key(rover: number, site: number, drive: number): number {
  return (rover * 1_000_000 + site) * 1_000_000 + drive
}
