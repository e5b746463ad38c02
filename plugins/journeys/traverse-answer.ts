import type { Store } from '../../src/store/store'
import type { TraverseColumns } from '../../src/store/schema'
import { ROVERS } from '../../src/catalog/rovers'
import { douglasPeucker } from '../../src/geo/douglas-peucker'
import { localFrame } from '../../src/geo/great-circle'
import { link } from '../../src/http/links'
import { readTraverseParams, roverOfSlug, type TraverseParams } from './journey-params'
import { degrees, metres, stretchFigures } from './stretch-figures'
import { traverseWindow } from './traverse-window'

/**
 * GET /api/v2/rovers/{slug}/traverse (behaviour.md §16.3, without its faults): the waypoint path
 * of a sol window with cumulative distance, elevation gain/loss and bounding box; as JSON, or
 * with format=geojson as an RFC 7946 FeatureCollection: positions [lon, lat] (§3.1.1, longitude
 * first, normalised to -180..180), one LineString of the path (§3.1.4, at least two positions,
 * else left out) and one Point per waypoint with sol, site and drive, and a bbox
 * [west, south, east, north] (§5). The coordinates are Mars planetocentric degrees, the
 * "prior arrangement" of §4 stated in the collection's `coordinate_system` member.
 * `simplify` (metres) keeps the Douglas–Peucker subset of the points (src/geo/douglas-peucker.ts,
 * in a local metric frame); the distances stay those measured along every point.
 */
export const TRAVERSE_PATH = '/api/v2/rovers/:slug/traverse'

export const GEOJSON_TYPE = 'application/geo+json'

export const COORDINATE_SYSTEM = 'Mars planetocentric longitude (east) and latitude in degrees, IAU 2000 Mars; elevation in metres above the areoid'

export interface TraverseAnswer {
  text: string
  geojson: boolean
}

export function traverseAnswer(store: Store, slug: string, params: URLSearchParams, base: string): TraverseAnswer {
  const code = roverOfSlug(slug)
  const p = readTraverseParams(params)
  const t = store.traverses
  const w = traverseWindow(t, code, p.solMin, p.solMax)
  const rover = ROVERS[code]!.slug
  const rows = w.ok ? keptRows(t, w.start, w.end, p.simplify) : []
  if (p.format === 'geojson') return { text: geojson(t, rover, w, rows, p), geojson: true }
  return { text: json(t, rover, w, rows, p, base, `/api/v2/rovers/${rover}/traverse`, params), geojson: false }
}

function keptRows(t: TraverseColumns, start: number, end: number, tolerance: number | undefined): number[] {
  const all = Array.from({ length: end - start + 1 }, (_, i) => start + i)
  if (tolerance === undefined || all.length <= 2) return all
  const frame = localFrame(t.lon[start]!, t.lat[start]!)
  const xs = all.map((r) => frame.x(t.lon[r]!))
  const ys = all.map((r) => frame.y(t.lat[r]!))
  return douglasPeucker(xs, ys, tolerance).map((i) => all[i]!)
}

type Window = ReturnType<typeof traverseWindow>

function solRange(p: TraverseParams, t: TraverseColumns, w: Window): string {
  const start = p.solMin ?? (w.first !== undefined ? t.sol[w.first] : undefined)
  const end = p.solMax ?? (w.last !== undefined ? Math.max(t.sol[w.last]!, t.last_sol[w.last]!) : undefined)
  return `{${[start !== undefined ? `"start":${start}` : '', end !== undefined ? `"end":${end}` : ''].filter(Boolean).join(',')}}`
}

function sources(t: TraverseColumns, rows: number[]): string {
  const seen = new Set<string>()
  for (const r of rows) seen.add(t.source.dict[t.source.codes[r]!]!)
  return JSON.stringify([...seen])
}

function bbox(t: TraverseColumns, start: number, end: number): { west: number; south: number; east: number; north: number; low: number; high: number } {
  const b = { west: Infinity, south: Infinity, east: -Infinity, north: -Infinity, low: Infinity, high: -Infinity }
  for (let r = start; r <= end; r++) {
    const lon = lon180(t.lon[r]!)
    b.west = Math.min(b.west, lon)
    b.east = Math.max(b.east, lon)
    b.south = Math.min(b.south, t.lat[r]!)
    b.north = Math.max(b.north, t.lat[r]!)
    const e = t.elevation_m[r]!
    if (!Number.isNaN(e)) {
      b.low = Math.min(b.low, e)
      b.high = Math.max(b.high, e)
    }
  }
  return b
}

/** East longitude in (-180, 180] (RFC 7946 §3.1.1 positions; Mars maps often use 0..360). */
export function lon180(lon: number): number {
  // values already in range are returned as they are (no rounding from modular arithmetic)
  if (lon > 180) return lon - 360 * Math.ceil((lon - 180) / 360)
  if (lon <= -180) return lon + 360 * Math.ceil((-180 - lon) / 360 + Number.EPSILON)
  return lon
}

function json(t: TraverseColumns, rover: string, w: Window, rows: number[], p: TraverseParams, base: string, path: string, params: URLSearchParams): string {
  const attrs: string[] = [`"rover":"${rover}"`, `"sol_range":${solRange(p, t, w)}`]
  let pathJson = '[]'
  if (w.ok) {
    const f = stretchFigures(t, w.start, w.end)
    const b = bbox(t, w.start, w.end)
    const origin = t.cum_distance_m[w.start]!
    attrs.push(
      `"start_sol":${t.sol[w.start]}`,
      `"point_count":${w.end - w.start + 1}`,
      ...(p.simplify !== undefined ? [`"simplified_point_count":${rows.length}`, `"simplify_tolerance_m":${p.simplify}`] : []),
      `"total_distance_m":${metres(f.distanceM)}`,
      `"distance_method":"${f.method}"`,
      `"distance_segments":{"nasa_dist_total_m":${f.nasaSegments},"great_circle":${f.greatCircleSegments}}`,
      `"distance_note":${JSON.stringify(f.note)}`,
      ...(f.elevation
        ? [`"total_elevation_gain_m":${metres(f.elevation.gain)}`, `"total_elevation_loss_m":${metres(f.elevation.loss)}`, `"net_elevation_change_m":${metres(f.elevation.net)}`]
        : [`"elevation_note":"The waypoints of this stretch state no elevation."`]),
      `"bounding_box":{"min":{"lon":${degrees(b.west)},"lat":${degrees(b.south)}${b.low <= b.high ? `,"elevation_m":${metres(b.low)}` : ''}},"max":{"lon":${degrees(b.east)},"lat":${degrees(b.north)}${b.low <= b.high ? `,"elevation_m":${metres(b.high)}` : ''}}}`,
      `"data_source":${sources(t, rows)}`,
      `"coordinate_system":${JSON.stringify(COORDINATE_SYSTEM)}`,
    )
    pathJson = `[${rows.map((r) => pointJson(t, r, origin)).join(',')}]`
  } else {
    attrs.push(`"point_count":0`, `"note":${JSON.stringify(w.reason)}`)
  }
  const self = link(base, path, params)
  const geo = link(base, path, params, { format: 'geojson' })
  return `{"data":{"id":"${rover}","type":"traverse","attributes":{${attrs.join(',')}},"path":${pathJson}},"links":{"self":${JSON.stringify(self)},"geojson":${JSON.stringify(geo)}}}`
}

function pointJson(t: TraverseColumns, r: number, origin: number): string {
  const e = t.elevation_m[r]!
  const last = t.last_sol[r]!
  return (
    `{"sol":${t.sol[r]}${last > t.sol[r]! ? `,"last_sol":${last}` : ''},"site":${t.site[r]},"drive":${t.drive[r]},` +
    `"lon":${degrees(t.lon[r]!)},"lat":${degrees(t.lat[r]!)}${Number.isNaN(e) ? '' : `,"elevation_m":${metres(e)}`},"cumulative_distance_m":${metres(t.cum_distance_m[r]! - origin)}}`
  )
}

function geojson(t: TraverseColumns, rover: string, w: Window, rows: number[], p: TraverseParams): string {
  const features: string[] = []
  const members: string[] = [`"type":"FeatureCollection"`, `"rover":"${rover}"`, `"coordinate_system":${JSON.stringify(COORDINATE_SYSTEM)}`]
  if (w.ok) {
    const f = stretchFigures(t, w.start, w.end)
    const b = bbox(t, w.start, w.end)
    const origin = t.cum_distance_m[w.start]!
    members.push(`"bbox":[${degrees(b.west)},${degrees(b.south)},${degrees(b.east)},${degrees(b.north)}]`)
    const position = (r: number) => `[${degrees(lon180(t.lon[r]!))},${degrees(t.lat[r]!)}]`
    if (rows.length >= 2) {
      const props = [
        `"rover":"${rover}"`,
        `"sol_start":${p.solMin ?? t.sol[w.start]}`,
        `"sol_end":${p.solMax ?? t.sol[w.end]}`,
        `"total_distance_m":${metres(f.distanceM)}`,
        `"distance_method":"${f.method}"`,
        ...(f.elevation ? [`"total_elevation_gain_m":${metres(f.elevation.gain)}`, `"total_elevation_loss_m":${metres(f.elevation.loss)}`, `"net_elevation_change_m":${metres(f.elevation.net)}`] : []),
        `"point_count":${w.end - w.start + 1}`,
        ...(p.simplify !== undefined ? [`"simplified_point_count":${rows.length}`, `"simplify_tolerance_m":${p.simplify}`] : []),
      ]
      features.push(`{"type":"Feature","geometry":{"type":"LineString","coordinates":[${rows.map(position).join(',')}]},"properties":{${props.join(',')}}}`)
    }
    for (const r of rows) {
      const e = t.elevation_m[r]!
      features.push(
        `{"type":"Feature","geometry":{"type":"Point","coordinates":${position(r)}},"properties":{"sol":${t.sol[r]},"site":${t.site[r]},"drive":${t.drive[r]}` +
          `${Number.isNaN(e) ? '' : `,"elevation_m":${metres(e)}`},"cumulative_distance_m":${metres(t.cum_distance_m[r]! - origin)}}}`,
      )
    }
  } else {
    members.push(`"note":${JSON.stringify(w.reason)}`)
  }
  members.push(`"features":[${features.join(',')}]`)
  return `{${members.join(',')}}`
}
