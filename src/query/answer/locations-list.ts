import type { Store } from '../../store/store'
import type { LocationColumns } from '../../store/schema'
import { ROVER_SLUGS, roverCode } from '../../catalog/rovers'
import { notFound } from '../../http/problems'
import { formatDay } from '../bytes/day-text'
import { answerSink, fragment, type ByteSink } from '../bytes/byte-sink'
import { DATA_OPEN, listEnvelopeTail, singleEnvelope } from '../render/envelope'
import { lowerBound, pageRows, pageRowsAtLeast, roverRanges, type Bound } from '../page/table-ranges'
import { minPhotosParam, readDerivedListParams } from '../params/derived-list-params'

/**
 * GET /api/v2/locations and /locations/{id} over the location table the index builder derived
 * (index-builder/derive/locations.ts; decisions.md, Other endpoints, Locations).
 *
 * Sol bounds: a location is listed when the sols it was visited on, [first_sol, last_sol],
 * overlap [sol_min, sol_max]. Its record is always the whole record (every photo there), so an
 * id from any list resolves by id to the same record. (The Anchor re-aggregates only the photos
 * inside the sol window, behaviour.md §14.1; a location record that changed with the query
 * could not be fetched back by id.) `min_photos` bounds `photo_count`.
 *
 * Order: rover code, then first_sol (the table's order), then site, drive.
 */
export const LOCATION_MIN_PHOTOS = minPhotosParam('Minimum number of photos at the location (photo_count), inclusive. 0 or absent: no bound.')

export const LOCATIONS_PATH = '/api/v2/locations'

export function listLocations(store: Store, params: URLSearchParams, base: string): string {
  return writeListLocations(store, params, base).toString()
}

function writeListLocations(store: Store, params: URLSearchParams, base: string): ByteSink {
  const q = readDerivedListParams(params, LOCATION_MIN_PHOTOS)
  const loc = store.locations
  const starts = roverRanges(loc.rover, loc.length)
  const ranges: Array<[number, number]> = []
  for (const r of q.roverCodes) {
    const lo = starts[r]!
    // first_sol ascends within a rover: rows whose first visit is after sol_max are a suffix
    const hi = q.solMax === undefined ? starts[r + 1]! : lowerBound(loc.first_sol, lo, starts[r + 1]!, q.solMax + 1)
    if (hi > lo) ranges.push([lo, hi])
  }
  const { solMin, minPhotos } = q
  const bounds: Bound[] = []
  if (solMin !== undefined) bounds.push([loc.last_sol, solMin])
  if (minPhotos !== undefined) bounds.push([loc.photo_count, minPhotos])
  const { page, perPage } = q.paging
  const offset = (page - 1) * perPage
  // min_photos alone is answered from the memoised list of the rows passing it (no scan).
  const { total, rows } = solMin === undefined && minPhotos !== undefined
    ? pageRowsAtLeast(ranges, loc.photo_count, minPhotos, offset, perPage)
    : pageRows(ranges, bounds, offset, perPage)
  const sink = answerSink()
  const origin = fragment(JSON.stringify(base).slice(1, -1))
  const parts = partsOf(loc)
  sink.text(DATA_OPEN + '[')
  for (let i = 0; i < rows.length; i++) {
    const p = renderedParts(loc, parts, rows[i]!)
    if (i > 0) sink.byte(0x2c)
    sink.bytes(p[2])
    sink.bytes(origin)
    sink.bytes(p[3])
  }
  sink.byte(0x5d)
  sink.text(listEnvelopeTail({ returned: rows.length, total, paging: q.paging, base, path: LOCATIONS_PATH, params }))
  return sink
}

/** GET /locations/{id}: `<rover_slug>_<site>_<drive>` (slug case-insensitive, numbers in plain decimal); else 404. */
export function getLocation(store: Store, id: string, base: string): string {
  const row = findLocation(store, id)
  if (row < 0) throw notFound(`No location has the id "${id.slice(0, 80)}". Location ids look like curiosity_48_1570 (rover_site_drive).`)
  const loc = store.locations
  return singleEnvelope(locationJson(loc, row, base), `${base}${LOCATIONS_PATH}/${locationId(loc, row)}`)
}

/** Row of a location id in the store's table, or -1. */
export function findLocation(store: Store, id: string): number {
  const m = /^([A-Za-z]{1,20})_(0|[1-9]\d{0,9})_(0|[1-9]\d{0,9})$/.exec(id)
  if (!m) return -1
  const r = roverCode(m[1]!.toLowerCase())
  if (r < 0) return -1
  return idIndex(store.locations).get(`${ROVER_SLUGS[r]}_${m[2]}_${m[3]}`) ?? -1
}

export function locationId(loc: LocationColumns, row: number): string {
  return `${ROVER_SLUGS[loc.rover[row]!]}_${loc.site[row]}_${loc.drive[row]}`
}

const idIndexes = new WeakMap<LocationColumns, Map<string, number>>()

function idIndex(loc: LocationColumns): Map<string, number> {
  let index = idIndexes.get(loc)
  if (!index) {
    index = new Map()
    for (let row = 0; row < loc.length; row++) index.set(locationId(loc, row), row)
    idIndexes.set(loc, index)
  }
  return index
}

/**
 * One location (behaviour.md §14.2 as amended by decisions.md): coordinates omitted when
 * unknown; `links.photos` is the absolute photo query for that place. Everything but the origin
 * is rendered once per row and table (a few thousand rows) and kept.
 */
export function locationJson(loc: LocationColumns, row: number, base: string): string {
  const p = renderedParts(loc, partsOf(loc), row)
  return p[0] + JSON.stringify(base).slice(1, -1) + p[1]
}

/** A location's text before and after the origin, and the same as UTF-8 bytes. */
type Parts = [string, string, Buffer, Buffer]

/** The rendered parts of a location table's rows, filled on first use of each row. */
function partsOf(loc: LocationColumns): Array<Parts | undefined> {
  let parts = rendered.get(loc)
  if (!parts) rendered.set(loc, (parts = new Array<Parts | undefined>(loc.length)))
  return parts
}

function renderedParts(loc: LocationColumns, parts: Array<Parts | undefined>, row: number): Parts {
  let p = parts[row]
  if (p === undefined) {
    const text = renderLocation(loc, row)
    const cut = text.indexOf(ORIGIN)
    const before = text.slice(0, cut)
    const after = text.slice(cut + ORIGIN.length)
    parts[row] = p = [before, after, fragment(before), fragment(after)]
  }
  return p
}

const ORIGIN = '@@origin@@'
const rendered = new WeakMap<LocationColumns, Array<Parts | undefined>>()

function renderLocation(loc: LocationColumns, row: number): string {
  const slug = ROVER_SLUGS[loc.rover[row]!]!
  const site = loc.site[row]!
  const drive = loc.drive[row]!
  const x = loc.coord_x[row]!
  const coords = Number.isNaN(x) ? '' : `,"coordinates":{"x":${num(x)},"y":${num(loc.coord_y[row]!)},"z":${num(loc.coord_z[row]!)}}`
  return (
    `{"id":"${slug}_${site}_${drive}","type":"location","attributes":{"rover":"${slug}","site":${site},"drive":${drive},` +
    `"first_visited":"${formatDay(loc.first_date[row]!)}","last_visited":"${formatDay(loc.last_date[row]!)}",` +
    `"first_sol":${loc.first_sol[row]},"last_sol":${loc.last_sol[row]},"photo_count":${loc.photo_count[row]},"visit_count":${loc.visit_count[row]}${coords}},` +
    `"links":{"photos":"${ORIGIN}/api/v2/photos?rovers=${slug}&site=${site}&drive=${drive}"}}`
  )
}

/** A JSON number; null for a non-finite value (never invalid JSON). */
export function num(v: number): string {
  return Number.isFinite(v) ? String(v) : 'null'
}
