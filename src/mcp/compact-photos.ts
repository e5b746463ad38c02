/**
 * The rows search_photos answers: a few key fields per photo, flat, so a page of 25 stays a
 * small part of a model's context. Made from the photo list's own JSON (GET /api/v2/photos with
 * the rover and camera relationships included), never from a second reading of the index.
 */

/** The relationships the compact rows name (`include` of the list). */
export const COMPACT_INCLUDE = ['rover', 'camera'] as const

/** The image size a compact row links, first one the photo has: big enough to look at, small enough to fetch. */
const IMAGE_PREFERENCE = ['medium', 'large', 'full', 'small'] as const

interface PhotoItem {
  id: number
  attributes: Record<string, any>
  relationships?: { rover?: { id: string }; camera?: { id: string } }
}

/**
 * One photo as a compact row: {id, rover, camera, sol, earth_date, date_taken_mars, img_src,
 * site, drive}, each left out when the photo has none. `asked`: the caller chose the attributes
 * (fields / field_set), so the row carries those as the API writes them instead.
 */
export function compactRow(p: PhotoItem, asked: boolean): Record<string, unknown> {
  const a = p.attributes
  const row: Record<string, unknown> = { id: p.id }
  if (p.relationships?.rover) row.rover = p.relationships.rover.id
  if (p.relationships?.camera) row.camera = p.relationships.camera.id
  if (asked) return Object.assign(row, a)
  for (const k of ['sol', 'earth_date', 'date_taken_mars'] as const) if (a[k] !== undefined) row[k] = a[k]
  const images = a.images as Record<string, string> | undefined
  const size = images && IMAGE_PREFERENCE.find((s) => images[s] !== undefined)
  if (size) row.img_src = images![size]
  if (a.location?.site !== undefined) row.site = a.location.site
  if (a.location?.drive !== undefined) row.drive = a.location.drive
  return row
}

/** The compact form of a photo list page: the total, the rows and the cursor of the next page (null on the last). */
export function compactList(body: { meta: { total_count: number }; data: PhotoItem[]; pagination?: { cursor?: { next?: string } } }, asked: boolean) {
  return { total: body.meta.total_count, count: body.data.length, next_cursor: body.pagination?.cursor?.next ?? null, photos: body.data.map((p) => compactRow(p, asked)) }
}
