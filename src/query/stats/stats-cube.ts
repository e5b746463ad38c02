import type { Store } from '../../store/store'
import { perSnapshot } from '../../store/per-snapshot'
import type { PhotoFilters } from '../scan/filters'

/**
 * The photo counts of every (rover, sol, camera, earth_date) cell, made once per store snapshot
 * (per snapshot: one pass over the table along by_rover_sol, ~10^5 cells for
 * 1.9M photos). Statistics whose only filters are rovers, cameras, sol and earth_date bounds
 * (the common case) add up the matching cells instead of scanning the matching rows: the same
 * counts, distinct sols and dates, in O(cells). Any other filter goes through the row scan
 * (stats-tally.ts); test/stats.test.ts checks both paths give the same text.
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
  /**
   * The same counts summed per (rover, camera code): answers group_by camera when neither sol
   * nor earth_date bounds filter (a few dozen cells instead of ~10^4 per rover).
   */
  cameras: CameraCells
  /** Earliest and latest present earth_date per block of DAY_ZONE cells (cells [b * DAY_ZONE, ...)). */
  dayZones: DayZones
}

/** Cells per zone of `dayZones`: a date window of a month skips all but a few blocks of a rover's ~10^4 cells. */
export const DAY_ZONE = 32

export interface DayZones {
  /** Of the block's cells with a date; a block without any has min > max. */
  min: Int32Array
  max: Int32Array
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

export interface CameraCells {
  camera: Int32Array
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
  return { ...cube, sols: solCells(cube), cameras: cameraCells(cube, store.photos.camera.dict.length), dayZones: dayZones(cube.day) }
}

function dayZones(day: Int32Array): DayZones {
  const blocks = Math.ceil(day.length / DAY_ZONE)
  const min = new Int32Array(blocks).fill(2_147_483_647)
  const max = new Int32Array(blocks).fill(-1)
  for (let i = 0; i < day.length; i++) {
    const d = day[i]
    if (d < 0) continue
    const b = (i / DAY_ZONE) | 0
    if (d < min[b]) min[b] = d
    if (d > max[b]) max[b] = d
  }
  return { min, max }
}

type Cells = Omit<StatsCube, 'sols' | 'cameras' | 'dayZones'>

/** Sums the cells of each rover by camera code, in code order. */
function cameraCells(c: Cells, codes: number): CameraCells {
  const camera: number[] = [], count: number[] = [], minDay: number[] = [], maxDay: number[] = []
  const roverStart = new Int32Array(257)
  const n = new Float64Array(codes)
  const lo = new Int32Array(codes)
  const hi = new Int32Array(codes)
  for (let rv = 0; rv < 256; rv++) {
    roverStart[rv] = camera.length
    n.fill(0)
    lo.fill(-1)
    hi.fill(-1)
    for (let i = c.roverStart[rv]; i < c.roverStart[rv + 1]; i++) {
      const k = c.camera[i]
      const d = c.day[i]
      n[k] += c.count[i]
      if (d >= 0 && (lo[k] < 0 || d < lo[k])) lo[k] = d
      if (d > hi[k]) hi[k] = d
    }
    for (let k = 0; k < codes; k++) {
      if (n[k] === 0) continue
      camera.push(k); count.push(n[k]); minDay.push(lo[k]); maxDay.push(hi[k])
    }
    roverStart[rv + 1] = camera.length
  }
  return { camera: Int32Array.from(camera), count: Uint32Array.from(count), minDay: Int32Array.from(minDay), maxDay: Int32Array.from(maxDay), roverStart }
}

/** Sums the cells of each (rover, sol rank) run (the cells are sorted by it). */
function solCells(c: Cells): SolCells {
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
