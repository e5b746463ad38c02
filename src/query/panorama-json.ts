import type { PanoramaColumns } from '../store/schema'
import { utf8Strings } from '../store/arrow-columns'
import { ROVER_SLUGS } from '../catalog/rovers'
import { fragment, type ByteSink } from './byte-sink'
import { writeDouble } from './float32-text'

/**
 * One panorama record as JSON bytes (behaviour.md §15.3 fields; optional ones omitted when
 * unknown; panoramas-list.ts says what each field means). The texts shared by many records
 * (rover slugs, camera and quality values, Mars times) are made once per panorama table; per
 * record, numbers are written as digits (Number#toString's text, `null` when not finite) and
 * photo ids straight from the id list: no template string, no Array#join.
 */
interface Fragments {
  start: string[]
  end: string[]
  camera: Buffer[]
  cameraQuery: Buffer[]
  quality: Buffer[]
}

const fragments = new WeakMap<PanoramaColumns, Fragments>()

function fragmentsOf(pano: PanoramaColumns): Fragments {
  let f = fragments.get(pano)
  if (!f) {
    f = {
      start: utf8Strings(pano.mars_time_start, pano.length).map((s) => (s ? ',"mars_time_start":' + JSON.stringify(s) : '')),
      end: utf8Strings(pano.mars_time_end, pano.length).map((s) => (s ? ',"mars_time_end":' + JSON.stringify(s) : '')),
      camera: pano.camera.dict.map((c) => fragment('},"camera":' + JSON.stringify(c) + ',"avg_elevation":')),
      // inside the links.photos string: percent-encoded, so JSON needs no escape in it
      cameraQuery: pano.camera.dict.map((c) => fragment('&cameras=' + encodeURIComponent(c) + '&site=')),
      quality: pano.quality.dict.map((q) => fragment(',"quality":' + JSON.stringify(q) + ',"photo_ids":[')),
    }
    fragments.set(pano, f)
  }
  return f
}

const SLUG = ROVER_SLUGS.map((s) => ({
  id: fragment('{"id":"pano_' + s + '_'),
  rover: fragment('","type":"panorama","attributes":{"rover":"' + s + '","sol":'),
  query: fragment('/api/v2/photos?rovers=' + s + '&sol='),
}))
const K = {
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

/** `origin` is the request's origin, already escaped for the inside of a JSON string. */
export function writePanorama(sink: ByteSink, pano: PanoramaColumns, row: number, origin: Buffer): void {
  const f = fragmentsOf(pano)
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
  const start = f.start[row]!
  if (start) sink.text(start)
  const end = f.end[row]!
  if (end) sink.text(end)
  sink.bytes(K.total)
  sink.int(pano.total_photos[row]!)
  sink.bytes(K.coverage)
  writeNumber(sink, pano.coverage_degrees[row]!)
  sink.bytes(K.site)
  sink.int(site)
  sink.bytes(K.drive)
  sink.int(drive)
  if (!Number.isNaN(pano.coord_x[row]!)) {
    sink.bytes(K.coordinates)
    writeNumber(sink, pano.coord_x[row]!)
    sink.bytes(K.y)
    writeNumber(sink, pano.coord_y[row]!)
    sink.bytes(K.z)
    writeNumber(sink, pano.coord_z[row]!)
    sink.byte(0x7d)
  }
  sink.bytes(f.camera[camera]!)
  writeNumber(sink, pano.avg_elevation[row]!)
  sink.bytes(K.positions)
  sink.int(pano.unique_positions[row]!)
  const spacing = pano.avg_position_spacing[row]!
  if (!Number.isNaN(spacing)) {
    sink.bytes(K.spacing)
    writeNumber(sink, spacing)
  }
  sink.bytes(f.quality[pano.quality.codes[row]!]!)
  const values = pano.photo_ids_values
  const to = pano.photo_ids_offsets[row + 1]!
  for (let i = pano.photo_ids_offsets[row]!; i < to; i++) {
    if (i > pano.photo_ids_offsets[row]!) sink.byte(0x2c)
    sink.int(values[i]!)
  }
  sink.bytes(K.links)
  sink.bytes(origin)
  sink.bytes(slug.query)
  sink.int(sol)
  sink.bytes(f.cameraQuery[camera]!)
  sink.int(site)
  sink.bytes(K.siteDrive)
  sink.int(drive)
  sink.bytes(K.end)
}

/** The origin as it goes inside a JSON string (JSON.stringify's escapes). */
export function originFragment(base: string): Buffer {
  return fragment(JSON.stringify(base).slice(1, -1))
}
