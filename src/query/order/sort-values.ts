import { ROVER_SLUGS } from '../../catalog/rovers'
import type { SortField } from '../../store/access-paths'
import type { PhotoColumns, TextColumn, Utf8Column } from '../../store/schema'

/**
 * The value a photo is sorted by, per sortable field (decisions.md, Sorting): numbers for the
 * numeric fields, strings for camera, rover and nasa_id, null when the photo lacks it.
 * `date_taken_mars` sorts by the Mars local time of day (mars_time_ms). Strings compare by
 * UTF-16 code units (JS `<`), which for the ASCII names of this catalogue is byte order.
 *
 * This is the one definition of sort order: the offline ranks (index-builder) are computed
 * from it and cursors compare against it, so a cursor made on one index continues correctly
 * on a rebuilt one.
 */
export type SortValue = number | string | null

const decoder = new TextDecoder()

export function utf8At(col: TextColumn, row: number): string {
  const a = col.offsets[row]
  const b = col.offsets[row + 1]
  return a === b ? '' : decoder.decode(col.data.subarray(a, b))
}

/** Sort value of `field` at `row`, or null when absent. */
export function sortValue(p: PhotoColumns, field: SortField, row: number): SortValue {
  switch (field) {
    case 'id': return p.id[row]
    case 'sol': return nonNegative(p.sol[row])
    case 'earth_date': return nonNegative(p.earth_date[row])
    case 'date_taken_utc': return takenSortKey(p.date_taken_utc[row], p.earth_date[row])
    case 'date_taken_mars': return nonNegative(p.mars_time_ms[row])
    case 'camera': return p.camera.dict[p.camera.codes[row]] || null
    case 'rover': return ROVER_SLUGS[p.rover[row]] ?? null
    case 'nasa_id': return utf8At(p.nasa_id, row) || null
    case 'site': return nonNegative(p.site[row])
    case 'drive': return nonNegative(p.drive[row])
    case 'width': return nonNegative(p.width[row])
    case 'height': return nonNegative(p.height[row])
    case 'mast_azimuth': return finite(p.mast_azimuth[row])
    case 'mast_elevation': return finite(p.mast_elevation[row])
    case 'sun_elevation': return finite(p.sun_elevation[row])
    case 'added_at': return p.added_at ? finite(p.added_at[row]) : null
    case 'date_received': return finite(p.date_received[row])
  }
}

const DAY_MS = 86_400_000

/**
 * The `date_taken_utc` sort key (decisions.md, Sorting): the capture time, else the last instant
 * of the photo's `earth_date` (23:59:59.999 UTC), so a photo whose records state no time still
 * falls on its day in "latest first" and in ascending order alike; null only without either.
 * The attribute itself stays absent: this is an ordering, not a value.
 */
export function takenSortKey(utcMs: number, earthDay: number): number | null {
  if (!Number.isNaN(utcMs)) return utcMs
  return earthDay >= 0 ? earthDay * DAY_MS + DAY_MS - 1 : null
}

/** takenSortKey of every row, NaN where it is null (the builder's sorts read a column). */
export function takenSortColumn(utcMs: Float64Array, earthDay: Int32Array, n: number): Float64Array {
  const out = new Float64Array(n)
  for (let r = 0; r < n; r++) {
    const u = utcMs[r]!
    const d = earthDay[r]!
    out[r] = u === u ? u : d >= 0 ? d * DAY_MS + DAY_MS - 1 : NaN
  }
  return out
}

/** Kind of value a field holds (cursor tokens are checked against it). */
export function sortValueKind(field: SortField): 'number' | 'string' {
  return field === 'camera' || field === 'rover' || field === 'nasa_id' ? 'string' : 'number'
}

/** Ascending comparison of two present values (never null). */
export function compareValues(a: number | string, b: number | string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

const nonNegative = (v: number): number | null => (v >= 0 ? v : null)
const finite = (v: number): number | null => (Number.isNaN(v) ? null : v)
