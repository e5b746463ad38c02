import type { Store } from '../store/store'
import { perSnapshot } from '../store/per-snapshot'
import type { PhotoFilters } from './filters'

/**
 * The photo counts of every (rover, sol, camera, earth_date) cell, made once per store snapshot
 * (per snapshot: one pass over the table along by_rover_sol, ~10^5 cells for
 * 1.9M photos). Statistics whose only filters are rovers, cameras, sol and earth_date bounds
 * (the common case) add up the matching cells instead of scanning the matching rows: the same
 * counts, distinct sols and dates, in O(cells). Any other filter goes through the row scan
 * (photo-stats.ts); test/stats.test.ts checks both paths give the same text.
 */
export interface StatsCube {
  /** Cells sorted by (rover, sol rank); parallel arrays. */
  rover: Uint8Array
  /** Dense sol rank (store.paths.rank.sol; distinct.sol when absent). */
  solRank: Int32Array
  /** Sol value, -1 when absent. */
  sol: Int32Array
  camera: Int32Array
  /** earth_date in days, -1 when absent. */
  day: Int32Array
  count: Uint32Array
  /** Cells of rover c are [roverStart[c], roverStart[c + 1]). */
  roverStart: Int32Array
  length: number
  /**
   * The same counts summed per (rover, sol rank), about 5 times fewer cells: answers
   * group_by rover and sol when neither cameras nor earth_date filter.
   */
  sols: SolCells
}

export interface SolCells {
  solRank: Int32Array
  sol: Int32Array
  count: Uint32Array
  /** Earliest and latest earth_date of the cell's photos, -1 when none has one. */
  minDay: Int32Array
  maxDay: Int32Array
  roverStart: Int32Array
}

export const statsCube: (store: Store) => StatsCube = perSnapshot((store) => buildCube(store))

/** Filters the cube answers: nothing but rovers, cameras, sol and earth_date bounds. */
const CUBE_FILTERS = new Set<keyof PhotoFilters>(['rovers', 'cameras', 'sol', 'earthDate'])

export function cubeAnswers(f: PhotoFilters): boolean {
  for (const k of Object.keys(f) as Array<keyof PhotoFilters>) if (f[k] !== undefined && !CUBE_FILTERS.has(k)) return false
  return true
}

function buildCube(store: Store): StatsCube {
  const p = store.photos
  const perm = store.paths.byRoverSol
  const rank = store.paths.rank.sol
  const n = perm.length
  // Cells of one (rover, sol rank) group are few (cameras x one or two dates): a small linear list.
  const out = { rover: [] as number[], solRank: [] as number[], sol: [] as number[], camera: [] as number[], day: [] as number[], count: [] as number[] }
  const gCam: number[] = []
  const gDay: number[] = []
  const gSol: number[] = []
  const gCount: number[] = []
  let i = 0
  while (i < n) {
    const r0 = perm[i]
    const rv = p.rover[r0]
    const k = rank[r0]
    gCam.length = gDay.length = gSol.length = gCount.length = 0
    let j = i
    for (; j < n; j++) {
      const r = perm[j]
      if (p.rover[r] !== rv || rank[r] !== k) break
      const cam = p.camera.codes[r]
      const day = p.earth_date[r] < 0 ? -1 : p.earth_date[r]
      const sol = p.sol[r] < 0 ? -1 : p.sol[r]
      let g = 0
      while (g < gCam.length && (gCam[g] !== cam || gDay[g] !== day || gSol[g] !== sol)) g++
      if (g === gCam.length) { gCam.push(cam); gDay.push(day); gSol.push(sol); gCount.push(0) }
      gCount[g]++
    }
    for (let g = 0; g < gCam.length; g++) {
      out.rover.push(rv); out.solRank.push(k); out.sol.push(gSol[g]); out.camera.push(gCam[g]); out.day.push(gDay[g]); out.count.push(gCount[g])
    }
    i = j
  }
  const length = out.rover.length
  const rover = Uint8Array.from(out.rover)
  const roverStart = new Int32Array(257)
  for (let c = 0, at = 0; c < 256; c++) {
    roverStart[c] = at
    while (at < length && rover[at] === c) at++
    roverStart[c + 1] = at
  }
  const cube = {
    rover, solRank: Int32Array.from(out.solRank), sol: Int32Array.from(out.sol), camera: Int32Array.from(out.camera),
    day: Int32Array.from(out.day), count: Uint32Array.from(out.count), roverStart, length,
  }
  return { ...cube, sols: solCells(cube) }
}

/** Sums the cells of each (rover, sol rank) run (the cells are sorted by it). */
function solCells(c: Omit<StatsCube, 'sols'>): SolCells {
  const solRank: number[] = [], sol: number[] = [], count: number[] = [], minDay: number[] = [], maxDay: number[] = []
  const roverStart = new Int32Array(257)
  for (let rv = 0; rv < 256; rv++) {
    roverStart[rv] = solRank.length
    for (let i = c.roverStart[rv]; i < c.roverStart[rv + 1]; i++) {
      const d = c.day[i]
      const last = solRank.length - 1
      if (solRank.length > roverStart[rv] && solRank[last] === c.solRank[i]) {
        count[last] += c.count[i]
        if (d >= 0 && (minDay[last] < 0 || d < minDay[last])) minDay[last] = d
        if (d > maxDay[last]) maxDay[last] = d
      } else {
        solRank.push(c.solRank[i]); sol.push(c.sol[i]); count.push(c.count[i]); minDay.push(d); maxDay.push(d)
      }
    }
    roverStart[rv + 1] = solRank.length
  }
  return {
    solRank: Int32Array.from(solRank), sol: Int32Array.from(sol), count: Uint32Array.from(count),
    minDay: Int32Array.from(minDay), maxDay: Int32Array.from(maxDay), roverStart,
  }
}

/** What the stats aggregate: the sinks photo-stats.ts fills from rows or from cells. */
export interface StatsTally {
  total: number
  /** [earliest, latest] earth_date of the matches with a date. */
  period: Float64Array
  /** By camera code. */
  byCode: Uint32Array
  roverCounts: Uint32Array
  /** (rover * span + sol rank) -> 1 when the rover has a matching photo that sol. */
  roverSolSeen: Uint8Array
  /** By sol rank. */
  solCounts: Uint32Array
  solFirstDay: Float64Array
}

/**
 * Adds the matching cells to `t` (only when cubeAnswers(f)). Mirrors compileFilters: bounds
 * below 0 are raised to 0, so absent (-1) sols and dates never pass a bound.
 */
export function tallyCube(store: Store, f: PhotoFilters, t: StatsTally, groupBy: 'camera' | 'rover' | 'sol'): void {
  const cube = statsCube(store)
  const span = store.paths.meta.distinct.sol + 1
  const allowedCam = new Uint8Array(Math.max(1, store.photos.camera.dict.length))
  if (f.cameras) {
    const want = new Set(f.cameras)
    store.photos.camera.dict.forEach((name, code) => { if (name !== '' && want.has(name)) allowedCam[code] = 1 })
  } else allowedCam.fill(1)
  const b = new Float64Array(4)
  b[0] = f.sol ? Math.max(0, f.sol.lo) : -Infinity
  b[1] = f.sol ? f.sol.hi : Infinity
  b[2] = f.earthDate ? Math.max(0, f.earthDate.lo) : -Infinity
  b[3] = f.earthDate ? f.earthDate.hi : Infinity
  for (const rv of new Set(f.rovers ?? [0, 1, 2, 3])) {
    if (!(rv >= 0 && rv < 4)) continue
    if (groupBy !== 'camera' && !f.cameras && !f.earthDate) {
      const sc = cube.sols
      tallySolCells(sc, sc.roverStart[rv], sc.roverStart[rv + 1], b, rv, span, groupBy === 'rover', t)
      continue
    }
    const from = cube.roverStart[rv]
    const to = cube.roverStart[rv + 1]
    if (groupBy === 'camera') tallyCameras(cube, from, to, b, allowedCam, t.byCode, t)
    else if (groupBy === 'rover') tallyRover(cube, from, to, b, allowedCam, rv, span, t.roverSolSeen, t)
    else tallySols(cube, from, to, b, allowedCam, t.solCounts, t.solFirstDay, t)
  }
}

// One loop per grouping, each over the cells of one rover with every array in a local: the
// generic form (a grouping switch and object fields in the loop) ran several times slower.
function tallyCameras(c: StatsCube, from: number, to: number, b: Float64Array, allowedCam: Uint8Array, byCode: Uint32Array, t: StatsTally): void {
  const { sol, day, camera, count } = c
  const solLo = b[0], solHi = b[1], dayLo = b[2], dayHi = b[3]
  let lo = t.period[0]
  let hi = t.period[1]
  let total = 0
  for (let i = from; i < to; i++) {
    const s = sol[i]
    const d = day[i]
    const cam = camera[i]
    if (s < solLo || s > solHi || d < dayLo || d > dayHi || allowedCam[cam] === 0) continue
    const n = count[i]
    total += n
    byCode[cam] += n
    if (d >= 0) {
      if (d < lo) lo = d
      if (d > hi) hi = d
    }
  }
  t.total += total
  t.period[0] = lo
  t.period[1] = hi
}

function tallyRover(c: StatsCube, from: number, to: number, b: Float64Array, allowedCam: Uint8Array, rv: number, span: number, seen: Uint8Array, t: StatsTally): void {
  const { sol, day, camera, count, solRank } = c
  const solLo = b[0], solHi = b[1], dayLo = b[2], dayHi = b[3]
  let lo = t.period[0]
  let hi = t.period[1]
  let total = 0
  const base = rv * span
  for (let i = from; i < to; i++) {
    const s = sol[i]
    const d = day[i]
    if (s < solLo || s > solHi || d < dayLo || d > dayHi || allowedCam[camera[i]] === 0) continue
    total += count[i]
    seen[base + solRank[i]] = 1
    if (d >= 0) {
      if (d < lo) lo = d
      if (d > hi) hi = d
    }
  }
  t.total += total
  t.roverCounts[rv] += total
  t.period[0] = lo
  t.period[1] = hi
}

function tallySols(c: StatsCube, from: number, to: number, b: Float64Array, allowedCam: Uint8Array, counts: Uint32Array, firstDay: Float64Array, t: StatsTally): void {
  const { sol, day, camera, count, solRank } = c
  const solLo = b[0], solHi = b[1], dayLo = b[2], dayHi = b[3]
  let lo = t.period[0]
  let hi = t.period[1]
  let total = 0
  for (let i = from; i < to; i++) {
    const s = sol[i]
    const d = day[i]
    if (s < solLo || s > solHi || d < dayLo || d > dayHi || allowedCam[camera[i]] === 0) continue
    const n = count[i]
    const k = solRank[i]
    total += n
    counts[k] += n
    if (d >= 0) {
      if (d < firstDay[k]) firstDay[k] = d
      if (d < lo) lo = d
      if (d > hi) hi = d
    }
  }
  t.total += total
  t.period[0] = lo
  t.period[1] = hi
}

/** group_by rover or sol from the per-(rover, sol) cells (sol bounds only). */
function tallySolCells(c: SolCells, from: number, to: number, b: Float64Array, rv: number, span: number, byRover: boolean, t: StatsTally): void {
  const { sol, count, solRank, minDay, maxDay } = c
  const solLo = b[0], solHi = b[1]
  const seen = t.roverSolSeen
  const counts = t.solCounts
  const firstDay = t.solFirstDay
  let lo = t.period[0]
  let hi = t.period[1]
  let total = 0
  for (let i = from; i < to; i++) {
    const s = sol[i]
    if (s < solLo || s > solHi) continue
    const n = count[i]
    const k = solRank[i]
    total += n
    if (byRover) seen[rv * span + k] = 1
    else counts[k] += n
    const d = minDay[i]
    if (d >= 0) {
      if (!byRover && d < firstDay[k]) firstDay[k] = d
      if (d < lo) lo = d
      if (maxDay[i] > hi) hi = maxDay[i]
    }
  }
  t.total += total
  if (byRover) t.roverCounts[rv] += total
  t.period[0] = lo
  t.period[1] = hi
}
