import type { PhotoRecord } from '../normalize/photo-record'
import { INT_ABSENT, type PhotoColumns } from '../../src/store/schema'
import { roverCode } from '../../src/catalog/rovers'
import { assignIds } from '../normalize/assign-ids'
import { releaseMemory } from './release-memory'
import { DictBuilder, Utf8Builder } from './utf8-builder'
import { RAW_INLINE_BYTES, RawSpill, type PhotoTable, type RawStash } from './raw-file'

const DAY_MS = 86_400_000
const SIZES = ['small', 'medium', 'large', 'full'] as const
/**
 * While records are consumed, the engine is asked to collect RELEASES times in all (each full
 * collection costs about the whole heap), at least MIN_RELEASE_ROWS rows apart; a record is
 * ~5 KB with its raw JSON (measured), so a few hundred thousand rows are worth a collection.
 */
const RELEASES = 8
const MAX_COLUMN_BYTES = 0x7fffffff
const MIN_RELEASE_ROWS = 1 << 15
const BYTES_PER_RECORD = 5_000

/**
 * Normalised records as a photo table in record order, the input of the column encoder
 * (photo-columns.ts): ids assigned where the source has none, strings dictionary-encoded, image
 * URLs split into the shared directory prefix (`image_dir`) and per-size file names. Absent
 * values become the sentinels of schema.ts. A record that cannot be encoded throws naming its
 * source and nasa_id.
 *
 * With `consume`, the list is emptied as the table fills: each record is let go once its row is
 * written, and the engine is asked to collect as it goes (RELEASES), so a big build holds the
 * records or their columns, not both at once (the records are ~3x the bytes of their row).
 *
 * Records read with a `rawStash` hold where their raw JSON is in it (`raw_at`, `raw_bytes`), the
 * stash given here. Raw JSON of more than `rawInlineBytes` in all (default RAW_INLINE_BYTES) then
 * stays in the stash instead of the `raw` column, which is all "" (encode/raw-file.ts): the table
 * carries it as `rawSpill`, and whoever takes the table discards it.
 */
export function photoTableFromRecords(records: Array<PhotoRecord | undefined>, opts: { consume?: boolean; rawStash?: RawStash; rawInlineBytes?: number } = {}): PhotoTable {
  const n = records.length
  const ids = publicIds(records as PhotoRecord[])
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
    sun_elevation: new Float32Array(n),
    sun_azimuth: new Float32Array(n),
    solar_longitude: new Float32Array(n),
    // Filled from all photos after encoding (derive/related/related-columns.ts).
    lat: new Float64Array(n).fill(NaN),
    lon: new Float64Array(n).fill(NaN),
    stereo_partner: new Int32Array(n).fill(INT_ABSENT),
    date_received: new Float64Array(n),
  }
  const sequences = new DictBuilder()
  const sequenceCodes = new Int32Array(n)
  const names = ['camera', 'sample_type', 'image_dir', 'title', 'caption', 'credit'] as const
  const dicts = Object.fromEntries(names.map((k) => [k, new DictBuilder()])) as Record<(typeof names)[number], DictBuilder>
  const codes = Object.fromEntries(names.map((k) => [k, new Int32Array(n)])) as Record<(typeof names)[number], Int32Array>
  // Each text column sized for its values up front: grown by copying instead, a column holds its
  // old buffers too until they are collected (for the raw JSON, twice its final size).
  const chars = textChars(records as PhotoRecord[])
  // A text column holds at most 2 GiB (Int32 offsets, here and in the served index): said before
  // any row is built, for the columns counted exactly (the image URLs are counted with their directory).
  const stash = opts.rawStash
  const spill = stash && chars.raw > (opts.rawInlineBytes ?? RAW_INLINE_BYTES) ? new RawSpill(stash, n) : undefined
  for (const name of ['nasa_id', 'date_taken_mars', 'raw'] as const) {
    const total = name === 'raw' && spill ? 0 : chars[name]
    if (total > MAX_COLUMN_BYTES) throw new Error(`the ${n} photos' ${name} values come to ${total} bytes, over the ${MAX_COLUMN_BYTES} a text column of the index holds (Utf8 column over 2 GiB)`)
  }
  const text = {
    nasa_id: new Utf8Builder(n, chars.nasa_id / Math.max(1, n)),
    date_taken_mars: new Utf8Builder(n, chars.date_taken_mars / Math.max(1, n)),
    image_small: new Utf8Builder(n, chars.image_small / Math.max(1, n)),
    image_medium: new Utf8Builder(n, chars.image_medium / Math.max(1, n)),
    image_large: new Utf8Builder(n, chars.image_large / Math.max(1, n)),
    image_full: new Utf8Builder(n, chars.image_full / Math.max(1, n)),
    raw: new Utf8Builder(n, spill ? 0 : chars.raw / Math.max(1, n)),
  }

  const releaseRows = Math.max(MIN_RELEASE_ROWS, Math.ceil(n / RELEASES))
  let lastDate: string | undefined
  let lastDay = 0
  for (let i = 0; i < n; i++) {
    const r = records[i]!
    if (opts.consume) {
      records[i] = undefined
      if (i % releaseRows === releaseRows - 1) releaseMemory(releaseRows * BYTES_PER_RECORD)
    }
    const rover = roverCode(r.rover)
    if (rover < 0) throw new Error(`${whereOf(r)}: unknown rover "${r.rover}"`)
    cols.rover[i] = rover
    cols.sol[i] = intOr(r.sol, r, 'sol')
    // Records come a page at a time, and a page's photos mostly share their earth date.
    if (r.earth_date !== lastDate) {
      lastDay = epochDay(r.earth_date, r)
      lastDate = r.earth_date
    }
    cols.earth_date[i] = lastDay
    cols.date_taken_utc[i] = r.date_taken_utc ?? NaN
    cols.mars_time_ms[i] = intOr(r.mars_time_ms, r, 'mars_time_ms')
    cols.width[i] = intOr(r.width, r, 'width')
    cols.height[i] = intOr(r.height, r, 'height')
    cols.site[i] = intOr(r.site, r, 'site')
    cols.drive[i] = intOr(r.drive, r, 'drive')
    cols.coord_x[i] = r.xyz?.[0] ?? NaN
    cols.coord_y[i] = r.xyz?.[1] ?? NaN
    cols.coord_z[i] = r.xyz?.[2] ?? NaN
    cols.mast_azimuth[i] = r.mast_azimuth ?? NaN
    cols.mast_elevation[i] = r.mast_elevation ?? NaN
    cols.sclk[i] = r.sclk ?? NaN
    cols.sun_elevation[i] = r.sun_elevation ?? NaN
    cols.sun_azimuth[i] = r.sun_azimuth ?? NaN
    cols.solar_longitude[i] = r.solar_longitude ?? NaN
    sequenceCodes[i] = sequences.code(r.sequence_id ?? '')
    cols.date_received[i] = r.date_received ?? NaN
    codes.camera[i] = dicts.camera.code(r.camera)
    codes.sample_type[i] = dicts.sample_type.code(r.sample_type ?? '')
    codes.title[i] = dicts.title.code(r.title ?? '')
    codes.caption[i] = dicts.caption.code(r.caption ?? '')
    codes.credit[i] = dicts.credit.code(r.credit ?? '')
    text.nasa_id.push(r.nasa_id)
    text.date_taken_mars.push(r.date_taken_mars)
    if (r.raw_at !== undefined && !stash) throw new Error(`${whereOf(r)}: its raw JSON is in a stash the table was not given`)
    if (spill) {
      if (r.raw_at !== undefined) spill.pushStashed(r.raw_at, r.raw_bytes ?? 0)
      else spill.push(r.raw)
      text.raw.end()
    } else if (r.raw_at !== undefined) {
      if (r.raw_bytes) text.raw.bytes(stash!.view(r.raw_at, r.raw_bytes))
      text.raw.end()
    } else text.raw.push(r.raw)
    const dir = imageDir(r.images)
    codes.image_dir[i] = dicts.image_dir.code(dir)
    text.image_small.push(r.images.small?.slice(dir.length))
    text.image_medium.push(r.images.medium?.slice(dir.length))
    text.image_large.push(r.images.large?.slice(dir.length))
    text.image_full.push(r.images.full?.slice(dir.length))
  }

  if (opts.consume) records.length = 0
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
    sequence: { codes: sequenceCodes, dict: sequences.dict },
    nasa_id: text.nasa_id.finish(),
    date_taken_mars: text.date_taken_mars.finish(),
    image_small: text.image_small.finish(),
    image_medium: text.image_medium.finish(),
    image_large: text.image_large.finish(),
    image_full: text.image_full.finish(),
    raw: text.raw.finish(),
    ...(spill ? { rawSpill: spill } : {}),
  }
}

/**
 * The characters of each text column's values, all records together: the bytes of their UTF-8
 * when ASCII (a builder grows past it only for other text). Image URLs are counted whole, an
 * upper bound of the file names kept once their directory is split off.
 */
function textChars(records: readonly PhotoRecord[]): Record<'nasa_id' | 'date_taken_mars' | 'image_small' | 'image_medium' | 'image_large' | 'image_full' | 'raw', number> {
  const c = { nasa_id: 0, date_taken_mars: 0, image_small: 0, image_medium: 0, image_large: 0, image_full: 0, raw: 0 }
  for (const r of records) {
    c.nasa_id += r.nasa_id.length
    c.date_taken_mars += r.date_taken_mars?.length ?? 0
    c.image_small += r.images.small?.length ?? 0
    c.image_medium += r.images.medium?.length ?? 0
    c.image_large += r.images.large?.length ?? 0
    c.image_full += r.images.full?.length ?? 0
    c.raw += r.raw?.length ?? r.raw_bytes ?? 0
  }
  return c
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

/** A record named in an error: its file and NASA id (made only when there is an error to name it in). */
function whereOf(r: PhotoRecord): string {
  return `${r.source}: record ${r.nasa_id}`
}

function intOr(v: number | undefined, r: PhotoRecord, field: string): number {
  if (v === undefined) return INT_ABSENT
  if (!Number.isInteger(v) || v < 0 || v > 0x7fffffff) throw new Error(`${whereOf(r)}: ${field} ${v} is not a non-negative int32`)
  return v
}

function epochDay(date: string, r: PhotoRecord): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date)
  const ms = m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!) : NaN
  if (!m || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== date) throw new Error(`${whereOf(r)}: earth_date "${date}" is not a YYYY-MM-DD date`)
  return ms / DAY_MS
}
