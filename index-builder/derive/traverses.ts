import { ROVER_SLUGS, roverCode, type RoverSlug } from '../../src/catalog/rovers'
import { greatCircleM } from '../../src/geo/great-circle'
import type { TraverseColumns } from '../../src/store/schema'
import type { Waypoint } from '../sources/waypoint'
import { merMapProjection } from './mer-map-projection'
import { traverseSums } from './traverse-sums'

/**
 * Each rover's traverse from the location tables the readers returned (decisions.md, Journeys):
 *  - the densest table that places points on Mars: a MER traverse path (map x/y, placed through
 *    the projection fitted on the rover's drive table, ./mer-map-projection.ts), else the MMGIS
 *    waypoint layers (lon/lat), else the MER drive/site tables (lon/lat);
 *  - one point per (site, drive): the rover motion counter only grows, so that order is the
 *    order driven in. Rows naming the same position (the daily M2020 snapshots repeat the day's
 *    position; the MER path repeats a position over several sols) merge: the earliest sol is
 *    when the rover got there, the latest sol how long it stayed, and a field any row states is
 *    kept;
 *  - a point whose sol goes back in time against the points before it is left out (counted),
 *    so sols never decrease along a traverse and a sol window is one run of rows;
 *  - distances and elevation sums by ./traverse-sums.ts.
 */
export interface TraverseBuild {
  columns: TraverseColumns
  /** Per rover: the table used, points kept, rows left out and why. */
  report: Array<{ rover: RoverSlug; format: string; points: number; dropped_unplaced: number; dropped_sol_order: number }>
}

interface Point {
  site: number
  drive: number
  sol: number
  lastSol: number
  lon: number
  lat: number
  elevation: number
  distTotal: number
  source: string
}

const PREFERENCE = ['mer-traverse-table', 'waypoints', 'mer-rmc-table'] as const

export function deriveTraverses(waypoints: readonly Waypoint[]): TraverseBuild {
  const perRover: Point[][] = ROVER_SLUGS.map(() => [])
  const report: TraverseBuild['report'] = []
  for (const slug of ROVER_SLUGS) {
    const mine = waypoints.filter((w) => w.rover === slug)
    if (mine.length === 0) continue
    const project = merMapProjection(mine.filter((w) => w.format === 'mer-rmc-table'))
    for (const format of PREFERENCE) {
      const rows = mine.filter((w) => w.format === format)
      if (rows.length === 0) continue
      let unplaced = 0
      const placed: Point[] = []
      for (const w of rows) {
        const pos = w.lon !== undefined && w.lat !== undefined ? { lon: w.lon, lat: w.lat } : w.x !== undefined && w.y !== undefined ? project?.(w.x, w.y) : undefined
        if (!pos || w.sol === undefined) {
          unplaced++
          continue
        }
        placed.push({
          site: w.site,
          drive: w.drive,
          sol: w.sol,
          lastSol: Math.max(w.sol, w.last_sol ?? w.sol),
          lon: pos.lon,
          lat: pos.lat,
          elevation: w.elevation_m ?? NaN,
          distTotal: w.dist_total_m ?? NaN,
          source: sourceName(w.source),
        })
      }
      if (placed.length === 0) continue
      const { points, droppedSolOrder } = orderAndMerge(placed)
      perRover[roverCode(slug)] = points
      report.push({ rover: slug, format, points: points.length, dropped_unplaced: unplaced, dropped_sol_order: droppedSolOrder })
      break
    }
  }
  return { columns: toColumns(perRover), report }
}

/** Sort by (site, drive, sol), merge rows of one position, drop points whose sol goes backwards. */
function orderAndMerge(rows: Point[]): { points: Point[]; droppedSolOrder: number } {
  rows.sort((a, b) => a.site - b.site || a.drive - b.drive || a.sol - b.sol)
  const merged: Point[] = []
  for (const r of rows) {
    const last = merged[merged.length - 1]
    if (last && last.site === r.site && last.drive === r.drive) {
      last.lastSol = Math.max(last.lastSol, r.lastSol)
      if (Number.isNaN(last.elevation)) last.elevation = r.elevation
      if (Number.isNaN(last.distTotal)) last.distTotal = r.distTotal
      continue
    }
    merged.push({ ...r })
  }
  const points: Point[] = []
  let droppedSolOrder = 0
  for (const p of merged) {
    if (points.length > 0 && p.sol < points[points.length - 1]!.sol) {
      droppedSolOrder++
      continue
    }
    points.push(p)
  }
  return { points, droppedSolOrder }
}

function toColumns(perRover: Point[][]): TraverseColumns {
  const length = perRover.reduce((s, p) => s + p.length, 0)
  const sources: string[] = []
  const sourceCode = new Map<string, number>()
  const c: TraverseColumns = {
    length,
    rover: new Uint8Array(length),
    site: new Int32Array(length),
    drive: new Int32Array(length),
    sol: new Int32Array(length),
    last_sol: new Int32Array(length),
    lon: new Float64Array(length),
    lat: new Float64Array(length),
    elevation_m: new Float64Array(length),
    dist_total_m: new Float64Array(length),
    cum_distance_m: new Float64Array(length),
    cum_gain_m: new Float64Array(length),
    cum_loss_m: new Float64Array(length),
    cum_nasa_segments: new Int32Array(length),
    source: { codes: new Int32Array(length), dict: sources },
  }
  let row = 0
  perRover.forEach((points, code) => {
    const sums = traverseSums(
      points.map((p) => p.lon),
      points.map((p) => p.lat),
      points.map((p) => p.elevation),
      points.map((p) => p.distTotal),
      greatCircleM,
    )
    points.forEach((p, i) => {
      c.rover[row] = code
      c.site[row] = p.site
      c.drive[row] = p.drive
      c.sol[row] = p.sol
      c.last_sol[row] = p.lastSol
      c.lon[row] = p.lon
      c.lat[row] = p.lat
      c.elevation_m[row] = p.elevation
      c.dist_total_m[row] = sums.statedTotal[i]!
      c.cum_distance_m[row] = sums.distance[i]!
      c.cum_gain_m[row] = sums.gain[i]!
      c.cum_loss_m[row] = sums.loss[i]!
      c.cum_nasa_segments[row] = sums.nasaSegments[i]!
      let s = sourceCode.get(p.source)
      if (s === undefined) sourceCode.set(p.source, (s = sources.push(p.source) - 1))
      ;(c.source.codes as Int32Array)[row] = s
      row++
    })
  })
  return c
}

/** A source named by its data set folder and file (`owner__repo/file`), not by a path of the build machine. */
function sourceName(source: string): string {
  const file = source.split(':')[0]!
  return file.split('/').slice(-2).join('/')
}
