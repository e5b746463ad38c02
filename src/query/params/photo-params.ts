import { Type, type TSchema } from '@sinclair/typebox'
import { splitProductVersion } from '../../catalog/nasa-id-form'
import { CAMERAS } from '../../catalog/cameras'
import { ROVER_SLUGS, roverCode } from '../../catalog/rovers'
import { validationError, type ParamError } from '../../http/problems'
import { PUBLIC_SORT_FIELDS as SORT_FIELDS, type SortField } from '../../store/access-paths'
import { float32TextRange } from '../../store/float32-text-exact'
import type { Store } from '../../store/store'
import type { FloatRange, IntRange, PhotoFilters } from '../scan/filters'
import { DISTANCE_SORT_PATTERN, EXCLUDE_SOL_PARAM, NEAR_PARAMS, parseNear, SEQUENCE_PARAM, STEREO_PARAM } from './related-params'
import { DEFAULT_SORT, type SortKey } from '../order/order'
import {
  INT32_MAX, PAGE_PARAM, PER_PAGE_PARAM, ROVERS_PARAM, SOL_MAX_PARAM, SOL_MIN_PARAM, boolParam, checkRange, dateParam, echo,
  firstValues, instantParam, intParam, listParam, listPattern, MAX_SCALAR_LENGTH, numberParam, rawParam, readParam, readPaging, splitList, type Paging, type ParamSource, type ParamSpec,
} from './param-parsers'
import { ATTRIBUTES, DEFAULT_OUTPUT, FIELD_NAMES, IMAGE_SIZES, PRESETS, outputSpec, type ImageSize, type OutputSpec, type Preset } from './photo-fields'

/**
 * The photo query parameters of the interface (Photos, `GET /api/v2/photos`): one TypeBox
 * schema each (also the OpenAPI document's), parsed into a typed plan. Every bad value is
 * collected, so one 400 names them all (decisions.md, Errors). Parameter names are read
 * lower-case exactly as the interface lists them; on /api/v2 any other name, the derived names
 * (`RoverList`, `PageNumber`, ...) included, is refused before a parser runs (src/http/query-names.ts).
 */

// ---- declarations -------------------------------------------------------------------------

const str = (name: string, description: string, extra: object = {}): ParamSpec<string> => ({
  name,
  schema: Type.String({ description, ...extra }),
  parse: (raw) => raw,
})

const NASA_ID = str('nasa_id', 'Agency image id: partial, case-insensitive match.')
const CAMERA_NAMES_ALL = [...new Set(CAMERAS.map((c) => c.name))]
const CAMERAS_DOC = str('cameras', `Comma-separated camera abbreviations, handled as upper case. Valid: the cameras of the selected rovers (all rovers when none): ${CAMERA_NAMES_ALL.join(', ')}.`, { pattern: listPattern(CAMERA_NAMES_ALL, true) })
const SOL = intParam('sol', 0, INT32_MAX, 'Exact sol.')
const EARTH_DATE = dateParam('earth_date', 'Exact Earth date (UTC date of capture), YYYY-MM-DD.')
const DATE_MIN = dateParam('date_min', 'Minimum Earth date, inclusive, YYYY-MM-DD.')
const DATE_MAX = dateParam('date_max', 'Maximum Earth date, inclusive, YYYY-MM-DD.')
const SORT = str('sort', `Comma-separated sort fields, prefix "-" for descending. Default -date_taken_utc (date_taken_utc ascending with sequence). Fields: ${SORT_FIELDS.join(', ')}. Absent values sort last in both directions; id ascending is always the final tie-breaker. "distance" (alone, ascending) sorts by distance from the centre of near_photo or lat/lon.`, { pattern: `(?:${listPattern(SORT_FIELDS, true, '(?:-\\s*)?')})|(?:${DISTANCE_SORT_PATTERN})` })
const FIELD_NAME_LIST = Object.keys(FIELD_NAMES)
const FIELDS = str('fields', `Comma-separated attribute names (sparse fieldset): ${FIELD_NAME_LIST.join(', ')}.`, { pattern: listPattern(FIELD_NAME_LIST, true) })
// One preset (blanks and empty items around it allowed, as the parser reads it), or a field list.
const PRESET_PATTERN = listPattern(PRESETS, true).replace(/^\^\\s\*(\(\?:.*?\\s\*\))\?.*$/, (_m, item: string) => `^[\\s,]*${item}[\\s,]*$`)
const FIELD_SET = str('field_set', `A preset (${PRESETS.join(', ')}) or a comma-separated list of field names as for "fields".`, { pattern: `(?:${PRESET_PATTERN})|(?:${listPattern(FIELD_NAME_LIST, true)})` })
const INCLUDE = listParam('include', ['rover', 'camera'], (s) => s.toLowerCase(), 'Related resources to embed.')
const CURSOR = str('cursor', 'Opaque base64url cursor from pagination.cursor.next: continues after the last photo of that page. "page" is then ignored.', { maxLength: 2048, pattern: '^[A-Za-z0-9_-]*$' })
const MARS_TIME = (name: string, description: string): ParamSpec<number> => ({
  name,
  schema: Type.String({ pattern: '^M?(?:[01]?\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?$', description }),
  parse(raw, errors) {
    const s = parseMarsTime(raw)
    if (s === undefined) errors.push({ parameter: name, message: `must be a Mars local time Mhh:mm:ss or hh:mm:ss (hours 0-23), got "${echo(raw)}"` })
    return s
  },
})
const MARS_TIME_MIN = MARS_TIME('mars_time_min', 'Minimum Mars local time of day, Mhh:mm:ss or hh:mm:ss, compared to the second. A min later than the max is a window across midnight.')
const MARS_TIME_MAX = MARS_TIME('mars_time_max', 'Maximum Mars local time of day, Mhh:mm:ss or hh:mm:ss, compared to the second.')
const GOLDEN_HOUR = boolParam('mars_time_golden_hour', 'true: only sunrise/sunset-lit photos: the sun between -4 and +6 degrees of the local horizon at capture (stated by the record, else Mars24 at the rover\'s position). A photo whose sun position cannot be known does not match. Combines with mars_time_min/max and sun_elevation_min/max by AND.')
const SITE = intParam('site', 0, INT32_MAX, 'Exact site number.')
const SITE_MIN = intParam('site_min', 0, INT32_MAX, 'Minimum site, inclusive.')
const SITE_MAX = intParam('site_max', 0, INT32_MAX, 'Maximum site, inclusive.')
const DRIVE = intParam('drive', 0, INT32_MAX, 'Exact drive number (the centre when location_radius is given).')
const DRIVE_MIN = intParam('drive_min', 0, INT32_MAX, 'Minimum drive, inclusive.')
const DRIVE_MAX = intParam('drive_max', 0, INT32_MAX, 'Maximum drive, inclusive.')
const LOCATION_RADIUS = intParam('location_radius', 0, 1000, 'Requires site and drive: same site, drive within ± this many drive numbers.')
const MIN_WIDTH = intParam('min_width', 1, 10000, 'Minimum width in pixels.')
const MIN_HEIGHT = intParam('min_height', 1, 10000, 'Minimum height in pixels.')
const MAX_WIDTH = intParam('max_width', 1, 10000, 'Maximum width in pixels.')
const MAX_HEIGHT = intParam('max_height', 1, 10000, 'Maximum height in pixels.')
const SAMPLE_TYPE = str('sample_type', 'Comma-separated sample types, case-insensitive: Full, Subframe, Thumbnail, and any other canonical value the index holds (Downsampled, Mixed, ChemCam PRC).')
// Positive numbers: at least one non-zero digit on each side.
const POSITIVE = '(?:0*[1-9]\\d*(?:\\.\\d+)?|0+\\.\\d*[1-9]\\d*)'
const ASPECT_RATIO = str('aspect_ratio', 'Exact aspect ratio <width>:<height> (positive numbers): keeps photos whose width/height is within 1% of it.', { pattern: `^\\s*${POSITIVE}\\s*:\\s*${POSITIVE}\\s*$` })
const ASPECT_RATIO_MIN = numberParam('aspect_ratio_min', 0, 10000, 'Minimum width/height, inclusive.')
const ASPECT_RATIO_MAX = numberParam('aspect_ratio_max', 0, 10000, 'Maximum width/height, inclusive.')
const MAST_EL_MIN = numberParam('mast_elevation_min', -90, 90, 'Minimum mast elevation in degrees (negative looks down).')
const MAST_EL_MAX = numberParam('mast_elevation_max', -90, 90, 'Maximum mast elevation in degrees.')
const MAST_AZ_MIN = numberParam('mast_azimuth_min', 0, 360, 'Minimum mast azimuth in degrees.')
const MAST_AZ_MAX = numberParam('mast_azimuth_max', 0, 360, 'Maximum mast azimuth in degrees.')
const SUN_EL_MIN = numberParam('sun_elevation_min', -90, 90, 'Minimum sun elevation at capture in degrees above the local horizon (stated, else Mars24), inclusive. Photos whose sun cannot be known never match.')
const SUN_EL_MAX = numberParam('sun_elevation_max', -90, 90, 'Maximum sun elevation at capture in degrees, inclusive.')
const IMAGE_SIZES_PARAM = listParam('image_sizes', IMAGE_SIZES, (s) => s.toLowerCase(), 'Image sizes to include (default all the rover has).') as ParamSpec<ImageSize[]>
const EXCLUDE_IMAGES = boolParam('exclude_images', 'true: leave image URLs out (metadata only). Wins over image_sizes.')
// The arrival times (docs/follow-new-photos.md): `since` exclusive, `before` inclusive, so
// consecutive windows [a, b], (b, c] never share or miss a photo.
const ADDED_SINCE = instantParam('added_since', 'Only photos this service first published after this instant (exclusive): an RFC 3339 date-time with an offset, e.g. 2024-05-01T12:00:00Z.')
const ADDED_BEFORE = instantParam('added_before', 'Only photos first published at or before this instant (inclusive), RFC 3339 date-time.')
const RECEIVED_SINCE = instantParam('received_since', "Only photos NASA's records say reached Earth after this instant (exclusive); photos without a stated date_received never match. RFC 3339 date-time.")
const RECEIVED_BEFORE = instantParam('received_before', 'Only photos NASA\'s records say reached Earth at or before this instant (inclusive), RFC 3339 date-time.')

/** Every photo-list parameter in the interface's order (the OpenAPI document lists them so). */
export const PHOTO_PARAMS: ParamSpec<unknown>[] = [
  NASA_ID, ROVERS_PARAM, CAMERAS_DOC, SOL, SOL_MIN_PARAM, SOL_MAX_PARAM, EARTH_DATE, DATE_MIN, DATE_MAX, SORT, FIELDS, FIELD_SET,
  INCLUDE, PAGE_PARAM, PER_PAGE_PARAM, CURSOR, MARS_TIME_MIN, MARS_TIME_MAX, GOLDEN_HOUR, SITE, SITE_MIN, SITE_MAX, DRIVE,
  DRIVE_MIN, DRIVE_MAX, LOCATION_RADIUS, MIN_WIDTH, MIN_HEIGHT, MAX_WIDTH, MAX_HEIGHT, SAMPLE_TYPE, ASPECT_RATIO,
  ASPECT_RATIO_MIN, ASPECT_RATIO_MAX, MAST_EL_MIN, MAST_EL_MAX, MAST_AZ_MIN, MAST_AZ_MAX, IMAGE_SIZES_PARAM, EXCLUDE_IMAGES,
  SUN_EL_MIN, SUN_EL_MAX,
  STEREO_PARAM, SEQUENCE_PARAM, ...NEAR_PARAMS,
  EXCLUDE_SOL_PARAM,
  ADDED_SINCE, ADDED_BEFORE, RECEIVED_SINCE, RECEIVED_BEFORE,
] as ParamSpec<unknown>[]

/** TypeBox object of query parameters (all optional) for route documentation. */
export function querySchema(specs: ParamSpec<unknown>[]) {
  const props: Record<string, TSchema> = {}
  for (const s of specs) props[s.name] = Type.Optional(s.schema)
  return Type.Object(props)
}

export const PHOTO_QUERY_SCHEMA = querySchema(PHOTO_PARAMS)

// ---- the typed plan ----------------------------------------------------------------------

export interface PhotoQuery {
  filters: PhotoFilters
  sort: SortKey[]
  output: OutputSpec
  paging: Paging
  /** Raw cursor token (decoded by cursor.ts, which needs the plan's fingerprint). */
  cursor?: string
  /** sort=distance: nearest first from filters.near's centre, then id (src/query/params/related-params.ts). */
  byDistance?: boolean
}

const DAY_S = 86_400
/** Golden hour: the sun between −4° and +6° of the local horizon (decisions.md, Filters). */
const GOLDEN_SUN = { lo: -4, hi: 6 } as const

/** Parses and validates every photo parameter; throws one validationError naming each bad one. */
export function parsePhotoQuery(query: URLSearchParams, store: Store, extra: ParamError[] = []): PhotoQuery {
  const params = firstValues(query)
  const errors: ParamError[] = [...extra]
  const filters: PhotoFilters = {}

  // rovers, then cameras valid for them (decisions.md, Filters)
  const rovers = readParam(params, ROVERS_PARAM, errors)
  if (rovers) filters.rovers = rovers.map(roverCode).sort((a, b) => a - b)
  const camRaw = rawParam(params, 'cameras')
  if (camRaw !== undefined) {
    const cams = camerasOf(rovers).parse(camRaw, errors)
    if (cams) filters.cameras = [...cams].sort()
  }

  // sol
  const sol = readParam(params, SOL, errors)
  const solMin = readParam(params, SOL_MIN_PARAM, errors)
  const solMax = readParam(params, SOL_MAX_PARAM, errors)
  checkRange('sol_min', solMin, solMax, errors)
  filters.sol = intRange([sol, solMin], [sol, solMax])

  // dates
  const day = readParam(params, EARTH_DATE, errors)
  const dMin = readParam(params, DATE_MIN, errors)
  const dMax = readParam(params, DATE_MAX, errors)
  if (dMin !== undefined && dMax !== undefined && dMin > dMax) errors.push({ parameter: 'date_min', message: 'must not be later than date_max' })
  filters.earthDate = intRange([day, dMin], [day, dMax])

  const sortRaw = rawParam(params, 'sort')
  const near = parseNear(params, store, sortRaw, errors)
  const sort = near.byDistance ? undefined : parseSort(near.sortRest, errors)
  const output = parsePhotoOutput(params, errors)

  // Mars time (behaviour.md §18, decisions.md: across midnight when min > max; golden hour ANDs)
  const tMin = readParam(params, MARS_TIME_MIN, errors)
  const tMax = readParam(params, MARS_TIME_MAX, errors)
  const golden = readParam(params, GOLDEN_HOUR, errors)
  let windows: IntRange[] | undefined
  if (tMin !== undefined || tMax !== undefined) {
    const lo = tMin ?? 0
    const hi = tMax ?? DAY_S - 1
    windows = lo <= hi ? [{ lo, hi }] : [{ lo: 0, hi }, { lo, hi: DAY_S - 1 }]
  }
  if (windows) filters.marsTime = windows.map((w) => ({ lo: w.lo * 1000, hi: w.hi * 1000 + 999 }))

  // site / drive / location_radius
  const site = readParam(params, SITE, errors)
  const siteMin = readParam(params, SITE_MIN, errors)
  const siteMax = readParam(params, SITE_MAX, errors)
  checkRange('site_min', siteMin, siteMax, errors)
  const drive = readParam(params, DRIVE, errors)
  const driveMin = readParam(params, DRIVE_MIN, errors)
  const driveMax = readParam(params, DRIVE_MAX, errors)
  checkRange('drive_min', driveMin, driveMax, errors)
  const radius = readParam(params, LOCATION_RADIUS, errors)
  if (radius !== undefined && (rawParam(params, 'site') === undefined || rawParam(params, 'drive') === undefined)) {
    errors.push({ parameter: 'location_radius', message: 'requires both site and drive' })
  }
  filters.site = intRange([site, siteMin], [site, siteMax])
  filters.drive = radius !== undefined && drive !== undefined
    ? intRange([Math.max(0, drive - radius), driveMin], [drive + radius, driveMax])
    : intRange([drive, driveMin], [drive, driveMax])

  // dimensions
  const minW = readParam(params, MIN_WIDTH, errors)
  const maxW = readParam(params, MAX_WIDTH, errors)
  const minH = readParam(params, MIN_HEIGHT, errors)
  const maxH = readParam(params, MAX_HEIGHT, errors)
  checkRange('min_width', minW, maxW, errors)
  checkRange('min_height', minH, maxH, errors)
  filters.width = intRange([minW], [maxW])
  filters.height = intRange([minH], [maxH])

  // sample_type: the interface's values plus the canonical values the index holds
  const stRaw = rawParam(params, 'sample_type')
  if (stRaw !== undefined) {
    const valid = [...new Set(['Full', 'Subframe', 'Thumbnail', ...store.photos.sample_type.dict.filter((v) => v !== '')])]
    const byLower = new Map(valid.map((v) => [v.toLowerCase(), v]))
    const items = splitList(stRaw)
    const bad = items.filter((i) => !byLower.has(i.toLowerCase()))
    if (bad.length) errors.push({ parameter: 'sample_type', message: `unknown value${bad.length > 1 ? 's' : ''} ${bad.map((b) => `"${echo(b)}"`).join(', ')}; valid: ${valid.join(', ')}` })
    else if (items.length) filters.sampleTypes = [...new Set(items.map((i) => i.toLowerCase()))].sort()
  }

  // aspect ratio: exact within 1%, and/or bounds
  const arRaw = rawParam(params, 'aspect_ratio')
  let ar: FloatRange | undefined
  if (arRaw !== undefined) {
    const m = arRaw.length <= MAX_SCALAR_LENGTH ? /^\s*(\d+(?:\.\d+)?)\s*:\s*(\d+(?:\.\d+)?)\s*$/.exec(arRaw) : null
    const w = m ? Number(m[1]) : NaN
    const h = m ? Number(m[2]) : NaN
    if (!(w > 0 && h > 0 && Number.isFinite(w / h))) errors.push({ parameter: 'aspect_ratio', message: `must be <width>:<height> with positive numbers, e.g. 16:9, got "${echo(arRaw)}"` })
    else ar = { lo: (w / h) * 0.99, hi: (w / h) * 1.01 }
  }
  const arMin = readParam(params, ASPECT_RATIO_MIN, errors)
  const arMax = readParam(params, ASPECT_RATIO_MAX, errors)
  checkRange('aspect_ratio_min', arMin, arMax, errors)
  if (ar || arMin !== undefined || arMax !== undefined) {
    filters.aspectRatio = { lo: Math.max(ar?.lo ?? 0, arMin ?? 0), hi: Math.min(ar?.hi ?? Infinity, arMax ?? Infinity) }
  }

  // mast angles
  const elMin = readParam(params, MAST_EL_MIN, errors)
  const elMax = readParam(params, MAST_EL_MAX, errors)
  const azMin = readParam(params, MAST_AZ_MIN, errors)
  const azMax = readParam(params, MAST_AZ_MAX, errors)
  checkRange('mast_elevation_min', elMin, elMax, errors)
  checkRange('mast_azimuth_min', azMin, azMax, errors)
  // Angles are float32 columns served as their shortest text: the bounds apply to that text.
  if (elMin !== undefined || elMax !== undefined) filters.mastElevation = float32TextRange(elMin ?? -Infinity, elMax ?? Infinity)
  if (azMin !== undefined || azMax !== undefined) filters.mastAzimuth = float32TextRange(azMin ?? -Infinity, azMax ?? Infinity)

  // sun elevation; golden hour is a sun band (decisions.md, revised 2026-11-28) ANDed with it
  const sunMin = readParam(params, SUN_EL_MIN, errors)
  const sunMax = readParam(params, SUN_EL_MAX, errors)
  checkRange('sun_elevation_min', sunMin, sunMax, errors)
  if (sunMin !== undefined || sunMax !== undefined || golden) {
    const lo = Math.max(sunMin ?? -Infinity, golden ? GOLDEN_SUN.lo : -Infinity)
    const hi = Math.min(sunMax ?? Infinity, golden ? GOLDEN_SUN.hi : Infinity)
    filters.sunElevation = float32TextRange(lo, hi)
  }
  const stereo = readParam(params, STEREO_PARAM, errors)
  if (stereo !== undefined) filters.stereo = stereo
  const sequence = readParam(params, SEQUENCE_PARAM, errors)
  if (sequence !== undefined) filters.sequence = sequence
  if (near.circle) filters.near = near.circle
  filters.excludeSol = readParam(params, EXCLUDE_SOL_PARAM, errors)
  // arrival times: ms are whole numbers, so "after T" is ">= floor(T) + 1" and "at or before T" "<= floor(T)"
  const instants = (since: ParamSpec<number>, before: ParamSpec<number>): FloatRange | undefined => {
    const s = readParam(params, since, errors)
    const b = readParam(params, before, errors)
    if (s === undefined && b === undefined) return undefined
    if (s !== undefined && b !== undefined && s > b) errors.push({ parameter: since.name, message: `must not be later than ${before.name}` })
    return { lo: s === undefined ? -Infinity : Math.floor(s) + 1, hi: b === undefined ? Infinity : Math.floor(b) }
  }
  filters.addedAt = instants(ADDED_SINCE, ADDED_BEFORE)
  filters.dateReceived = instants(RECEIVED_SINCE, RECEIVED_BEFORE)

  const nasa = rawParam(params, 'nasa_id')
  // A whole Perseverance id written with its product version finds the photo served without it.
  if (nasa !== undefined) filters.nasaId = splitProductVersion(nasa).id.toLowerCase()

  const paging = readPaging(params, errors)
  const cursor = rawParam(params, 'cursor')
  if (cursor !== undefined && cursor.length > 2048) errors.push({ parameter: 'cursor', message: 'is not a cursor this service issued' })

  if (errors.length) throw validationError(errors)
  for (const k of Object.keys(filters) as Array<keyof PhotoFilters>) if (filters[k] === undefined) delete filters[k]
  return {
    filters,
    // A sequence lists in exposure order unless another order is asked for.
    sort: sort ?? (filters.sequence !== undefined ? SEQUENCE_SORT : DEFAULT_SORT),
    output,
    paging,
    cursor,
    ...(near.byDistance ? { byDistance: true } : {}),
  }
}

/**
 * How each photo of an answer by id (`GET /photos/{id}`, the batch) is written. The whole photo
 * validator runs on the query (a bad filter is a 400 there too), but only the output parameters
 * shape those answers. A query without any parameter has nothing to validate and asks for the
 * default output, so the validator is not run for it: its ~40 parameter reads cost ~2 µs alone and
 * ~8 µs once the previous answer's writing has pushed them out of the caches, most of the batch's
 * work besides its rows. The object returned is shared: callers read it, never change it.
 */
export function photoOutputOf(params: URLSearchParams, store: Store, errors: ParamError[]): OutputSpec {
  if (params.size === 0) {
    if (errors.length) throw validationError(errors)
    return DEFAULT_OUTPUT
  }
  return parsePhotoQuery(params, store, errors).output
}

const SEQUENCE_SORT: SortKey[] = [{ field: 'date_taken_utc', desc: false }]

/** The parameters that shape how each photo is written (not which photos): every route writing photos takes them. */
export const OUTPUT_PARAMS: ParamSpec<unknown>[] = [FIELDS, FIELD_SET, INCLUDE, IMAGE_SIZES_PARAM, EXCLUDE_IMAGES] as ParamSpec<unknown>[]

/** How each photo is written, from the output parameters (OUTPUT_PARAMS); bad values pushed to `errors`. */
export function parsePhotoOutput(params: ParamSource, errors: ParamError[]): OutputSpec {
  const fields = parseFieldList('fields', rawParam(params, 'fields'), errors)
  const fieldSet = parseFieldSet(rawParam(params, 'field_set'), errors)
  const include = readParam(params, INCLUDE, errors)
  const imageSizes = readParam(params, IMAGE_SIZES_PARAM, errors)
  const excludeImages = readParam(params, EXCLUDE_IMAGES, errors)
  return outputSpec({ preset: fieldSet?.preset, fields: mergeFields(fields, fieldSet?.fields), imageSizes, excludeImages, include })
}

/**
 * The cameras parameter valid for a set of rovers (decisions.md, Filters), made once per set:
 * building its schema and pattern cost about 20 µs, most of a narrowed query's planning. At
 * most 2^rovers sets exist, and only valid slugs reach here.
 */
const cameraSpecs = new Map<string, ParamSpec<string[]>>()

function camerasOf(rovers: readonly string[] | undefined): ParamSpec<string[]> {
  const scope = rovers ? [...new Set(rovers)].sort() : ROVER_SLUGS
  const key = scope.join(',')
  let spec = cameraSpecs.get(key)
  if (!spec) {
    const valid = [...new Set(CAMERAS.filter((c) => scope.includes(c.rover)).map((c) => c.name))]
    spec = listParam('cameras', valid, (s) => s.toUpperCase(), '')
    cameraSpecs.set(key, spec)
  }
  return spec
}

/** Inclusive range from candidate lower and upper bounds (undefined ones ignored); undefined when none. */
function intRange(los: Array<number | undefined>, his: Array<number | undefined>): IntRange | undefined {
  let lo: number | undefined
  let hi: number | undefined
  for (const v of los) if (v !== undefined && (lo === undefined || v > lo)) lo = v
  for (const v of his) if (v !== undefined && (hi === undefined || v < hi)) hi = v
  if (lo === undefined && hi === undefined) return undefined
  return { lo: lo ?? 0, hi: hi ?? INT32_MAX }
}

/** Seconds of the day of `Mhh:mm:ss[.fff]` / `hh:mm:ss[.fff]` (fraction dropped), or undefined. */
export function parseMarsTime(raw: string): number | undefined {
  if (raw.length > MAX_SCALAR_LENGTH) return undefined
  const m = /^M?(\d{1,2}):(\d{2}):(\d{2})(?:\.\d+)?$/.exec(raw)
  if (!m) return undefined
  const h = Number(m[1])
  const mi = Number(m[2])
  const s = Number(m[3])
  if (h > 23 || mi > 59 || s > 59) return undefined
  return (h * 60 + mi) * 60 + s
}

export function parseSort(raw: string | undefined, errors: ParamError[]): SortKey[] | undefined {
  if (raw === undefined) return undefined
  const keys: SortKey[] = []
  const bad: string[] = []
  for (const item of splitList(raw)) {
    const desc = item.startsWith('-')
    const name = (desc ? item.slice(1) : item).trim().toLowerCase()
    if ((SORT_FIELDS as readonly string[]).includes(name)) keys.push({ field: name as SortField, desc })
    else bad.push(item)
  }
  if (bad.length) {
    errors.push({ parameter: 'sort', message: `unknown sort field${bad.length > 1 ? 's' : ''} ${bad.map((b) => `"${echo(b)}"`).join(', ')}; valid: ${SORT_FIELDS.join(', ')} (prefix - for descending)` })
    return undefined
  }
  // A repeated field changes nothing after its first use.
  const seen = new Set<string>()
  const out = keys.filter((k) => (seen.has(k.field) ? false : (seen.add(k.field), true)))
  return out.length ? out : undefined
}

function parseFieldList(name: string, raw: string | undefined, errors: ParamError[]): string[] | undefined {
  if (raw === undefined) return undefined
  const items = splitList(raw).map((s) => s.toLowerCase())
  const bad = items.filter((i) => !Object.hasOwn(FIELD_NAMES, i))
  if (bad.length) {
    errors.push({ parameter: name, message: `unknown field${bad.length > 1 ? 's' : ''} ${bad.map((b) => `"${echo(b)}"`).join(', ')}; valid: ${FIELD_NAME_LIST.join(', ')}` })
    return undefined
  }
  return items.length ? items : undefined
}

function parseFieldSet(raw: string | undefined, errors: ParamError[]): { preset?: Preset; fields?: string[] } | undefined {
  if (raw === undefined) return undefined
  const lower = raw.toLowerCase()
  if ((PRESETS as readonly string[]).includes(lower)) return { preset: lower as Preset }
  const items = splitList(lower)
  const presets = items.filter((i) => (PRESETS as readonly string[]).includes(i))
  if (presets.length && presets.length === items.length && presets.length === 1) return { preset: presets[0] as Preset }
  const before = errors.length
  const fields = parseFieldList('field_set', raw, errors)
  if (errors.length > before) errors[errors.length - 1] = { parameter: 'field_set', message: `must be one of ${PRESETS.join(', ')} or a comma-separated list of field names; ${errors[errors.length - 1].message}` }
  return fields ? { fields } : undefined
}

function mergeFields(a: string[] | undefined, b: string[] | undefined): string[] | undefined {
  if (!a) return b
  if (!b) return a
  return [...a, ...b]
}

export { ATTRIBUTES }
