import type { SortField } from '../../store/access-paths'
import type { PhotoColumns } from '../../store/schema'
import type { Store } from '../../store/store'
import { cameraGroup, roverGroups, roverSpan, type RoverGroups } from './rover-groups'
import { circleSlices, POSITION_SOURCE, positionCells } from './position-cells'
import { relationLists } from './relation-lists'
import type { FilterName, IntRange, PhotoFilters } from '../scan/filters'

/**
 * Access paths: where the rows a query needs to look at come from. Each source is a list of
 * slices of one precomputed permutation (or of the rows themselves), found by binary search,
 * and names the filters it satisfies by construction so they need not run again.
 *
 *  - all rows (the default order);
 *  - (rover, sol range) slices of `by_rover_sol`;
 *  - (rover, camera) row lists of `by_rover_camera` (each in the default order);
 *  - (rover, camera, Earth date range) slices of `by_rover_camera_date`;
 *  - a value range of any sortable field's permutation (sol, earth_date, site, drive, width,
 *    height, Mars time, mast angles), already in that field's order;
 *  - the runs of photos at one position inside a "taken near here" circle (position-cells.ts),
 *    each in the default order;
 *  - the rows with a stereo partner, or of one sequence (relation-lists.ts), in the default order.
 * The planner (run-query.ts) counts on the smallest and walks the one in sort order when that
 * is cheaper.
 */
export interface Source {
  /** Rows are perm[pos] for pos in the slices; null means pos is the row itself. */
  perm: Int32Array | null
  /** Flat [start0, end0, start1, end1, ...], ordered by start. */
  slices: number[]
  size: number
  covers: Set<FilterName>
  /** Every slice is ascending by row, i.e. in the default order. */
  rowOrdered: boolean
  /** The slices are of perm_<field>, so ascending in that field's sort order. */
  field?: SortField
  /** Rows come in an order unrelated to the table's (time) order: reading them is random access. */
  scattered: boolean
  label: string
}

const INF = Number.POSITIVE_INFINITY

/** First position in [lo, hi) where `before(pos)` is false (before must be monotone true..false). */
export function partition(lo: number, hi: number, before: (pos: number) => boolean): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (before(mid)) lo = mid + 1
    else hi = mid
  }
  return lo
}

function sizeOf(slices: number[]): number {
  let s = 0
  for (let i = 0; i < slices.length; i += 2) s += slices[i + 1] - slices[i]
  return s
}

/** Fields whose permutations follow the table's time order closely (rows of one value sit together). */
const CLUSTERED = new Set<SortField>(['sol', 'earth_date', 'date_taken_utc'])

/** A source over `slices` of `perm` (empty slices dropped). */
export function make(perm: Int32Array | null, slices: number[], covers: FilterName[], rowOrdered: boolean, label: string, field?: SortField): Source {
  const nonEmpty: number[] = []
  for (let i = 0; i < slices.length; i += 2) if (slices[i + 1] > slices[i]) nonEmpty.push(slices[i], slices[i + 1])
  const scattered = field !== undefined && !CLUSTERED.has(field)
  return { perm, slices: nonEmpty, size: sizeOf(nonEmpty), covers: new Set(covers), rowOrdered, scattered, field, label }
}

export function allRows(n: number): Source {
  return make(null, [0, n], [], true, 'all')
}

/** Sort key of a never-negative int value: absent (-1) sorts last (+Infinity). */
const intKey = (v: number) => (v < 0 ? INF : v)
/**
 * Range-search keys: absent is NaN, which fails every comparison. Absent rows sit at the end of
 * each permutation, so "key < lo" and "key <= hi" stay monotone and no bound (not even an
 * infinite one) takes them in.
 */
const intRangeKey = (v: number) => (v < 0 ? NaN : v)
const floatKey = (v: number) => v

/** Filters answered by a value range of one field's permutation: the filter, the field, its column (int: absent -1; float: NaN). */
const RANGE_FIELDS: ReadonlyArray<readonly [FilterName, SortField, 'sol' | 'earth_date' | 'site' | 'drive' | 'width' | 'height' | 'mast_elevation' | 'mast_azimuth' | 'sun_elevation']> = [
  ['sol', 'sol', 'sol'],
  ['earthDate', 'earth_date', 'earth_date'],
  ['site', 'site', 'site'],
  ['drive', 'drive', 'drive'],
  ['width', 'width', 'width'],
  ['height', 'height', 'height'],
  ['mastElevation', 'mast_elevation', 'mast_elevation'],
  ['mastAzimuth', 'mast_azimuth', 'mast_azimuth'],
  ['sunElevation', 'sun_elevation', 'sun_elevation'],
]

/**
 * Index sources for a filter plan (cheap: table lookups and binary searches inside one rover's
 * or one (rover, camera)'s group, rover-groups.ts).
 */
export function indexSources(store: Store, f: PhotoFilters, cameraCodes: number[] | undefined): Source[] {
  const p = store.photos
  const paths = store.paths
  const g = roverGroups(store)
  const out: Source[] = []
  // No rover filter: every rover code up to the highest the table holds.
  const rovers = f.rovers ? [...f.rovers].sort((a, b) => a - b) : Array.from({ length: g.rovers }, (_, c) => c)

  // (rover, camera, earth_date) slices: cameras with an Earth date range. When they satisfy every
  // filter and hold few rows, no other source can count or page for less (any order is a select
  // over at most SMALL_COVERED rows), so the others are not looked up.
  const cameraDate = cameraCodes && f.earthDate && paths.byRoverCameraDate ? roverCameraDateSource(p, paths.byRoverCameraDate, g, rovers, cameraCodes, f) : undefined
  if (cameraDate && cameraDate.size <= SMALL_COVERED && coversAll(cameraDate, f)) return [cameraDate]

  // (rover, sol) slices: rovers and/or a sol range.
  if (f.sol || f.rovers) {
    const perm = paths.byRoverSol
    const slices: number[] = []
    for (const c of rovers) {
      const [a, b] = roverSpan(g.solStarts, c)
      if (!f.sol) { slices.push(a, b); continue }
      const lo = Math.max(0, f.sol.lo)
      const hi = f.sol.hi
      const s = partition(a, b, (pos) => intKey(p.sol[perm[pos]]) < lo)
      slices.push(s, partition(s, b, (pos) => intKey(p.sol[perm[pos]]) <= hi))
    }
    const covers: FilterName[] = []
    if (f.rovers) covers.push('rovers')
    if (f.sol) covers.push('sol')
    out.push(make(perm, slices, covers, !!f.sol && f.sol.lo === f.sol.hi, 'rover-sol'))
  }

  // (rover, camera) row lists: cameras, or rovers alone (split per camera so each slice is in default order).
  if (cameraCodes || f.rovers) {
    const codes = cameraCodes ? [...cameraCodes].sort((a, b) => a - b) : p.camera.dict.map((_, i) => i)
    const slices: number[] = []
    for (const c of rovers) for (const code of codes) slices.push(...cameraGroup(g, c, code))
    const covers: FilterName[] = []
    if (f.rovers) covers.push('rovers')
    if (cameraCodes) covers.push('cameras')
    out.push(make(paths.byRoverCamera, slices, covers, true, 'rover-camera'))
  }

  if (cameraDate) out.push(cameraDate)

  // (rover, site, drive) slices: a site range, narrowed to a drive range when the site is one value.
  if (f.site && paths.byRoverSiteDrive && g.siteStarts) out.push(roverSiteDriveSource(p, paths.byRoverSiteDrive, g.siteStarts, rovers, f))

  // A value range over one sortable field's permutation (key functions made only for the filters given).
  for (const [filter, field, col] of RANGE_FIELDS) {
    const range = f[filter] as IntRange | undefined
    if (!range) continue
    const values = p[col] as ArrayLike<number>
    const key = values instanceof Int32Array ? (r: number) => intRangeKey(values[r]) : (r: number) => floatKey(values[r])
    out.push(make(paths.perm[field], valueSlices(paths.perm[field], key, [range]), [filter], false, `perm-${field}`, field))
  }
  if (f.stereo === true || f.sequence !== undefined) {
    const lists = relationLists(store)
    if (f.stereo === true) out.push(make(lists.stereo, [0, lists.stereo.length], ['stereo'], true, 'stereo-rows'))
    if (f.sequence !== undefined) {
      const c = lists.sequenceCode.get(f.sequence)
      const slice = c === undefined ? [0, 0] : [lists.sequenceStarts[c]!, lists.sequenceStarts[c + 1]!]
      out.push(make(lists.bySequence, slice, ['sequence'], true, 'sequence-rows'))
    }
  }
  if (f.near) {
    const cells = positionCells(store)
    out.push(make(cells.perm, circleSlices(cells, f.near, p.lat, p.lon), ['near'], true, POSITION_SOURCE))
  }
  if (f.marsTime) {
    const perm = paths.perm.date_taken_mars
    const key = (r: number) => intRangeKey(p.mars_time_ms[r])
    out.push(make(perm, valueSlices(perm, key, f.marsTime), ['marsTime'], false, 'perm-date_taken_mars', 'date_taken_mars'))
  }
  return out
}

/** A source satisfying every filter with at most this many rows is the only one a plan needs. */
const SMALL_COVERED = 1024

/** Every filter the plan holds is one the source satisfies by construction. */
function coversAll(src: Source, f: PhotoFilters): boolean {
  for (const name of Object.keys(f) as FilterName[]) if (f[name] !== undefined && !src.covers.has(name)) return false
  return true
}

/** A date range of at most this many days is cut into one row-ordered slice per day (walkable in the default order). */
const DAY_SLICES = 64

/**
 * Slices of by_rover_camera_date: per selected (rover, camera), the rows dated within the range
 * (absent dates sort last within the group and never pass a bound). Every filter of the shape
 * cameras + earth_date (+ rovers) is satisfied by construction, so the count is the slices'
 * size. The rows of one (rover, camera, day) are in row order, that is the default order: a
 * range of a few days is cut per day so the page can be merged from the day slices instead of
 * selected from every match.
 */
function roverCameraDateSource(p: PhotoColumns, perm: Int32Array, g: RoverGroups, rovers: number[], codes: number[], f: PhotoFilters): Source {
  const { lo, hi } = f.earthDate!
  const days = hi - lo + 1
  const perDay = days > 0 && days <= DAY_SLICES
  const date = (pos: number) => intRangeKey(p.earth_date[perm[pos]])
  const slices: number[] = []
  const sorted = [...codes].sort((a, b) => a - b)
  for (const c of rovers) {
    for (const code of sorted) {
      const [a, b] = cameraGroup(g, c, code)
      const s = partition(a, b, (pos) => date(pos) < lo)
      const e = partition(s, b, (pos) => date(pos) <= hi)
      if (!perDay || e === s) { slices.push(s, e); continue }
      let from = s
      for (let day = lo; day < hi && from < e; day++) {
        const to = partition(from, e, (pos) => date(pos) <= day)
        slices.push(from, to)
        from = to
      }
      slices.push(from, e)
    }
  }
  const covers: FilterName[] = ['cameras', 'earthDate']
  if (f.rovers) covers.push('rovers')
  return make(perm, slices, covers, perDay, 'rover-camera-date')
}

/**
 * Slices of by_rover_site_drive, one per rover: (rover, site in range) or, when the site range
 * is one value and a drive range is given, (rover, that site, drive in range). Keys are
 * intRangeKey values: absent (NaN) sorts last within each rover and never passes a bound.
 * The rows of one (rover, site) visit sit close together in the table, so reading them is not
 * scattered.
 */
function roverSiteDriveSource(p: PhotoColumns, perm: Int32Array, starts: Int32Array, rovers: number[], f: PhotoFilters): Source {
  const site = f.site!
  const siteLo = Math.max(0, site.lo)
  const drive = siteLo === site.hi ? f.drive : undefined
  const driveLo = drive ? Math.max(0, drive.lo) : 0
  const slices: number[] = []
  for (const c of rovers) {
    const [a, b] = roverSpan(starts, c)
    // Positions of rover c before the lower bound's key, and up to the upper bound's key.
    const below = (pos: number, upper: boolean) => {
      const r = perm[pos]
      const s = intRangeKey(p.site[r])
      if (!drive) return upper ? s <= site.hi : s < siteLo
      if (s !== siteLo) return s < siteLo
      const d = intRangeKey(p.drive[r])
      return upper ? d <= drive.hi : d < driveLo
    }
    const s = partition(a, b, (pos) => below(pos, false))
    const e = partition(s, b, (pos) => below(pos, true))
    slices.push(s, e)
  }
  const covers: FilterName[] = ['site']
  if (f.rovers) covers.push('rovers')
  if (drive) covers.push('drive')
  const oneGroup = drive !== undefined && driveLo === drive.hi
  return make(perm, slices, covers, oneGroup, 'rover-site-drive')
}

/** Slices of `perm` (ascending by key, absent last) holding keys within any of the ranges. */
function valueSlices(perm: Int32Array, key: (row: number) => number, ranges: IntRange[]): number[] {
  const slices: number[] = []
  const sorted = ranges.filter((r) => r.lo <= r.hi).sort((a, b) => a.lo - b.lo)
  for (const { lo, hi } of sorted) {
    const s = partition(0, perm.length, (pos) => key(perm[pos]) < lo)
    const e = partition(s, perm.length, (pos) => key(perm[pos]) <= hi)
    if (e > s) slices.push(s, e)
  }
  // Overlapping ranges (never produced by the parser, but cheap to guard) would repeat rows.
  for (let i = 2; i < slices.length; i += 2) if (slices[i] < slices[i - 1]) slices[i] = slices[i - 1]
  return slices
}
