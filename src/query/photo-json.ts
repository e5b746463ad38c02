import { findCamera } from '../catalog/cameras'
import { ROVERS } from '../catalog/rovers'
import type { Store } from '../store/store'
import { dayText } from './day-text'
import { float32Text } from './float32-text'
import { isoTime } from './iso-time'
import { A, SIZE, type OutputSpec } from './photo-fields'
import type { DictColumn, PhotoColumns, Utf8Column } from '../store/schema'
import { perSnapshot } from '../store/per-snapshot'

/** Kept for callers of the former name. */
export { float32Text as float32Json } from './float32-text'

/**
 * Photo rows straight to JSON text (interface "Photo"; decisions.md: attributes that are
 * unknown for a photo are omitted, never invented). Runs only for the rows of the page.
 *
 * Images are `image_dir` + file name; Perseverance may carry small, medium, large and full,
 * the other rovers full only. Telemetry angles are float32 and written with the fewest digits
 * that read back as the same float32 (float32-text.ts).
 *
 * Speed (this is most of a narrowed query's time): everything that repeats across rows is
 * made once per store snapshot (PhotoWriter): dictionary values as ready JSON members
 * (`,"title":"..."`), image folders pre-escaped, the relationship objects. Per row, strings
 * are cut from the column bytes with one native latin1 slice when a byte test shows plain
 * printable ASCII (then the text needs no escaping and latin1 = utf8), dates come from
 * integer arithmetic (iso-time.ts), and the object is one concatenation (no per-member arrays).
 */
const PERSEVERANCE = ROVERS.findIndex((r) => r.slug === 'perseverance')

/** Per store snapshot: the JSON fragments shared by many rows, filled on first use. */
class PhotoWriter {
  readonly p: PhotoColumns
  readonly rover: string[]
  readonly #camera = new Map<number, string>()
  readonly sampleType: DictMembers
  readonly title: DictMembers
  readonly caption: DictMembers
  readonly credit: DictMembers
  /** image_dir values escaped for the inside of a JSON string, made on first use. */
  readonly #imageDir: Array<string | undefined>
  readonly #store: Store

  constructor(store: Store) {
    this.#store = store
    this.p = store.photos
    this.rover = ROVERS.map((r) => JSON.stringify({ id: r.slug, type: 'rover', attributes: { name: r.name, status: r.status } }))
    this.sampleType = new DictMembers(this.p.sample_type, 'sample_type')
    this.title = new DictMembers(this.p.title, 'title')
    this.caption = new DictMembers(this.p.caption, 'caption')
    this.credit = new DictMembers(this.p.credit, 'credit')
    this.#imageDir = new Array(this.p.image_dir.dict.length)
  }

  camera(rover: number, code: number): string {
    const key = rover * 65536 + code
    let j = this.#camera.get(key)
    if (j === undefined) {
      const name = this.#store.photos.camera.dict[code] ?? ''
      const facts = ROVERS[rover] ? findCamera(ROVERS[rover].slug, name) : undefined
      j = JSON.stringify(facts ? { id: name, type: 'camera', attributes: { full_name: facts.full_name } } : { id: name, type: 'camera' })
      this.#camera.set(key, j)
    }
    return j
  }

  imageDir(row: number): string {
    const code = this.p.image_dir.codes[row]
    let d = this.#imageDir[code]
    if (d === undefined) {
      d = JSON.stringify(this.p.image_dir.dict[code] ?? '').slice(1, -1)
      this.#imageDir[code] = d
    }
    return d
  }
}

/** A dictionary column's values as ready JSON members `"name":"value"` ('' when absent), by code. */
class DictMembers {
  readonly #members: Array<string | undefined>
  constructor(readonly col: DictColumn, readonly name: string) {
    this.#members = new Array(col.dict.length)
  }
  of(row: number): string {
    const code = this.col.codes[row]
    let v = this.#members[code]
    if (v === undefined) {
      const raw = this.col.dict[code] ?? ''
      v = raw === '' ? '' : '"' + this.name + '":' + JSON.stringify(raw)
      this.#members[code] = v
    }
    return v
  }
}

const writerOf = perSnapshot((store) => new PhotoWriter(store))

/** Buffer views over Utf8 columns (native slicing is several times faster than TextDecoder here). */
const buffers = new WeakMap<Uint8Array, Buffer>()
function bufferOf(data: Uint8Array): Buffer {
  let b = buffers.get(data)
  if (!b) {
    b = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
    buffers.set(data, b)
  }
  return b
}

const NEEDS_ESCAPE = /["\\\u0000-\u001f\u2028\u2029]/

/**
 * The inside of the JSON string literal of a Utf8 value (no quotes). Plain printable ASCII
 * (checked on the bytes: 0x20..0x7e except '"' and '\') is its own JSON text; anything else is
 * decoded as UTF-8 and escaped by JSON.stringify exactly as before.
 */
export function utf8Inner(col: Utf8Column, a: number, b: number): string {
  const data = col.data
  let plain = 1
  for (let i = a; i < b; i++) {
    const c = data[i]
    plain &= c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c ? 1 : 0
  }
  const buf = bufferOf(data)
  if (plain) return buf.toString('latin1', a, b)
  const s = buf.toString('utf8', a, b)
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s).slice(1, -1) : s
}

/** `"name":"value"` for a Utf8 value, or '' when absent. */
function utf8Member(col: Utf8Column, row: number, name: string): string {
  const a = col.offsets[row]
  const b = col.offsets[row + 1]
  return a === b ? '' : '"' + name + '":"' + utf8Inner(col, a, b) + '"'
}

/** `"size":"<dir><file>"` for one image size, or '' when the photo lacks it. */
function imageMember(col: Utf8Column, row: number, name: string, dir: string): string {
  const a = col.offsets[row]
  const b = col.offsets[row + 1]
  return a === b ? '' : '"' + name + '":"' + dir + utf8Inner(col, a, b) + '"'
}

/** JSON text of an array of photos, in the order of `rows`. */
export function photosJson(store: Store, rows: ArrayLike<number>, out: OutputSpec): string {
  const w = writerOf(store)
  let s = '['
  for (let i = 0; i < rows.length; i++) s += (i === 0 ? '' : ',') + writePhoto(w, rows[i], out)
  return s + ']'
}

/** One photo. */
export function photoJson(store: Store, row: number, out: OutputSpec): string {
  return writePhoto(writerOf(store), row, out)
}

// Members are written bare ("name":value) and joined with a separator that turns to ',' after
// the first: cutting a leading comma off afterwards (slice) flattens the string built so far, and
// that measured more than half of this function's time.
function writePhoto(w: PhotoWriter, row: number, out: OutputSpec): string {
  const p = w.p
  const attrs = out.attrs
  let s = ''
  let c = ''
  let m: string
  if (attrs & A.nasa_id && (m = utf8Member(p.nasa_id, row, 'nasa_id')) !== '') { s += m; c = ',' }
  if (attrs & A.sol && p.sol[row] >= 0) { s += c + '"sol":' + p.sol[row]; c = ',' }
  if (attrs & A.earth_date && p.earth_date[row] >= 0) { s += c + '"earth_date":"' + dayText(p.earth_date[row]) + '"'; c = ',' }
  if (attrs & A.date_taken_utc) {
    const t = p.date_taken_utc[row]
    if (t === t && Math.abs(t) <= 8.64e15) { s += c + '"date_taken_utc":"' + isoTime(t) + '"'; c = ',' }
  }
  if (attrs & A.date_taken_mars && (m = utf8Member(p.date_taken_mars, row, 'date_taken_mars')) !== '') { s += c + m; c = ',' }
  if (attrs & A.images && (m = imagesJson(w, row, out)) !== '') { s += c + '"images":{' + m + '}'; c = ',' }
  if (attrs & A.dimensions) {
    const wd = p.width[row]
    const h = p.height[row]
    if (wd >= 0 || h >= 0) { s += c + '"dimensions":{' + (wd >= 0 ? '"width":' + wd + (h >= 0 ? ',' : '') : '') + (h >= 0 ? '"height":' + h : '') + '}'; c = ',' }
  }
  if (attrs & A.sample_type && (m = w.sampleType.of(row)) !== '') { s += c + m; c = ',' }
  if (attrs & A.title && (m = w.title.of(row)) !== '') { s += c + m; c = ',' }
  if (attrs & A.caption && (m = w.caption.of(row)) !== '') { s += c + m; c = ',' }
  if (attrs & A.credit && (m = w.credit.of(row)) !== '') { s += c + m; c = ',' }
  if (attrs & A.location && (m = locationJson(p, row, out.coordinates)) !== '') { s += c + '"location":{' + m + '}'; c = ',' }
  if (attrs & A.telemetry) {
    const az = p.mast_azimuth[row]
    const el = p.mast_elevation[row]
    if (az === az || el === el) {
      s += c + '"telemetry":{' + (az === az ? '"mast_azimuth":' + float32Text(az) + (el === el ? ',' : '') : '') + (el === el ? '"mast_elevation":' + float32Text(el) : '') + '}'
      c = ','
    }
  }
  if (out.raw) {
    const a0 = p.raw.offsets[row]
    const a1 = p.raw.offsets[row + 1]
    if (a1 > a0) {
      const raw = bufferOf(p.raw.data).toString('utf8', a0, a1)
      s += c + '"raw":' + (validJson(raw) ? raw : JSON.stringify(raw))
    }
  }
  let rel = ''
  if (out.includeRover || out.includeCamera) {
    const rover = out.includeRover ? w.rover[p.rover[row]] : undefined
    const camera = out.includeCamera ? w.camera(p.rover[row], p.camera.codes[row]) : undefined
    rel = ',"relationships":{' + (rover ? '"rover":' + rover + (camera ? ',' : '') : '') + (camera ? '"camera":' + camera : '') + '}'
  }
  return '{"id":' + p.id[row] + ',"type":"photo","attributes":{' + s + '}' + rel + '}'
}

/** `"site":..,"drive":..,"coordinates":{..}` members ('' when none). */
function locationJson(p: PhotoColumns, row: number, coordinates: boolean): string {
  let l = ''
  if (p.site[row] >= 0) l += '"site":' + p.site[row]
  if (p.drive[row] >= 0) l += (l === '' ? '' : ',') + '"drive":' + p.drive[row]
  if (coordinates) {
    const x = p.coord_x[row]
    const y = p.coord_y[row]
    const z = p.coord_z[row]
    if (Number.isFinite(x) && Number.isFinite(y) && Number.isFinite(z)) l += (l === '' ? '' : ',') + '"coordinates":{"x":' + x + ',"y":' + y + ',"z":' + z + '}'
  }
  return l
}

/** The image members ('' when none). */
function imagesJson(w: PhotoWriter, row: number, out: OutputSpec): string {
  const p = w.p
  const allowed = p.rover[row] === PERSEVERANCE ? out.sizes : out.sizes & SIZE.full
  if (allowed === 0) return ''
  const dir = w.imageDir(row)
  if (out.singleImage) {
    // minimal: the nearest size the photo has — medium, else large, else full, else small
    // (decisions.md, Clarifications: most Perseverance photos hold only a large URL).
    let f = allowed & SIZE.medium ? imageMember(p.image_medium, row, 'medium', dir) : ''
    if (f === '' && allowed & SIZE.large) f = imageMember(p.image_large, row, 'large', dir)
    if (f === '' && allowed & SIZE.full) f = imageMember(p.image_full, row, 'full', dir)
    if (f === '' && allowed & SIZE.small) f = imageMember(p.image_small, row, 'small', dir)
    return f
  }
  let s = ''
  let f: string
  if (allowed & SIZE.small && (f = imageMember(p.image_small, row, 'small', dir)) !== '') s += f
  if (allowed & SIZE.medium && (f = imageMember(p.image_medium, row, 'medium', dir)) !== '') s += (s === '' ? '' : ',') + f
  if (allowed & SIZE.large && (f = imageMember(p.image_large, row, 'large', dir)) !== '') s += (s === '' ? '' : ',') + f
  if (allowed & SIZE.full && (f = imageMember(p.image_full, row, 'full', dir)) !== '') s += (s === '' ? '' : ',') + f
  return s
}

function validJson(text: string): boolean {
  const c = text[0]
  if (c !== '{' && c !== '[') return false
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}
