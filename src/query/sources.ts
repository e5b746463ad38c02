import { NASA_GRAM_BLOCK, gramBit, type AccessPaths, type SortField } from '../store/access-paths'
import type { PhotoColumns } from '../store/schema'
import type { FilterName, IntRange, PhotoFilters } from './filters'

/**
 * Access paths: where the rows a query needs to look at come from. Each source is a list of
 * slices of one precomputed permutation (or of the rows themselves), found by binary search,
 * and names the filters it satisfies by construction so they need not run again.
 *
 *  - all rows (the default order);
 *  - (rover, sol range) slices of `by_rover_sol`;
 *  - (rover, camera) row lists of `by_rover_camera` (each in the default order);
 *  - a value range of any sortable field's permutation (sol, earth_date, site, drive, width,
 *    height, Mars time, mast angles), already in that field's order.
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

function make(perm: Int32Array | null, slices: number[], covers: FilterName[], rowOrdered: boolean, label: string, field?: SortField): Source {
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

interface RangeField {
  filter: FilterName
  field: SortField
  key: (row: number) => number
}

/** Index sources for a filter plan (cheap: binary searches only). */
export function indexSources(p: PhotoColumns, paths: AccessPaths, f: PhotoFilters, cameraCodes: number[] | undefined): Source[] {
  const out: Source[] = []
  // No rover filter: every rover code up to the highest the table holds (by_rover_sol ends with it).
  const n = paths.byRoverSol.length
  const rovers = f.rovers ?? Array.from({ length: n > 0 ? p.rover[paths.byRoverSol[n - 1]] + 1 : 0 }, (_, c) => c)

  // (rover, sol) slices: rovers and/or a sol range.
  if (f.sol || f.rovers) {
    const perm = paths.byRoverSol
    const solLo = f.sol ? Math.max(0, f.sol.lo) : -INF
    const solHi = f.sol ? f.sol.hi : INF
    const slices: number[] = []
    for (const c of [...rovers].sort((a, b) => a - b)) {
      const before = (pos: number, bound: number, strict: boolean) => {
        const r = perm[pos]
        const rv = p.rover[r]
        if (rv !== c) return rv < c
        const k = intKey(p.sol[r])
        return strict ? k <= bound : k < bound
      }
      const s = partition(0, perm.length, (pos) => before(pos, solLo, false))
      const e = partition(s, perm.length, (pos) => before(pos, solHi, true))
      slices.push(s, e)
    }
    const covers: FilterName[] = []
    if (f.rovers) covers.push('rovers')
    if (f.sol) covers.push('sol')
    out.push(make(perm, slices, covers, !!f.sol && f.sol.lo === f.sol.hi, 'rover-sol'))
  }

  // (rover, camera) row lists: cameras, or rovers alone (split per camera so each slice is in default order).
  if (cameraCodes || f.rovers) {
    const perm = paths.byRoverCamera
    const codes = cameraCodes ?? p.camera.dict.map((_, i) => i)
    const slices: number[] = []
    for (const c of [...rovers].sort((a, b) => a - b)) {
      for (const code of [...codes].sort((a, b) => a - b)) {
        const before = (pos: number, strict: boolean) => {
          const r = perm[pos]
          const rv = p.rover[r]
          if (rv !== c) return rv < c
          const cv = p.camera.codes[r]
          return strict ? cv <= code : cv < code
        }
        const s = partition(0, perm.length, (pos) => before(pos, false))
        const e = partition(s, perm.length, (pos) => before(pos, true))
        slices.push(s, e)
      }
    }
    const covers: FilterName[] = []
    if (f.rovers) covers.push('rovers')
    if (cameraCodes) covers.push('cameras')
    out.push(make(perm, slices, covers, true, 'rover-camera'))
  }

  // (rover, site, drive) slices: a site range, narrowed to a drive range when the site is one value.
  if (f.site && paths.byRoverSiteDrive) out.push(roverSiteDriveSource(p, paths.byRoverSiteDrive, rovers, f))

  // A value range over one sortable field's permutation.
  const ranges: Array<[RangeField, IntRange | undefined]> = [
    [{ filter: 'sol', field: 'sol', key: (r) => intRangeKey(p.sol[r]) }, f.sol],
    [{ filter: 'earthDate', field: 'earth_date', key: (r) => intRangeKey(p.earth_date[r]) }, f.earthDate],
    [{ filter: 'site', field: 'site', key: (r) => intRangeKey(p.site[r]) }, f.site],
    [{ filter: 'drive', field: 'drive', key: (r) => intRangeKey(p.drive[r]) }, f.drive],
    [{ filter: 'width', field: 'width', key: (r) => intRangeKey(p.width[r]) }, f.width],
    [{ filter: 'height', field: 'height', key: (r) => intRangeKey(p.height[r]) }, f.height],
    [{ filter: 'mastElevation', field: 'mast_elevation', key: (r) => floatKey(p.mast_elevation[r]) }, f.mastElevation],
    [{ filter: 'mastAzimuth', field: 'mast_azimuth', key: (r) => floatKey(p.mast_azimuth[r]) }, f.mastAzimuth],
  ]
  for (const [rf, range] of ranges) {
    if (!range) continue
    out.push(make(paths.perm[rf.field], valueSlices(paths.perm[rf.field], rf.key, [range]), [rf.filter], false, `perm-${rf.field}`, rf.field))
  }
  if (f.marsTime) {
    const perm = paths.perm.date_taken_mars
    const key = (r: number) => intRangeKey(p.mars_time_ms[r])
    out.push(make(perm, valueSlices(perm, key, f.marsTime), ['marsTime'], false, 'perm-date_taken_mars', 'date_taken_mars'))
  }
  return out
}

/**
 * Slices of by_rover_site_drive, one per rover: (rover, site in range) or, when the site range
 * is one value and a drive range is given, (rover, that site, drive in range). Keys are
 * intRangeKey values: absent (NaN) sorts last within each rover and never passes a bound.
 * The rows of one (rover, site) visit sit close together in the table, so reading them is not
 * scattered.
 */
function roverSiteDriveSource(p: PhotoColumns, perm: Int32Array, rovers: number[], f: PhotoFilters): Source {
  const site = f.site!
  const siteLo = Math.max(0, site.lo)
  const drive = siteLo === site.hi ? f.drive : undefined
  const driveLo = drive ? Math.max(0, drive.lo) : 0
  const slices: number[] = []
  for (const c of [...rovers].sort((a, b) => a - b)) {
    // Positions before the (c, lower bound) key, and up to the (c, upper bound) key.
    const below = (pos: number, upper: boolean) => {
      const r = perm[pos]
      const rv = p.rover[r]
      if (rv !== c) return rv < c
      const s = intRangeKey(p.site[r])
      if (!drive) return upper ? s <= site.hi : s < siteLo
      if (s !== siteLo) return s < siteLo
      const d = intRangeKey(p.drive[r])
      return upper ? d <= drive.hi : d < driveLo
    }
    const s = partition(0, perm.length, (pos) => below(pos, false))
    const e = partition(s, perm.length, (pos) => below(pos, true))
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

/**
 * The nasa_id substring as a source: native byte searches (memmem speed) over the folded
 * column, restricted to the row blocks whose trigram bitset (nasa_grams) holds every trigram of
 * the needle, each hit mapped back to its row. Rows come out ascending (default order).
 */
export function nasaIdSource(paths: AccessPaths, needle: string): Source {
  const { data, offsets } = paths.nasaIdFolded
  const n = offsets.length - 1
  const hay = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  const nd = Buffer.from(needle, 'utf8')
  const rows: number[] = []
  const search = (rowFrom: number, rowTo: number) => {
    const start = offsets[rowFrom]
    const view = hay.subarray(start, offsets[rowTo])
    let row = rowFrom
    let pos = view.indexOf(nd, 0)
    while (pos >= 0) {
      const abs = start + pos
      row = rowAt(offsets, row, n, abs)
      let next = pos + 1
      if (abs + nd.length <= offsets[row + 1]) {
        rows.push(row)
        next = offsets[row + 1] - start
      }
      if (next >= view.length) break
      pos = view.indexOf(nd, next)
    }
  }
  if (nd.length > 0) {
    const grams = nd.length >= 3 && paths.nasaGrams ? needleGrams(nd) : undefined
    if (!grams) search(0, n)
    else {
      const bitsets = paths.nasaGrams!
      let runFrom = -1
      for (let b0 = 0; b0 < n; b0 += NASA_GRAM_BLOCK) {
        const rowsIn = Math.min(NASA_GRAM_BLOCK, n - b0)
        const bits = rowsIn * 64
        const base = b0 * 8
        let all = true
        for (let g = 0; g < grams.length; g += 3) {
          const bit = gramBit(grams[g], grams[g + 1], grams[g + 2], bits)
          if ((bitsets[base + (bit >>> 3)] & (1 << (bit & 7))) === 0) { all = false; break }
        }
        if (all) { if (runFrom < 0) runFrom = b0 }
        else if (runFrom >= 0) { search(runFrom, b0); runFrom = -1 }
      }
      if (runFrom >= 0) search(runFrom, n)
    }
  }
  const perm = Int32Array.from(rows)
  return make(perm, [0, perm.length], ['nasaId'], true, 'nasa-id-search')
}

/** The distinct byte trigrams of a needle, flat [a, b, c, ...]. */
function needleGrams(nd: Uint8Array): number[] {
  const seen = new Set<number>()
  const out: number[] = []
  for (let i = 0; i + 2 < nd.length; i++) {
    const k = (nd[i] << 16) | (nd[i + 1] << 8) | nd[i + 2]
    if (!seen.has(k)) { seen.add(k); out.push(nd[i], nd[i + 1], nd[i + 2]) }
  }
  return out
}

/** The row holding byte `pos`: the largest r >= from with offsets[r] <= pos (galloping search). */
function rowAt(offsets: Int32Array, from: number, n: number, pos: number): number {
  let lo = from
  let step = 1
  let hi = lo + 1
  while (hi < n && offsets[hi] <= pos) {
    lo = hi
    step *= 2
    hi = lo + step
  }
  if (hi > n) hi = n
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1
    if (offsets[mid] <= pos) lo = mid
    else hi = mid
  }
  return lo
}
