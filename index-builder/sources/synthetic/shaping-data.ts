import { gunzipSync } from 'bun'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { RoverSlug } from '../../../src/catalog/rovers'

/** The real data folder (SOURCES.md): `../shared/data/raw` beside the repository. */
export const RAW_DIR = resolve(import.meta.dir, '../../..', '../shared/data/raw')

/** One real file the synthetic catalogue is shaped on (listed in the manifest's sources). */
export interface ShapingFile {
  path: string
  format: string
  records: number
}

function readMaybeGz(path: string): Uint8Array {
  const bytes = readFileSync(path)
  return path.endsWith('.gz') ? gunzipSync(bytes) : bytes
}

function readJson(path: string): any {
  return JSON.parse(new TextDecoder().decode(readMaybeGz(path)))
}

export interface SolVolume {
  sol: number
  count: number
  cameras: string[]
}

/** Per-sol photo counts and camera lists of a v1 manifest (SOURCES.md §2.1). */
export function readManifestVolumes(rover: 'curiosity' | 'opportunity' | 'spirit', used: ShapingFile[]): SolVolume[] {
  const path = join(RAW_DIR, 'LakhvirMadhar__mars_rover_data_analysis', `${rover}_manifest.json.gz`)
  const photos = readJson(path).photo_manifest.photos as Array<{ sol: number; total_photos: number; cameras: string[] }>
  used.push({ path, format: 'manifest', records: photos.length })
  return photos.map((p) => ({ sol: p.sol, count: p.total_photos, cameras: p.cameras }))
}

/** A waypoint: the rover reached (site, drive) on `sol`, at lat/lon (planetocentric, east) when the table states them. */
export interface Waypoint {
  sol: number
  site: number
  drive: number
  lat?: number
  lon?: number
}

type WaypointProperties = { sol: number; site: number; drive: number; lat?: unknown; lon?: unknown }

/** A table's waypoint, with its position when both coordinates are numbers. */
function waypointOf(p: WaypointProperties): Waypoint {
  const w: Waypoint = { sol: Number(p.sol), site: Number(p.site), drive: Number(p.drive) }
  const lat = p.lat === undefined || p.lat === null || p.lat === '' ? NaN : Number(p.lat)
  const lon = p.lon === undefined || p.lon === null || p.lon === '' ? NaN : Number(p.lon)
  if (Number.isFinite(lat) && Number.isFinite(lon)) { w.lat = lat; w.lon = lon }
  return w
}

function geojsonWaypoints(path: string): Waypoint[] {
  const features = readJson(path).features as Array<{ properties: WaypointProperties }>
  return features.map((f) => waypointOf(f.properties))
}

/** Reads the files of an ustar archive (512-byte headers, SOURCES.md §2.9 daily snapshots). */
function tarFiles(bytes: Uint8Array): Array<{ name: string; data: Uint8Array }> {
  const out: Array<{ name: string; data: Uint8Array }> = []
  const ascii = new TextDecoder('latin1')
  for (let p = 0; p + 512 <= bytes.length; ) {
    const header = bytes.subarray(p, p + 512)
    if (header.every((b) => b === 0)) break
    const name = ascii.decode(header.subarray(0, 100)).replace(/\0.*$/s, '')
    const size = parseInt(ascii.decode(header.subarray(124, 136)).replace(/\0.*$/s, '').trim() || '0', 8)
    const type = String.fromCharCode(header[156]!)
    p += 512
    if (type === '0' || type === '\0') out.push({ name, data: bytes.subarray(p, p + size) })
    p += Math.ceil(size / 512) * 512
  }
  return out
}

/** Waypoint tables per rover (SOURCES.md §2.8-2.10, §6.4); Opportunity has none. */
export function readWaypoints(rover: RoverSlug, used: ShapingFile[]): Waypoint[] {
  const list: Waypoint[] = []
  if (rover === 'curiosity') {
    const path = join(RAW_DIR, 'stattari__mars-rover-data', 'all_waypoints.geojson.gz')
    const w = geojsonWaypoints(path)
    used.push({ path, format: 'waypoints', records: w.length })
    list.push(...w)
  } else if (rover === 'perseverance') {
    const path = join(RAW_DIR, 'stiles__mars-perseverance-waypoints', 'waypoints_2024-04-04.json.gz')
    const w = geojsonWaypoints(path)
    used.push({ path, format: 'waypoints', records: w.length })
    list.push(...w)
    const tarPath = join(RAW_DIR, 'stiles__mars-perseverance-waypoints', 'waypoints_current_daily.tar.gz')
    const files = tarFiles(readMaybeGz(tarPath)).filter((f) => f.name.endsWith('.json'))
    let n = 0
    for (const f of files) {
      for (const feature of JSON.parse(new TextDecoder().decode(f.data)).features ?? []) {
        list.push(waypointOf(feature.properties))
        n++
      }
    }
    used.push({ path: tarPath, format: 'waypoints', records: n })
  } else if (rover === 'spirit') {
    const path = join(RAW_DIR, 'jumpjack__VST-converter', 'drives.tsv')
    const lines = new TextDecoder().decode(readMaybeGz(path)).split('\n')
    const head = lines[0]!.split('\t')
    const [si, di, fi, lat, lon] = ['rmcSite', 'rmcDrive', 'firstSol', 'latitude', 'longitude'].map((c) => head.indexOf(c))
    let n = 0
    for (const line of lines.slice(1)) {
      const cells = line.split('\t')
      if (cells.length < head.length) continue
      list.push(waypointOf({ sol: Number(cells[fi!]), site: Number(cells[si!]), drive: Number(cells[di!]), lat: cells[lat!], lon: cells[lon!] }))
      n++
    }
    used.push({ path, format: 'waypoints', records: n })
  }
  return list.filter((w) => Number.isInteger(w.sol) && Number.isInteger(w.site) && Number.isInteger(w.drive))
}
