import { greatCircleM, MARS_RADIUS_M } from '../../geo/great-circle'
import type { DictColumn, PhotoColumns, Utf8Column } from '../../store/schema'

/**
 * The photo filters, each defined once: a filter is its row test written as a small JS
 * expression template over named arguments, plus the values it reads (columns, bounds). Every
 * loop that runs filters — over a row list, over a stretch of the table, over a slice of a
 * permutation, one filter or several fused — is generated from these templates (row-test.ts),
 * so a predicate exists in exactly one place and each generated loop stays monomorphic.
 *
 * The templates hold only static code: request values reach the generated loops as arguments
 * (numbers and arrays), never as text, so a request cannot change the code and equal shapes
 * share one compiled loop.
 *
 * Absent values never pass a bound: integer columns hold -1 and every lower bound is >= 0,
 * float columns hold NaN (every comparison false), strings hold "".
 */
export interface Filter {
  /** Which code the template makes: equal shapes make equal code (array element types included). */
  readonly shape: string
  /** The values the test reads, in the order of the argument names `code` receives. */
  readonly args: readonly unknown[]
  /** Row `r`'s test as a boolean expression over the argument names given. */
  code(a: readonly string[]): string
  /** The same test as a 0/1 number without a comparison, when the filter has one (a lone filter adds it as is). */
  bit?(a: readonly string[]): string
}

/** The typed filter plan of a photo query (parsed and validated, see photo-params.ts). */
export interface PhotoFilters {
  /** Needle for the case-insensitive substring match, already lower-cased. */
  nasaId?: string
  /** Rover codes (index into ROVERS). */
  rovers?: number[]
  /** Camera names, upper-case. */
  cameras?: string[]
  /** Inclusive integer ranges; lo > hi means "nothing matches". */
  sol?: IntRange
  earthDate?: IntRange
  site?: IntRange
  drive?: IntRange
  width?: IntRange
  height?: IntRange
  /** Union of inclusive intervals of mars_time_ms (time of day in ms). */
  marsTime?: IntRange[]
  /** Canonical sample types, lower-cased for the case-insensitive match. */
  sampleTypes?: string[]
  /** width/height, inclusive. */
  aspectRatio?: FloatRange
  /**
   * Angles in degrees, inclusive, as bounds on their float32 columns: the parser turns a bound on
   * the served text into the float32 values whose text it keeps (store/float32-text-exact.ts).
   */
  mastElevation?: FloatRange
  mastAzimuth?: FloatRange
  /** Degrees above the horizon, as the angles above: sun_elevation_min/max and golden hour (−4 … 6) by AND. */
  sunElevation?: FloatRange
  /** true: photos with a stereo partner; false: photos without one. */
  stereo?: boolean
  /** Observation sequence id, exactly as served (`curiosity-3027-TRAV00928`). */
  sequence?: string
  /** Taken within `radiusM` metres (great circle) of a position; photos without a position never pass. */
  near?: NearCircle
  /** Photos of every sol but this one (photos without a sol pass). */
  excludeSol?: number
  /** ms since the Unix epoch, inclusive (the parser turns `since` into its next millisecond). */
  addedAt?: FloatRange
  dateReceived?: FloatRange
}

/** A circle on the Mars sphere: planetocentric latitude, east longitude (degrees), radius in metres. */
export interface NearCircle { lat: number; lon: number; radiusM: number }

export interface IntRange { lo: number; hi: number }
export interface FloatRange { lo: number; hi: number }

export type FilterName = keyof PhotoFilters

type NumberColumn = Int32Array | Float32Array | Float64Array

/** Element type of an array, part of a shape: one compiled loop per element type stays monomorphic. */
const typeOf = (a: ArrayLike<number>) => a.constructor.name

/** lo <= value <= hi over an integer or float column. */
export function valueRange(col: NumberColumn, lo: number, hi: number): Filter {
  return { shape: `range-${typeOf(col)}`, args: [col, lo, hi], code: ([c, l, h]) => `${c}[r] >= ${l} && ${c}[r] <= ${h}` }
}

/** An integer range filter (absent is -1: a lower bound below 0 would let it in, so it starts at 0). */
export function intRange(col: Int32Array, r: IntRange): Filter {
  return valueRange(col, Math.max(r.lo, 0), r.hi)
}

/** The value lies in one of several inclusive intervals (Mars time windows; none: nothing passes). */
export function intervals(col: Int32Array, ranges: IntRange[]): Filter {
  const k = ranges.length
  const args: unknown[] = [col]
  for (const r of ranges) args.push(r.lo, r.hi)
  return {
    shape: `intervals${k}`,
    args,
    code: ([c, ...b]) => (k === 0 ? 'false' : Array.from({ length: k }, (_, j) => `(${c}[r] >= ${b[2 * j]} && ${c}[r] <= ${b[2 * j + 1]})`).join(' || ')),
  }
}

/** The row's dictionary (or rover) code is allowed (allowed[code] is 1). */
export function codeSet(codes: DictColumn['codes'], allowed: Uint8Array): Filter {
  return { shape: `codes-${typeOf(codes)}`, args: [codes, allowed], code: ([c, ok]) => `${ok}[${c}[r]] !== 0`, bit: ([c, ok]) => `${ok}[${c}[r]]` }
}

/**
 * width / height within [lo, hi]; rows without both dimensions (width < 0 or height <= 0) never pass.
 * With `ratio`, the precomputed fround(width / height) column (access paths, NaN without both),
 * the test reads 4 bytes a row instead of two columns and a division. fround is monotone, so with
 * L = fround(lo), H = fround(hi): L < f < H implies lo <= width/height <= hi, f < L or f > H
 * excludes the row, and only f equal to L or H needs the exact test.
 */
export function aspectRatio(width: Int32Array, height: Int32Array, lo: number, hi: number, ratio?: Float32Array): Filter {
  if (ratio) {
    return {
      shape: 'aspect-column',
      args: [ratio, Math.fround(lo), Math.fround(hi), width, height, lo, hi],
      code: ([q, L, H, w, h, l, u]) => `${q}[r] >= ${L} && ${q}[r] <= ${H} && ((${q}[r] !== ${L} && ${q}[r] !== ${H}) || (${w}[r] / ${h}[r] >= ${l} && ${w}[r] / ${h}[r] <= ${u}))`,
    }
  }
  return {
    shape: 'aspect',
    args: [width, height, lo, hi],
    code: ([w, h, l, u]) => `${w}[r] >= 0 && ${h}[r] > 0 && ${w}[r] / ${h}[r] >= ${l} && ${w}[r] / ${h}[r] <= ${u}`,
  }
}

/** Case-insensitive substring of nasa_id, tested on the pre-folded bytes (access paths). */
export function substring(folded: Utf8Column, needle: Uint8Array): Filter {
  if (needle.length === 0) return none()
  return { shape: 'substring', args: [holdsAt, folded.data, folded.offsets, needle], code: ([holds, d, o, nd]) => `${holds}(${d}, ${o}, ${nd}, r)` }
}

/** Whether row r's bytes (data[offsets[r]..offsets[r+1])) contain the non-empty needle. */
function holdsAt(data: Uint8Array, offsets: Int32Array, nd: Uint8Array, r: number): boolean {
  const k = nd.length
  const first = nd[0]
  const end = offsets[r + 1] - k
  for (let a = offsets[r]; a <= end; a++) {
    if (data[a] !== first) continue
    let j = 1
    while (j < k && data[a + j] === nd[j]) j++
    if (j === k) return true
  }
  return false
}

/**
 * Taken within the circle: the great-circle distance of the photo's position (lat/lon columns,
 * NaN unknown) from the centre is at most the radius. A latitude band first (a great circle is
 * never shorter than its north-south part), so the distance is computed only for rows near the
 * centre's latitude.
 */
export function nearCircle(lat: Float64Array, lon: Float64Array, c: NearCircle): Filter {
  const band = (c.radiusM / MARS_RADIUS_M) * (180 / Math.PI) * (1 + 1e-9) + 1e-9
  return {
    shape: 'near',
    args: [withinM, lat, lon, c.lat - band, c.lat + band, c.lat, c.lon, c.radiusM],
    code: ([w, la, lo, b0, b1, y, x, m]) => `${la}[r] >= ${b0} && ${la}[r] <= ${b1} && ${w}(${la}[r], ${lo}[r], ${y}, ${x}, ${m})`,
  }
}

/**
 * Photos are taken by the hundred at one stop (one position), and the rows of a stop sit together
 * in the table and in the position cells: the distance of the last position is kept, so a run
 * of photos of one place costs one great circle.
 */
let memoLat = NaN
let memoLon = NaN
let memoLat0 = NaN
let memoLon0 = NaN
let memoM = NaN

function withinM(lat: number, lon: number, lat0: number, lon0: number, radiusM: number): boolean {
  if (lat !== memoLat || lon !== memoLon || lat0 !== memoLat0 || lon0 !== memoLon0) {
    memoLat = lat
    memoLon = lon
    memoLat0 = lat0
    memoLon0 = lon0
    memoM = greatCircleM(lon0, lat0, lon, lat)
  }
  return memoM <= radiusM
}

/** The value differs from v. */
export function notValue(col: Int32Array, v: number): Filter {
  return { shape: 'not-value', args: [col, v], code: ([c, x]) => `${c}[r] !== ${x}` }
}

/** Keeps nothing (a filter whose bounds exclude every value). */
export function none(): Filter {
  return { shape: 'none', args: [], code: () => 'false' }
}

/** The compiled filters of a plan, by name, or `empty` when a bound excludes everything up front. */
export interface CompiledFilters {
  byName: Map<FilterName, Filter>
  empty: boolean
}

export function compileFilters(p: PhotoColumns, folded: Utf8Column, f: PhotoFilters, ratio?: Float32Array): CompiledFilters {
  const byName = new Map<FilterName, Filter>()
  let empty = false
  const int = (name: FilterName, col: Int32Array, r: IntRange | undefined) => {
    if (!r) return
    if (Math.max(r.lo, 0) > r.hi) empty = true
    byName.set(name, intRange(col, r))
  }
  const float = (name: FilterName, col: Float32Array | Float64Array, r: FloatRange | undefined) => {
    if (!r) return
    if (!(r.lo <= r.hi)) empty = true
    byName.set(name, valueRange(col, r.lo, r.hi))
  }
  if (f.nasaId !== undefined) byName.set('nasaId', substring(folded, new TextEncoder().encode(f.nasaId)))
  if (f.rovers) {
    const allowed = new Uint8Array(256)
    for (const c of f.rovers) allowed[c] = 1
    byName.set('rovers', codeSet(p.rover, allowed))
  }
  if (f.cameras) {
    const allowed = dictMask(p.camera.dict, new Set(f.cameras), (s) => s)
    if (!allowed.includes(1)) empty = true
    byName.set('cameras', codeSet(p.camera.codes, allowed))
  }
  int('sol', p.sol, f.sol)
  int('earthDate', p.earth_date, f.earthDate)
  int('site', p.site, f.site)
  int('drive', p.drive, f.drive)
  int('width', p.width, f.width)
  int('height', p.height, f.height)
  if (f.marsTime) {
    const ranges = f.marsTime.filter((r) => r.lo <= r.hi).map((r) => ({ lo: Math.max(0, r.lo), hi: r.hi }))
    if (ranges.length === 0) empty = true
    byName.set('marsTime', intervals(p.mars_time_ms, ranges))
  }
  if (f.sampleTypes) {
    const allowed = dictMask(p.sample_type.dict, new Set(f.sampleTypes), (s) => s.toLowerCase())
    if (!allowed.includes(1)) empty = true
    byName.set('sampleTypes', codeSet(p.sample_type.codes, allowed))
  }
  if (f.aspectRatio) {
    if (!(f.aspectRatio.lo <= f.aspectRatio.hi)) empty = true
    byName.set('aspectRatio', aspectRatio(p.width, p.height, f.aspectRatio.lo, f.aspectRatio.hi, ratio))
  }
  float('mastElevation', p.mast_elevation, f.mastElevation)
  float('mastAzimuth', p.mast_azimuth, f.mastAzimuth)
  float('sunElevation', p.sun_elevation, f.sunElevation)
  // A photo's partner is its id (never negative), -1 without one.
  if (f.stereo !== undefined) byName.set('stereo', f.stereo ? valueRange(p.stereo_partner, 0, 2_147_483_647) : valueRange(p.stereo_partner, -1, -1))
  if (f.sequence !== undefined) {
    // One code of a dictionary of tens of thousands of sequences: looked up, not masked.
    const code = codeOf(p.sequence.dict, f.sequence)
    if (code < 0) empty = true
    byName.set('sequence', equalTo(p.sequence.codes, code))
  }
  if (f.near) byName.set('near', nearCircle(p.lat, p.lon, f.near))
  if (f.excludeSol !== undefined) byName.set('excludeSol', notValue(p.sol, f.excludeSol))
  if (f.addedAt && p.added_at) float('addedAt', p.added_at, f.addedAt)
  float('dateReceived', p.date_received, f.dateReceived)
  return { byName, empty }
}

/** The row's code is `code`. */
function equalTo(codes: DictColumn['codes'], code: number): Filter {
  return { shape: `eq-${typeOf(codes)}`, args: [codes, code], code: ([c, x]) => `${c}[r] === ${x}` }
}

/** Code of each value of a dictionary ("" has none), made once per dictionary (a snapshot's column). */
const codeMaps = new WeakMap<string[], Map<string, number>>()

/** Code of `value` in `dict`, or -1. */
function codeOf(dict: string[], value: string): number {
  let codes = codeMaps.get(dict)
  if (!codes) {
    codes = new Map()
    for (let i = 0; i < dict.length; i++) if (dict[i] !== '') codes.set(dict[i]!, i)
    codeMaps.set(dict, codes)
  }
  return codes.get(value) ?? -1
}

/** 1 for each dictionary code whose (normalised) value is wanted; "" (absent) never is. */
function dictMask(dict: string[], wanted: Set<string>, norm: (s: string) => string): Uint8Array {
  const mask = new Uint8Array(Math.max(dict.length, 1))
  dict.forEach((v, i) => { if (v !== '' && wanted.has(norm(v))) mask[i] = 1 })
  return mask
}
