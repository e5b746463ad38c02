/**
 * Distances on Mars as a sphere of the IAU mean radius 3,389.5 km (decisions.md, Journeys:
 * great-circle sums where NASA states no cumulative distance). Haversine form: well conditioned
 * for the metre-scale steps between rover waypoints, where the spherical law of cosines loses
 * precision to rounding.
 */
export const MARS_RADIUS_M = 3_389_500

const RAD = Math.PI / 180

/** Great-circle distance in metres between two lon/lat positions in degrees. */
export function greatCircleM(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const dLat = (lat2 - lat1) * RAD
  const dLon = (lon2 - lon1) * RAD
  const s = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLon / 2) ** 2
  return 2 * MARS_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(s)))
}

/**
 * A local planar frame in metres around a reference latitude (equirectangular: x east, y north).
 * Over a rover's traverse (a few tens of km) its distances differ from great-circle ones by far
 * less than a metre, which is what simplification tolerances and the page drawing need.
 */
export interface LocalFrame {
  x(lon: number): number
  y(lat: number): number
}

export function localFrame(lon0: number, lat0: number): LocalFrame {
  const kx = MARS_RADIUS_M * RAD * Math.cos(lat0 * RAD)
  const ky = MARS_RADIUS_M * RAD
  return { x: (lon) => (lon - lon0) * kx, y: (lat) => (lat - lat0) * ky }
}
