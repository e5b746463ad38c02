import type { Store } from '../../store/store'
import { perSnapshot } from '../../store/per-snapshot'
import type { PhotoFilters } from '../filters'
import { scanMatches } from '../run-query'
import { cubeAnswers, statsCube } from './stats-cube'
import type { GroupBy } from './stats-params'
import { tallyLoop, type StatsTally } from './tally-loops'

/**
 * Counts the photos matching `f` for one grouping (the loops: tally-loops.ts). From the stats
 * cube's cells when the filters are only rovers, cameras, sol and earth_date (stats-cube.ts),
 * and then from the per-(rover, sol) cells when a rover or sol grouping has neither a camera
 * nor a date filter; else from the rows the list's plan and scan match. `rowPathOnly` forces
 * the scan (tests compare both). The rover dimension is the store's rover catalogue.
 */
export function tallyStats(store: Store, f: PhotoFilters, groupBy: GroupBy, rowPathOnly = false): StatsTally {
  const rovers = store.rovers.length
  const span = store.paths.meta.distinct.sol + 1
  const t: StatsTally = {
    total: 0,
    period: new Float64Array([Infinity, -Infinity]),
    byCode: new Uint32Array(groupBy === 'camera' ? store.photos.camera.dict.length + 1 : 0),
    roverCounts: new Uint32Array(rovers),
    roverSolSeen: new Uint8Array(groupBy === 'rover' ? rovers * span : 0),
    span,
    solCounts: new Uint32Array(groupBy === 'sol' ? span : 0),
    solFirstDay: groupBy === 'sol' ? new Float64Array(span).fill(Infinity) : new Float64Array(0),
  }
  if (cubeAnswers(f) && !rowPathOnly) tallyCells(store, f, t, groupBy)
  else tallyRows(store, f, t, groupBy)
  return t
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
  const bySol = groupBy !== 'camera' && !f.cameras && !f.earthDate
  const cells = bySol ? cube.sols : cube
  const loop = tallyLoop(bySol ? 'solCells' : 'cells', groupBy)
  for (const rv of f.rovers ? new Set(f.rovers) : store.rovers.keys()) {
    if (!(rv >= 0 && rv < store.rovers.length)) continue
    loop(cells, t, cells.roverStart[rv], cells.roverStart[rv + 1], null, rv, b, cams)
  }
}
