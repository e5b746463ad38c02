import type { PhotoRecord } from '../normalize/photo-record'
import { INT_ABSENT, type PhotoColumns } from '../../src/store/schema'
import { roverCode } from '../../src/catalog/rovers'
import { assignIds } from '../normalize/assign-ids'
import { DictBuilder, Utf8Builder } from './utf8-builder'

const DAY_MS = 86_400_000
const SIZES = ['small', 'medium', 'large', 'full'] as const

/**
 * Normalised records as a photo table in record order, the input of the column encoder
 * (photo-columns.ts): ids assigned where the source has none, strings dictionary-encoded, image
 * URLs split into the shared directory prefix (`image_dir`) and per-size file names. Absent
 * values become the sentinels of schema.ts. A record that cannot be encoded throws naming its
 * source and nasa_id.
 */
export function photoTableFromRecords(records: readonly PhotoRecord[]): PhotoColumns {
  const n = records.length
  const ids = publicIds(records)
  const cols = {
    rover: new Uint8Array(n),
    sol: new Int32Array(n),
    earth_date: new Int32Array(n),
    date_taken_utc: new Float64Array(n),
    mars_time_ms: new Int32Array(n),
    width: new Int32Array(n),
    height: new Int32Array(n),
    site: new Int32Array(n),
    drive: new Int32Array(n),
    coord_x: new Float64Array(n),
    coord_y: new Float64Array(n),
    coord_z: new Float64Array(n),
    mast_azimuth: new Float32Array(n),
    mast_elevation: new Float32Array(n),
    sclk: new Float64Array(n),
    date_received: new Float64Array(n),
  }
  const names = ['camera', 'sample_type', 'image_dir', 'title', 'caption', 'credit'] as const
  const dicts = Object.fromEntries(names.map((k) => [k, new DictBuilder()])) as Record<(typeof names)[number], DictBuilder>
  const codes = Object.fromEntries(names.map((k) => [k, new Int32Array(n)])) as Record<(typeof names)[number], Int32Array>
  const text = {
    nasa_id: new Utf8Builder(n, 48),
    date_taken_mars: new Utf8Builder(n, 22),
    image_small: new Utf8Builder(n, 24),
    image_medium: new Utf8Builder(n, 24),
    image_large: new Utf8Builder(n, 24),
    image_full: new Utf8Builder(n, 40),
    raw: new Utf8Builder(n, 64),
  }

  for (let i = 0; i < n; i++) {
    const r = records[i]!
    const where = `${r.source}: record ${r.nasa_id}`
    const rover = roverCode(r.rover)
    if (rover < 0) throw new Error(`${where}: unknown rover "${r.rover}"`)
    cols.rover[i] = rover
    cols.sol[i] = intOr(r.sol, where, 'sol')
    cols.earth_date[i] = epochDay(r.earth_date, where)
    cols.date_taken_utc[i] = r.date_taken_utc ?? NaN
    cols.mars_time_ms[i] = intOr(r.mars_time_ms, where, 'mars_time_ms')
    cols.width[i] = intOr(r.width, where, 'width')
    cols.height[i] = intOr(r.height, where, 'height')
    cols.site[i] = intOr(r.site, where, 'site')
    cols.drive[i] = intOr(r.drive, where, 'drive')
    cols.coord_x[i] = r.xyz?.[0] ?? NaN
    cols.coord_y[i] = r.xyz?.[1] ?? NaN
    cols.coord_z[i] = r.xyz?.[2] ?? NaN
    cols.mast_azimuth[i] = r.mast_azimuth ?? NaN
    cols.mast_elevation[i] = r.mast_elevation ?? NaN
    cols.sclk[i] = r.sclk ?? NaN
    cols.date_received[i] = r.date_received ?? NaN
    codes.camera[i] = dicts.camera.code(r.camera)
    codes.sample_type[i] = dicts.sample_type.code(r.sample_type ?? '')
    codes.title[i] = dicts.title.code(r.title ?? '')
    codes.caption[i] = dicts.caption.code(r.caption ?? '')
    codes.credit[i] = dicts.credit.code(r.credit ?? '')
    text.nasa_id.push(r.nasa_id)
    text.date_taken_mars.push(r.date_taken_mars)
    text.raw.push(r.raw)
    const dir = imageDir(r.images)
    codes.image_dir[i] = dicts.image_dir.code(dir)
    text.image_small.push(r.images.small?.slice(dir.length))
    text.image_medium.push(r.images.medium?.slice(dir.length))
    text.image_large.push(r.images.large?.slice(dir.length))
    text.image_full.push(r.images.full?.slice(dir.length))
  }

  const dictCol = (k: (typeof names)[number]) => ({ codes: codes[k], dict: dicts[k].dict })
  return {
    length: n,
    id: ids,
    ...cols,
    camera: dictCol('camera'),
    sample_type: dictCol('sample_type'),
    image_dir: dictCol('image_dir'),
    title: dictCol('title'),
    caption: dictCol('caption'),
    credit: dictCol('credit'),
    nasa_id: text.nasa_id.finish(),
    date_taken_mars: text.date_taken_mars.finish(),
    image_small: text.image_small.finish(),
    image_medium: text.image_medium.finish(),
    image_large: text.image_large.finish(),
    image_full: text.image_full.finish(),
    raw: text.raw.finish(),
  }
}

/** Each record's public id: its own, or the id normalize/assign-ids.ts gives a record without one. Ids must be unique. */
function publicIds(records: readonly PhotoRecord[]): Int32Array {
  const keyed = records.map((r) => ({ id: r.id, nasa_id: r.nasa_id }))
  if (keyed.some((r) => r.id === undefined)) assignIds(keyed)
  const ids = new Int32Array(records.length)
  const seen = new Map<number, number>()
  keyed.forEach((r, i) => {
    const id = r.id!
    if (!Number.isInteger(id) || id < 0 || id > 0x7fffffff) throw new Error(`${records[i]!.source}: record ${r.nasa_id}: id ${id} is not a non-negative int32`)
    const other = seen.get(id)
    if (other !== undefined) throw new Error(`photo id ${id} is given to two images: ${records[other]!.nasa_id} (${records[other]!.source}) and ${r.nasa_id} (${records[i]!.source})`)
    seen.set(id, i)
    ids[i] = id
  })
  return ids
}

/** The longest prefix ending in '/' shared by every image URL of a photo ("" when none). */
export function imageDir(images: PhotoRecord['images']): string {
  let dir: string | undefined
  for (const size of SIZES) {
    const url = images[size]
    if (!url) continue
    if (dir === undefined) {
      dir = url.slice(0, url.lastIndexOf('/') + 1)
      continue
    }
    let j = 0
    while (j < dir.length && j < url.length && dir.charCodeAt(j) === url.charCodeAt(j)) j++
    dir = j === 0 ? '' : dir.slice(0, dir.lastIndexOf('/', j - 1) + 1)
  }
  return dir ?? ''
}

function intOr(v: number | undefined, where: string, field: string): number {
  if (v === undefined) return INT_ABSENT
  if (!Number.isInteger(v) || v < 0 || v > 0x7fffffff) throw new Error(`${where}: ${field} ${v} is not a non-negative int32`)
  return v
}

function epochDay(date: string, where: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date)
  const ms = m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!) : NaN
  if (!m || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== date) throw new Error(`${where}: earth_date "${date}" is not a YYYY-MM-DD date`)
  return ms / DAY_MS
}
