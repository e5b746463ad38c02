import type { TraverseColumns } from '../../src/store/schema'
import { MARS_RADIUS_M } from '../../src/geo/great-circle'

/**
 * Distance and elevation figures of the traverse stretch [start, end] (./traverse-window.ts),
 * from the builder's cumulative columns: O(1). The method says where the distance comes from
 * (decisions.md, Journeys: NASA's own cumulative distance where the waypoints state it, else
 * great-circle sums on a 3,389.5 km sphere); both are stated with their segment counts.
 * Elevation figures only when both ends of the stretch have an elevation.
 */
export type DistanceMethod = 'nasa_dist_total_m' | 'great_circle' | 'mixed'

export interface StretchFigures {
  distanceM: number
  method: DistanceMethod
  nasaSegments: number
  greatCircleSegments: number
  note: string
  elevation?: { net: number; gain: number; loss: number }
}

export function stretchFigures(t: TraverseColumns, start: number, end: number): StretchFigures {
  const segments = end - start
  const nasa = t.cum_nasa_segments[end]! - t.cum_nasa_segments[start]!
  const circle = segments - nasa
  const method: DistanceMethod = segments === 0 ? (Number.isNaN(t.dist_total_m[start]!) ? 'great_circle' : 'nasa_dist_total_m') : nasa === segments ? 'nasa_dist_total_m' : nasa === 0 ? 'great_circle' : 'mixed'
  const radius = `great-circle sums between consecutive waypoints on a sphere of radius ${MARS_RADIUS_M / 1000} km`
  const nasaText = "NASA's own cumulative distance driven (the waypoints' dist_total_m)"
  const note =
    segments === 0
      ? 'The rover reached no new waypoint in this window: no distance travelled.'
      : method === 'nasa_dist_total_m'
        ? `${nasaText}, over ${segments} segment${segments === 1 ? '' : 's'}.`
        : method === 'great_circle'
          ? `The waypoints state no cumulative distance: ${radius}, over ${segments} segment${segments === 1 ? '' : 's'}.`
          : `${nasaText} over ${nasa} segments; ${radius} over the other ${circle}.`
  const out: StretchFigures = { distanceM: t.cum_distance_m[end]! - t.cum_distance_m[start]!, method, nasaSegments: nasa, greatCircleSegments: circle, note }
  const e0 = t.elevation_m[start]!
  const e1 = t.elevation_m[end]!
  if (!Number.isNaN(e0) && !Number.isNaN(e1)) out.elevation = { net: e1 - e0, gain: t.cum_gain_m[end]! - t.cum_gain_m[start]!, loss: t.cum_loss_m[end]! - t.cum_loss_m[start]! }
  return out
}

/** Metres to the millimetre, as JSON number text. */
export function metres(v: number): string {
  return String(Math.round(v * 1000) / 1000)
}

/** Degrees to 1e-7 (about 6 mm on Mars), as JSON number text. */
export function degrees(v: number): string {
  return String(Math.round(v * 1e7) / 1e7)
}
