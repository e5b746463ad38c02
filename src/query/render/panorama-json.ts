import type { PanoramaColumns } from '../../store/schema'
import { ROVER_SLUGS } from '../../catalog/rovers'
import { bufferOf, fragment, writeDigits, type ByteSink } from '../bytes/byte-sink'
import { writeDouble } from '../bytes/float32-text'
import { RecordArena } from './record-arena'

/**
 * One panorama record as JSON bytes (behaviour.md §15.3 fields; optional ones omitted when
 * unknown; panoramas-list.ts says what each field means). The texts shared by many records
 * (rover slugs, camera and quality values) are made once per panorama table; per record, the
 * Mars times are copied from the column's bytes, numbers are written as digits (Number#toString's
 * text, `null` when not finite) and photo ids straight from the id list: no string per record.
 */
export interface PanoramaTable {
  pano: PanoramaColumns
  /** Records already rendered, around the origin (record-arena.ts). */
  arena: RecordArena
  /** The Mars time columns' bytes need no JSON escape (else they go through JSON.stringify). */
  plainTimes: boolean
  startBytes: Buffer
  endBytes: Buffer
  camera: Buffer[]
  cameraQuery: Buffer[]
  quality: Buffer[]
}

const tables = new WeakMap<PanoramaColumns, PanoramaTable>()

/** What writing a panorama table's records needs, made once per table (per snapshot). */
export function panoramaTable(pano: PanoramaColumns): PanoramaTable {
  let f = tables.get(pano)
  if (!f) {
    f = {
      pano,
      arena: new RecordArena(pano.length),
      plainTimes: plainJson(pano.mars_time_start.data) && plainJson(pano.mars_time_end.data),
      startBytes: bufferOf(pano.mars_time_start.data),
      endBytes: bufferOf(pano.mars_time_end.data),
      camera: pano.camera.dict.map((c) => fragment('},"camera":' + JSON.stringify(c) + ',"avg_elevation":')),
      // inside the links.photos string: percent-encoded, so JSON needs no escape in it
      cameraQuery: pano.camera.dict.map((c) => fragment('&cameras=' + encodeURIComponent(c) + '&site=')),
      quality: pano.quality.dict.map((q) => fragment(',"quality":' + JSON.stringify(q) + ',"photo_ids":[')),
    }
    tables.set(pano, f)
  }
  return f
}

/** Bytes that stand for themselves inside a JSON string: printable ASCII without `"` and `\`. */
function plainJson(data: Uint8Array): boolean {
  for (let i = 0; i < data.length; i++) {
    const b = data[i]
    if (b < 0x20 || b >= 0x7f || b === 0x22 || b === 0x5c) return false
  }
  return true
}

const SLUG = ROVER_SLUGS.map((s) => ({
  id: fragment('{"id":"pano_' + s + '_'),
  rover: fragment('","type":"panorama","attributes":{"rover":"' + s + '","sol":'),
  query: fragment('/api/v2/photos?rovers=' + s + '&sol='),
}))
const K = {
  timeStart: fragment(',"mars_time_start":"'),
  timeEnd: fragment(',"mars_time_end":"'),
  total: fragment(',"total_photos":'),
  coverage: fragment(',"coverage_degrees":'),
  site: fragment(',"location":{"site":'),
  drive: fragment(',"drive":'),
  coordinates: fragment(',"coordinates":{"x":'),
  y: fragment(',"y":'),
  z: fragment(',"z":'),
  positions: fragment(',"unique_positions":'),
  spacing: fragment(',"avg_position_spacing":'),
  links: fragment(']},"links":{"photos":"'),
  siteDrive: fragment('&drive='),
  end: fragment('"}}'),
  null: fragment('null'),
}

/** A JSON number: Number#toString's text, null when not finite (never invalid JSON). */
function writeNumber(sink: ByteSink, v: number): void {
  if (Number.isFinite(v)) writeDouble(sink, v)
  else sink.bytes(K.null)
}

/**
 * A number the builder rounded to 3 decimals (index-builder/derive/panoramas.ts): when
 * x is m / 1000 for an integer m well inside the doubles' exact range, Number#toString(x)
 * is m / 1000 written in decimal without trailing zeros (another decimal of as few digits is at
 * least 0.001 away, far more than x's rounding step below 1e12), so the digits are written
 * straight from m. Any other value goes through the general writer.
 */
export function writeMilli(sink: ByteSink, x: number): void {
  const m = Math.round(x * 1000)
  if (m / 1000 !== x || !(m > -MILLI_LIMIT && m < MILLI_LIMIT) || (m === 0 && x !== 0)) return writeNumber(sink, x)
  let a = m < 0 ? -m : m
  const whole = Math.floor(a / 1000)
  let frac = a - whole * 1000
  if (m < 0) sink.byte(0x2d)
  sink.uint(whole)
  if (frac === 0) return
  let digits = 3
  while (frac % 10 === 0) { frac /= 10; digits-- }
  sink.ensure(digits + 1)
  const b = sink.buf
  let o = sink.pos
  b[o] = 0x2e
  for (let i = digits; i > 0; i--) { b[o + i] = 0x30 + (frac % 10); frac = Math.floor(frac / 10) }
  sink.pos = o + digits + 1
}

const MILLI_LIMIT = 1e15

/** The ids of values[from, to) as a comma-separated list of decimal integers. */
function writeIds(sink: ByteSink, values: Int32Array, from: number, to: number): void {
  // An int32 takes at most 11 characters, plus its comma.
  sink.ensure((to - from) * 12)
  const b = sink.buf
  let o = sink.pos
  for (let i = from; i < to; i++) {
    if (i > from) b[o++] = 0x2c
    let v = values[i]
    if (v < 0) { b[o++] = 0x2d; v = -v }
    let len = 1
    for (let p = 10; p <= v; p *= 10) len++
    o += len
    writeDigits(b, o, v)
  }
  sink.pos = o
}

/** A Mars time member from the column's bytes (empty: omitted). */
function writeTime(sink: ByteSink, key: Buffer, col: PanoramaColumns['mars_time_start'], bytes: Buffer, plain: boolean, row: number): void {
  const a = col.offsets[row]
  const e = col.offsets[row + 1]
  if (a === e) return
  if (!plain) return sink.text(key.toString().slice(0, -1) + JSON.stringify(bytes.toString('utf8', a, e)))
  sink.bytes(key)
  sink.copy(bytes, a, e)
  sink.byte(0x22)
}

/**
 * Panorama `row` of the table; `origin` is the request's origin, already escaped for the inside
 * of a JSON string. A row written before is copied from the table's arena around the origin.
 */
export function writePanorama(sink: ByteSink, table: PanoramaTable, row: number, origin: Buffer): void {
  if (table.arena.write(sink, row, origin)) return
  const from = sink.pos
  const cut = renderPanorama(sink, table, row, origin)
  table.arena.keep(row, sink.buf, from, cut, cut + origin.length, sink.pos)
}

/** Renders the record; returns the sink position where the origin was written. */
function renderPanorama(sink: ByteSink, f: PanoramaTable, row: number, origin: Buffer): number {
  const pano = f.pano
  const slug = SLUG[pano.rover[row]!]!
  const sol = pano.sol[row]!
  const camera = pano.camera.codes[row]!
  const site = pano.site[row]!
  const drive = pano.drive[row]!
  sink.bytes(slug.id)
  sink.int(sol)
  sink.byte(0x5f) // _
  sink.int(pano.n[row]!)
  sink.bytes(slug.rover)
  sink.int(sol)
  writeTime(sink, K.timeStart, pano.mars_time_start, f.startBytes, f.plainTimes, row)
  writeTime(sink, K.timeEnd, pano.mars_time_end, f.endBytes, f.plainTimes, row)
  sink.bytes(K.total)
  sink.int(pano.total_photos[row]!)
  sink.bytes(K.coverage)
  writeMilli(sink, pano.coverage_degrees[row]!)
  sink.bytes(K.site)
  sink.int(site)
  sink.bytes(K.drive)
  sink.int(drive)
  if (!Number.isNaN(pano.coord_x[row]!)) {
    sink.bytes(K.coordinates)
    writeMilli(sink, pano.coord_x[row]!)
    sink.bytes(K.y)
    writeMilli(sink, pano.coord_y[row]!)
    sink.bytes(K.z)
    writeMilli(sink, pano.coord_z[row]!)
    sink.byte(0x7d)
  }
  sink.bytes(f.camera[camera]!)
  writeMilli(sink, pano.avg_elevation[row]!)
  sink.bytes(K.positions)
  sink.int(pano.unique_positions[row]!)
  const spacing = pano.avg_position_spacing[row]!
  if (!Number.isNaN(spacing)) {
    sink.bytes(K.spacing)
    writeMilli(sink, spacing)
  }
  sink.bytes(f.quality[pano.quality.codes[row]!]!)
  writeIds(sink, pano.photo_ids_values, pano.photo_ids_offsets[row]!, pano.photo_ids_offsets[row + 1]!)
  sink.bytes(K.links)
  const cut = sink.pos
  sink.bytes(origin)
  sink.bytes(slug.query)
  sink.int(sol)
  sink.bytes(f.cameraQuery[camera]!)
  sink.int(site)
  sink.bytes(K.siteDrive)
  sink.int(drive)
  sink.bytes(K.end)
  return cut
}

/** The origin as it goes inside a JSON string (JSON.stringify's escapes). */
export function originFragment(base: string): Buffer {
  return fragment(JSON.stringify(base).slice(1, -1))
}
