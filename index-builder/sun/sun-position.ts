import { marsTimeAt } from '../normalize/mars24'

/**
 * Where the sun stands in a rover's sky, by the Mars24 algorithm (NASA GISS,
 * https://www.giss.nasa.gov/tools/mars24/help/algorithm.html; Allison & McEwen 2000, Planet. Space
 * Sci. 48, 215-235). Time steps A-1 … C-4 (areocentric solar longitude Ls, equation of centre,
 * equation of time, local true solar time) are ../normalize/mars24.ts; this module adds the
 * D steps: the solar declination (D-1) and, from the local true solar time's hour angle (which
 * is the subsolar longitude's distance from the place, D-4), the sun's elevation and azimuth on
 * the sphere (the zenith angle of D-5 and the azimuth of D-6, azimuth from north, clockwise).
 *
 * Latitudes: Mars24's declination is planetographic (the angle to the local vertical of the
 * IAU ellipsoid), and the waypoint tables give planetocentric latitudes; the place's latitude is
 * turned planetographic here (Mars' flattening 1/169.8 moves it by at most 0.33°).
 *
 * Pure functions; no allocation but the returned object.
 */
const DEG = Math.PI / 180

/** Mars equatorial and polar radii (IAU 2000, km): the flattening that separates the two latitudes. */
const RE = 3396.19
const RP = 3376.2
const AXIS_RATIO_SQ = (RE / RP) ** 2

export interface SunPosition {
  /** Degrees above the local horizon (−90 … 90), geometric (Mars' refraction is below 0.01° above 5°). */
  elevation: number
  /** Degrees from north, clockwise (east 90°), [0, 360). */
  azimuth: number
  /** Areocentric solar longitude Ls, degrees [0, 360): the season. */
  solarLongitude: number
}

/** D-1: planetographic solar declination (degrees) at solar longitude `ls` (degrees). */
export function solarDeclination(ls: number): number {
  const s = Math.sin(ls * DEG)
  return Math.asin(0.42565 * s) / DEG + 0.25 * s
}

/** A planetocentric latitude (degrees) as planetographic: tan φg = (a/b)² tan φc. */
export function planetographicLatitude(planetocentricDeg: number): number {
  if (Math.abs(planetocentricDeg) >= 90) return planetocentricDeg
  return Math.atan(AXIS_RATIO_SQ * Math.tan(planetocentricDeg * DEG)) / DEG
}

/**
 * Elevation and azimuth of a sun at declination `declinationDeg` and hour angle `hourAngleDeg`
 * (degrees west of the local meridian: 15° per hour of local true solar time after noon) seen
 * from planetographic latitude `latitudeDeg`: D-5's zenith angle cos Z = sin φ sin δ + cos φ cos δ
 * cos H, and the azimuth on the same spherical triangle.
 */
export function sunInSky(declinationDeg: number, hourAngleDeg: number, latitudeDeg: number): { elevation: number; azimuth: number } {
  const d = declinationDeg * DEG
  const h = hourAngleDeg * DEG
  const p = latitudeDeg * DEG
  const sinEl = Math.sin(p) * Math.sin(d) + Math.cos(p) * Math.cos(d) * Math.cos(h)
  const elevation = Math.asin(Math.max(-1, Math.min(1, sinEl))) / DEG
  const east = -Math.cos(d) * Math.sin(h)
  const north = Math.sin(d) * Math.cos(p) - Math.cos(d) * Math.sin(p) * Math.cos(h)
  const az = Math.atan2(east, north) / DEG
  return { elevation, azimuth: az < 0 ? az + 360 : az }
}

/**
 * The sun at UTC instant `utcMs` for a rover at planetocentric latitude `latitudeDeg` (north) and
 * east longitude `eastLongitudeDeg`. The time is UTC; mars24.ts turns it into TT with the leap
 * seconds before any orbital term is evaluated.
 */
export function sunPosition(utcMs: number, latitudeDeg: number, eastLongitudeDeg: number): SunPosition {
  const t = marsTimeAt(utcMs, eastLongitudeDeg)
  const hourAngle = (t.ltst - 12) * 15
  const sky = sunInSky(solarDeclination(t.ls), hourAngle, planetographicLatitude(latitudeDeg))
  return { elevation: sky.elevation, azimuth: sky.azimuth, solarLongitude: t.ls }
}
