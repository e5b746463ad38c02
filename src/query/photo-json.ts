import { findCamera } from '../catalog/cameras'
import { ROVERS } from '../catalog/rovers'
import type { Store } from '../store/store'
import { dayText } from './day-text'
import { A, SIZE, type OutputSpec } from './photo-fields'
import type { DictColumn, Utf8Column } from '../store/schema'

/**
 * Photo rows straight to JSON text (interface "Photo"; decisions.md: attributes that are
 * unknown for a photo are omitted, never invented). Runs only for the rows of the page.
 *
 * Images are `image_dir` + file name; Perseverance may carry small, medium, large and full,
 * the other rovers full only. Telemetry angles are float32 and written with the fewest digits
 * that read back as the same float32.
 */
const PERSEVERANCE = ROVERS.findIndex((r) => r.slug === 'perseverance')

interface StoreJson {
  rover: string[]
  camera: Map<number, string>
}
const perStore = new WeakMap<Store, StoreJson>()

function storeJson(store: Store): StoreJson {
  let s = perStore.get(store)
  if (!s) {
    s = {
      rover: ROVERS.map((r) => JSON.stringify({ id: r.slug, type: 'rover', attributes: { name: r.name, status: r.status } })),
      camera: new Map(),
    }
    perStore.set(store, s)
  }
  return s
}

function cameraJson(store: Store, rover: number, code: number): string {
  const sj = storeJson(store)
  const key = rover * 65536 + code
  let j = sj.camera.get(key)
  if (j === undefined) {
    const name = store.photos.camera.dict[code] ?? ''
    const facts = ROVERS[rover] ? findCamera(ROVERS[rover].slug, name) : undefined
    j = JSON.stringify(facts ? { id: name, type: 'camera', attributes: { full_name: facts.full_name } } : { id: name, type: 'camera' })
    sj.camera.set(key, j)
  }
  return j
}

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

/** JSON string literal of a Utf8 value (after `prefix`), or '' when absent. */
function utf8Json(col: Utf8Column, row: number, prefix = ''): string {
  const a = col.offsets[row]
  const b = col.offsets[row + 1]
  if (a === b) return ''
  const s = prefix + bufferOf(col.data).toString('utf8', a, b)
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : '"' + s + '"'
}

/** JSON string literals of a dictionary, made once per dictionary ('' for absent values). */
const dictJson = new WeakMap<string[], string[]>()
function dictValueJson(col: DictColumn, row: number): string {
  let j = dictJson.get(col.dict)
  if (!j) {
    j = new Array(col.dict.length)
    dictJson.set(col.dict, j)
  }
  const code = col.codes[row]
  let v = j[code]
  if (v === undefined) {
    const raw = col.dict[code] ?? ''
    v = raw === '' ? '' : JSON.stringify(raw)
    j[code] = v
  }
  return v
}

/** JSON text of an array of photos, in the order of `rows`. */
export function photosJson(store: Store, rows: ArrayLike<number>, out: OutputSpec): string {
  let s = '['
  for (let i = 0; i < rows.length; i++) s += (i === 0 ? '' : ',') + photoJson(store, rows[i], out)
  return s + ']'
}

/** One photo. Built by concatenation (no per-member arrays): this runs for every row of a page. */
export function photoJson(store: Store, row: number, out: OutputSpec): string {
  const p = store.photos
  const attrs = out.attrs
  let s = ''
  let v: string
  if (attrs & A.nasa_id && (v = utf8Json(p.nasa_id, row)) !== '') s += ',"nasa_id":' + v
  if (attrs & A.sol && p.sol[row] >= 0) s += ',"sol":' + p.sol[row]
  if (attrs & A.earth_date && p.earth_date[row] >= 0) s += ',"earth_date":"' + dayText(p.earth_date[row]) + '"'
  if (attrs & A.date_taken_utc) {
    const t = p.date_taken_utc[row]
    if (t === t && Math.abs(t) <= 8.64e15) s += ',"date_taken_utc":"' + new Date(t).toISOString() + '"'
  }
  if (attrs & A.date_taken_mars && (v = utf8Json(p.date_taken_mars, row)) !== '') s += ',"date_taken_mars":' + v
  if (attrs & A.images && (v = imagesJson(p, row, out)) !== '') s += ',"images":{' + v + '}'
  if (attrs & A.dimensions) {
    const w = p.width[row]
    const h = p.height[row]
    if (w >= 0 || h >= 0) s += ',"dimensions":{' + (w >= 0 ? '"width":' + w + (h >= 0 ? ',' : '') : '') + (h >= 0 ? '"height":' + h : '') + '}'
  }
  if (attrs & A.sample_type && (v = dictValueJson(p.sample_type, row)) !== '') s += ',"sample_type":' + v
  if (attrs & A.title && (v = dictValueJson(p.title, row)) !== '') s += ',"title":' + v
  if (attrs & A.caption && (v = dictValueJson(p.caption, row)) !== '') s += ',"caption":' + v
  if (attrs & A.credit && (v = dictValueJson(p.credit, row)) !== '') s += ',"credit":' + v
  if (attrs & A.location && (v = locationJson(p, row, out.coordinates)) !== '') s += ',"location":{' + v + '}'
  if (attrs & A.telemetry) {
    const az = p.mast_azimuth[row]
    const el = p.mast_elevation[row]
    if (az === az || el === el) {
      s += ',"telemetry":{' + (az === az ? '"mast_azimuth":' + float32Json(az) + (el === el ? ',' : '') : '') + (el === el ? '"mast_elevation":' + float32Json(el) : '') + '}'
    }
  }
  if (out.raw) {
    const a0 = p.raw.offsets[row]
    const a1 = p.raw.offsets[row + 1]
    if (a1 > a0) {
      const raw = bufferOf(p.raw.data).toString('utf8', a0, a1)
      s += ',"raw":' + (validJson(raw) ? raw : JSON.stringify(raw))
    }
  }
  let rel = ''
  if (out.includeRover || out.includeCamera) {
    const rover = out.includeRover ? storeJson(store).rover[p.rover[row]] : undefined
    const camera = out.includeCamera ? cameraJson(store, p.rover[row], p.camera.codes[row]) : undefined
    rel = ',"relationships":{' + (rover ? '"rover":' + rover + (camera ? ',' : '') : '') + (camera ? '"camera":' + camera : '') + '}'
  }
  return '{"id":' + p.id[row] + ',"type":"photo","attributes":{' + s.slice(1) + '}' + rel + '}'
}

function locationJson(p: Store['photos'], row: number, coordinates: boolean): string {
  let l = ''
  if (p.site[row] >= 0) l += ',"site":' + p.site[row]
  if (p.drive[row] >= 0) l += ',"drive":' + p.drive[row]
  if (coordinates) {
    const x = p.coord_x[row]
    const y = p.coord_y[row]
    const z = p.coord_z[row]
    if (Number.isFinite(x) && Number.isFinite(y) && Number.isFinite(z)) l += ',"coordinates":{"x":' + x + ',"y":' + y + ',"z":' + z + '}'
  }
  return l.slice(1)
}

function imagesJson(p: Store['photos'], row: number, out: OutputSpec): string {
  const dir = p.image_dir.dict[p.image_dir.codes[row]] ?? ''
  const allowed = p.rover[row] === PERSEVERANCE ? out.sizes : out.sizes & SIZE.full
  if (out.singleImage) {
    // minimal: medium, else full
    let f = allowed & SIZE.medium ? utf8Json(p.image_medium, row, dir) : ''
    if (f !== '') return '"medium":' + f
    f = allowed & SIZE.full ? utf8Json(p.image_full, row, dir) : ''
    return f === '' ? '' : '"full":' + f
  }
  let s = ''
  let f: string
  if (allowed & SIZE.small && (f = utf8Json(p.image_small, row, dir)) !== '') s += ',"small":' + f
  if (allowed & SIZE.medium && (f = utf8Json(p.image_medium, row, dir)) !== '') s += ',"medium":' + f
  if (allowed & SIZE.large && (f = utf8Json(p.image_large, row, dir)) !== '') s += ',"large":' + f
  if (allowed & SIZE.full && (f = utf8Json(p.image_full, row, dir)) !== '') s += ',"full":' + f
  return s.slice(1)
}

/**
 * Shortest decimal that reads back as the same float32 (binary search over 1..9 significant
 * digits: 9 always round-trips, and if p digits do, more do too).
 */
export function float32Json(x: number): string {
  let lo = 1
  let hi = 9
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (Math.fround(Number(x.toPrecision(mid))) === x) hi = mid
    else lo = mid + 1
  }
  return String(Number(x.toPrecision(lo)))
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
