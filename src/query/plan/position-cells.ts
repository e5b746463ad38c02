import { greatCircleM, MARS_RADIUS_M } from '../../geo/great-circle'
import { perSnapshot } from '../../store/per-snapshot'
import type { Store } from '../../store/store'
import type { NearCircle } from '../scan/filters'

/**
 * The photos with a position in spatial order, made once per snapshot: the rows sorted by
 * (latitude cell, longitude cell, row) on a grid of CELL_DEG degrees (~59 m on Mars). A circle
 * of "taken near here" is then one slice per latitude row of cells it crosses (one or two for
 * its longitude span, two when the span crosses 0/360), found by binary search, so a radius
 * query reads the photos of the cells around the centre instead of every photo. Rows of one cell
 * keep the table's order (the photos of one stop are mostly one sol's, read in sequence).
 *
 * Photos are taken by the hundred at one stop, so a cell holds runs of rows at one position
 * (`runs`). The circle is decided once per run, with the very test the row filter makes
 * (filters.ts nearCircle: the latitude band, then the great circle), so the slices of the runs
 * inside it are exactly the circle's photos: the count is their size and no row is tested. Each
 * run is ascending by row (a piece of one cell), so each slice is in the default order.
 */
export interface PositionCells {
  /** Rows with a position, by (latitude cell, longitude cell, row). */
  perm: Int32Array
  /** Cell key of each position in perm: latCell * LON_CELLS + lonCell (ascending). */
  keys: Float64Array
  /** Start of each run of one position within one cell, in perm; runs[runs.length - 1] = perm.length. */
  runs: Int32Array
}

/** Label of the access path made of the runs inside a circle (sources.ts). */
export const POSITION_SOURCE = 'position-cells'

/** Degrees per cell side: about 59 m of latitude, so a 50 m circle crosses two or three rows. */
export const CELL_DEG = 0.001
const LAT_CELLS = Math.round(180 / CELL_DEG)
const LON_CELLS = Math.round(360 / CELL_DEG)

/** Cell row of a latitude (-90..90), clamped to the grid; monotone in lat. */
const latCell = (lat: number) => Math.min(LAT_CELLS - 1, Math.max(0, Math.floor((lat + 90) / CELL_DEG)))
/** Cell column of an east longitude (0..360), clamped to the grid (a stored 360 sits in the last column); monotone in lon. */
const lonCell = (lon: number) => Math.min(LON_CELLS - 1, Math.max(0, Math.floor(lon / CELL_DEG)))

export const positionCells = perSnapshot((store: Store): PositionCells => {
  const { lat, lon } = store.photos
  const n = store.photos.length
  let m = 0
  for (let r = 0; r < n; r++) if (!Number.isNaN(lat[r]!) && !Number.isNaN(lon[r]!)) m++
  // Two stable counting passes (longitude column, then latitude row): linear in the rows, the
  // counts sized by the grid (1.4 MB and 0.7 MB of Int32).
  const lonOf = new Int32Array(m)
  const latOf = new Int32Array(m)
  const rows = new Int32Array(m)
  m = 0
  for (let r = 0; r < n; r++) {
    if (Number.isNaN(lat[r]!) || Number.isNaN(lon[r]!)) continue
    rows[m] = r
    latOf[m] = latCell(lat[r]!)
    lonOf[m++] = lonCell(lon[r]!)
  }
  const byLon = countingOrder(lonOf, LON_CELLS, null)
  const order = countingOrder(latOf, LAT_CELLS, byLon)
  const perm = new Int32Array(m)
  const keys = new Float64Array(m)
  for (let i = 0; i < m; i++) {
    const k = order[i]!
    perm[i] = rows[k]!
    keys[i] = latOf[k]! * LON_CELLS + lonOf[k]!
  }
  let count = 0
  for (let i = 0; i < m; i++) if (i === 0 || startsRun(i)) count++
  const runs = new Int32Array(count + 1)
  for (let i = 0, k = 0; i < m; i++) if (i === 0 || startsRun(i)) runs[k++] = i
  runs[count] = m
  return { perm, keys, runs }

  function startsRun(i: number): boolean {
    return keys[i] !== keys[i - 1] || lat[perm[i]!] !== lat[perm[i - 1]!] || lon[perm[i]!] !== lon[perm[i - 1]!]
  }
})

/** Indices 0..m-1 (or `within`'s order) stably sorted by cell[i], cell values in [0, cells). */
function countingOrder(cell: Int32Array, cells: number, within: Int32Array | null): Int32Array {
  const m = cell.length
  const start = new Int32Array(cells + 1)
  for (let i = 0; i < m; i++) start[cell[i]! + 1]++
  for (let c = 0; c < cells; c++) start[c + 1] += start[c]!
  const out = new Int32Array(m)
  for (let j = 0; j < m; j++) {
    const i = within ? within[j]! : j
    out[start[cell[i]!]!++] = i
  }
  return out
}

/**
 * Slices of `cells.perm` (flat [start, end, ...], ascending, disjoint, each ascending by row)
 * holding exactly the rows whose position lies within the circle: per latitude row of cells of
 * the circle's latitude band, the cells of its longitude span, and of those the runs whose
 * position passes nearCircle's test (`lat`, `lon`: the photo columns).
 */
export function circleSlices(cells: PositionCells, c: NearCircle, lat: Float64Array, lon: Float64Array): number[] {
  const angle = c.radiusM / MARS_RADIUS_M
  const band = angle * (180 / Math.PI) * (1 + 1e-9) + 1e-9
  const lat0 = latCell(c.lat - band)
  const lat1 = latCell(c.lat + band)
  // Longitude span of a circle: asin(sin(angle) / cos(lat)) on either side, unless the circle
  // reaches a pole (then every longitude).
  const cosLat = Math.cos(((Math.abs(c.lat) + band) * Math.PI) / 180)
  const s = Math.sin(angle) / cosLat
  const lonBand = Math.abs(c.lat) + band >= 90 || !(s < 1) ? 180 : Math.asin(s) * (180 / Math.PI) * (1 + 1e-9) + 1e-9
  const spans: Array<[number, number]> = []
  if (lonBand >= 180) spans.push([0, LON_CELLS - 1])
  else {
    const lo = c.lon - lonBand
    const hi = c.lon + lonBand
    if (lo < 0) spans.push([0, lonCell(hi)], [lonCell(lo + 360), LON_CELLS - 1])
    else if (hi >= 360) spans.push([0, lonCell(hi - 360)], [lonCell(lo), LON_CELLS - 1])
    else spans.push([lonCell(lo), lonCell(hi)])
    // Split spans that meet or cross (a span wider than half the circle) become the whole row.
    if (spans.length === 2 && spans[0]![1] >= spans[1]![0]) spans.splice(0, 2, [0, LON_CELLS - 1])
  }
  const { keys, runs, perm } = cells
  const out: number[] = []
  let from = 0
  for (let row = lat0; row <= lat1; row++) {
    for (const [a, b] of spans) {
      const s0 = firstAtLeast(keys, from, row * LON_CELLS + a)
      const s1 = firstAtLeast(keys, s0, row * LON_CELLS + b + 1)
      from = s1
      if (s1 === s0) continue
      // Runs start at cell boundaries, so s0 and s1 are run starts.
      for (let k = firstRun(runs, s0); runs[k]! < s1; k++) {
        const r = perm[runs[k]!]!
        if (!within(lat[r]!, lon[r]!)) continue
        const start = runs[k]!
        const end = runs[k + 1]!
        // The next run of the same cell continues the slice (rows still ascending).
        if (out.length > 0 && out[out.length - 1] === start && keys[start - 1] === keys[start]) out[out.length - 1] = end
        else out.push(start, end)
      }
    }
  }
  return out

  function within(la: number, lo: number): boolean {
    return la >= c.lat - band && la <= c.lat + band && greatCircleM(c.lon, c.lat, lo, la) <= c.radiusM
  }
}

/** Index of the run that starts at position pos (a run start). */
export function firstRun(runs: Int32Array, pos: number): number {
  let lo = 0
  let hi = runs.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (runs[mid]! < pos) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** First position in keys[from..] whose key is >= k. */
function firstAtLeast(keys: Float64Array, from: number, k: number): number {
  let lo = from
  let hi = keys.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (keys[mid]! < k) lo = mid + 1
    else hi = mid
  }
  return lo
}
