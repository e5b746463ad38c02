import { lowerBound } from '../page/table-ranges'
import type { Store } from '../../store/store'
import { perSnapshot } from '../../store/per-snapshot'
import type { PhotoFilters } from '../scan/filters'
import { scanMatches } from '../page/run-query'
import { cubeAnswers, DAY_ZONE, statsCube, type StatsCube } from './stats-cube'
import type { GroupBy } from './stats-params'
import { tallyLoop, type StatsTally, type TallyLoop } from './tally-loops'

/**
 * Counts the photos matching `f` for one grouping (the loops: tally-loops.ts). From the stats
 * cube's cells when the filters are only rovers, cameras, sol and earth_date (stats-cube.ts),
 * and then from the per-(rover, sol) cells when a rover or sol grouping has neither a camera
 * nor a date filter; else from the rows the list's plan and scan match. `rowPathOnly` forces
 * the scan (tests compare both). The rover dimension is the store's rover catalogue.
 * The tally's per-sol arrays are reused by the next call (see `scratch`): render it first.
 */
export function tallyStats(store: Store, f: PhotoFilters, groupBy: GroupBy, rowPathOnly = false): StatsTally {
  const rovers = store.rovers.length
  const span = store.paths.meta.distinct.sol + 1
  const t: StatsTally = {
    total: 0,
    period: new Float64Array([Infinity, -Infinity]),
    byCode: new Uint32Array(groupBy === 'camera' ? store.photos.camera.dict.length + 1 : 0),
    roverCounts: new Uint32Array(rovers),
    roverSolSeen: groupBy === 'rover' ? scratch.seen(rovers * span) : EMPTY_U8,
    span,
    solCounts: groupBy === 'sol' ? scratch.counts(span) : EMPTY_U32,
    solFirstDay: groupBy === 'sol' ? scratch.firstDays(span) : EMPTY_F64,
    solRankFrom: 0,
    solRankTo: span,
  }
  if (cubeAnswers(f) && !rowPathOnly) tallyCells(store, f, t, groupBy)
  else tallyRows(store, f, t, groupBy)
  return t
}

const EMPTY_U8 = new Uint8Array(0)
const EMPTY_U32 = new Uint32Array(0)
const EMPTY_F64 = new Float64Array(0)

/**
 * The per-sol arrays (some 60 kB for 5,000 sols) are cleared and reused from one call to the
 * next instead of allocated per request: over a heap holding the whole index, the collections
 * those allocations triggered cost a narrow sol statistic several times its counting. A tally
 * is rendered before the next one starts (photoStats runs both synchronously).
 */
const scratch = {
  seenArr: EMPTY_U8,
  countsArr: EMPTY_U32,
  daysArr: EMPTY_F64,
  seen(n: number): Uint8Array {
    if (this.seenArr.length !== n) this.seenArr = new Uint8Array(n)
    else this.seenArr.fill(0)
    return this.seenArr
  },
  counts(n: number): Uint32Array {
    if (this.countsArr.length !== n) this.countsArr = new Uint32Array(n)
    else this.countsArr.fill(0)
    return this.countsArr
  },
  firstDays(n: number): Float64Array {
    if (this.daysArr.length !== n) this.daysArr = new Float64Array(n)
    this.daysArr.fill(Infinity)
    return this.daysArr
  },
}

/** The photo columns the row loops read, under the names tally-loops.ts binds. */
const rowColumns = perSnapshot((store: Store) => ({
  camera: store.photos.camera.codes,
  solRank: store.paths.rank.sol,
  rover: store.photos.rover,
  day: store.photos.earth_date,
}))

function tallyRows(store: Store, f: PhotoFilters, t: StatsTally, groupBy: GroupBy): void {
  const cols = rowColumns(store)
  const overRows = tallyLoop('rows', groupBy)
  const overRange = tallyLoop('range', groupBy)
  scanMatches(store, f, {
    rows: (rows, n) => overRows(cols, t, 0, n, rows, 0, null, null),
    range: (from, to) => overRange(cols, t, from, to, null, 0, null, null),
  })
}

/**
 * Adds the matching cells of each selected rover (only when cubeAnswers(f)). Mirrors
 * compileFilters: bounds below 0 are raised to 0, so absent (-1) sols and dates never pass one.
 * Per-(rover, sol) cells serve rover and sol groupings without camera or date filters,
 * per-(rover, camera) cells camera groupings without sol or date bounds, the full cells the
 * rest. The cells of a rover are in sol order, so a sol bound narrows them by binary search (and the
 * sol ranks that can hold counts, for the sol groups); a date bound skips the blocks of cells
 * whose dates all miss it (the cube's day zones).
 */
function tallyCells(store: Store, f: PhotoFilters, t: StatsTally, groupBy: GroupBy): void {
  const cube = statsCube(store)
  const cams = new Uint8Array(Math.max(1, store.photos.camera.dict.length))
  if (f.cameras) {
    const want = new Set(f.cameras)
    store.photos.camera.dict.forEach((name, code) => { if (name !== '' && want.has(name)) cams[code] = 1 })
  } else cams.fill(1)
  const b = new Float64Array(4)
  b[0] = f.sol ? Math.max(0, f.sol.lo) : -Infinity
  b[1] = f.sol ? f.sol.hi : Infinity
  b[2] = f.earthDate ? Math.max(0, f.earthDate.lo) : -Infinity
  b[3] = f.earthDate ? f.earthDate.hi : Infinity
  // The smallest cells that still hold what the filters and the grouping read.
  const source = groupBy === 'camera' ? (f.sol || f.earthDate ? 'cells' : 'cameraCells') : f.cameras || f.earthDate ? 'cells' : 'solCells'
  const cells = source === 'cells' ? cube : source === 'solCells' ? cube.sols : cube.cameras
  const loop = tallyLoop(source, groupBy)
  const absent = store.paths.meta.distinct.sol
  let rankFrom = Infinity
  let rankTo = 0
  for (const rv of f.rovers ? new Set(f.rovers) : store.rovers.keys()) {
    if (!(rv >= 0 && rv < store.rovers.length)) continue
    let from = cells.roverStart[rv]
    let to = cells.roverStart[rv + 1]
    if (f.sol && 'sol' in cells) {
      const dated = lowerBound(cells.solRank, from, to, absent)
      from = lowerBound(cells.sol, from, dated, b[0])
      to = lowerBound(cells.sol, from, dated, b[1] + 1)
      if (from === to) continue
      rankFrom = Math.min(rankFrom, cells.solRank[from])
      rankTo = Math.max(rankTo, cells.solRank[to - 1] + 1)
    }
    if (f.earthDate && source === 'cells') tallyDayBlocks(loop, cube, t, from, to, rv, b, cams)
    else loop(cells, t, from, to, null, rv, b, cams)
  }
  if (f.sol) {
    t.solRankFrom = Math.min(rankFrom, rankTo)
    t.solRankTo = rankTo
  }
}

/** Runs `loop` over the stretches of cells [from, to) whose day zones meet the date bounds b[2..3]. */
function tallyDayBlocks(loop: TallyLoop, cube: StatsCube, t: StatsTally, from: number, to: number, rv: number, b: Float64Array, cams: Uint8Array): void {
  const { min, max } = cube.dayZones
  const lo = b[2]
  const hi = b[3]
  let run = -1
  for (let z = (from / DAY_ZONE) | 0; z * DAY_ZONE < to; z++) {
    const start = Math.max(from, z * DAY_ZONE)
    if (min[z] <= hi && max[z] >= lo) {
      if (run < 0) run = start
    } else if (run >= 0) {
      loop(cube, t, run, start, null, rv, b, cams)
      run = -1
    }
  }
  if (run >= 0) loop(cube, t, run, to, null, rv, b, cams)
}
