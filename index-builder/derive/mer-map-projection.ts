import { METRES_PER_DEGREE } from '../sources/rover-by-place'
import type { Waypoint } from '../sources/waypoint'

/**
 * Lon/lat from the MER map coordinates (corrected x east, y north, metres) of the traverse
 * tables (SOURCES.md §2.10), fitted on the rover's drive/site table rows, which state both:
 * lon = a + b·x and lat = c + d·y by least squares. For Spirit the fit is exact to 1e-8 m over
 * 729 rows (a simple cylindrical map centred on 175.5° E with a 3,396.19 km radius), so the
 * 8,804-point path lands on the same ground as the drive table. A fit that misses any row by more
 * than a metre is refused (undefined): the path is then not placed rather than placed wrongly.
 */
export const MAX_FIT_RESIDUAL_M = 1

export type MapProjection = (x: number, y: number) => { lon: number; lat: number }

export function merMapProjection(rows: readonly Waypoint[]): MapProjection | undefined {
  const both = rows.filter((w) => w.x !== undefined && w.y !== undefined && w.lon !== undefined && w.lat !== undefined)
  if (both.length < 2) return undefined
  const lonFit = line(both.map((w) => w.x!), both.map((w) => w.lon!))
  const latFit = line(both.map((w) => w.y!), both.map((w) => w.lat!))
  if (!lonFit || !latFit) return undefined
  const project: MapProjection = (x, y) => ({ lon: lonFit[0] + lonFit[1] * x, lat: latFit[0] + latFit[1] * y })
  for (const w of both) {
    const p = project(w.x!, w.y!)
    const east = (p.lon - w.lon!) * METRES_PER_DEGREE * Math.cos((w.lat! * Math.PI) / 180)
    const north = (p.lat - w.lat!) * METRES_PER_DEGREE
    if (!(Math.hypot(east, north) <= MAX_FIT_RESIDUAL_M)) return undefined
  }
  return project
}

/** Least-squares [intercept, slope] of ys on xs; undefined when xs do not vary. */
function line(xs: number[], ys: number[]): [number, number] | undefined {
  const n = xs.length
  let mx = 0
  let my = 0
  for (let i = 0; i < n; i++) {
    mx += xs[i]!
    my += ys[i]!
  }
  mx /= n
  my /= n
  let sxy = 0
  let sxx = 0
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my)
    sxx += (xs[i]! - mx) ** 2
  }
  if (sxx === 0) return undefined
  const slope = sxy / sxx
  return [my - slope * mx, slope]
}
