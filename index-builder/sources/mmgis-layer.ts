import { parseCount, parseNumber } from '../normalize/parse-tuple'
import { roverFromFileName, roverNearPlace } from './rover-by-place'
import { eachRecord, RecordError, SourceError, type ReadContext } from './source-error'
import type { TraverseSummary, Waypoint } from './waypoint'
import { compact } from './photo-draft'
import type { RoverSlug } from '../../src/catalog/rovers'

/**
 * NASA MMGIS layers (SOURCES.md §2.8, §2.9): GeoJSON FeatureCollections. Waypoint layers hold Point
 * features with properties site, drive, sol, lon, lat, elev_geoid, easting, northing, dist_total_m, …;
 * traverse layers hold (Multi)LineString features. The rover is the one whose landing site is nearest
 * to the features (the layers do not name it), else the one named in the file or layer name.
 */
type Feature = { type?: string; properties?: Record<string, unknown>; geometry?: { type?: string; coordinates?: unknown } }

export function isFeatureCollection(doc: unknown): doc is { type: string; name?: string; features: Feature[] } {
  return !!doc && typeof doc === 'object' && (doc as { type?: unknown }).type === 'FeatureCollection' && Array.isArray((doc as { features?: unknown }).features)
}

export function isLineLayer(doc: { features: Feature[] }): boolean {
  const g = doc.features[0]?.geometry?.type
  return g === 'LineString' || g === 'MultiLineString'
}

function firstPosition(c: unknown): [number, number] | undefined {
  let x = c
  while (Array.isArray(x) && Array.isArray(x[0])) x = x[0]
  return Array.isArray(x) && typeof x[0] === 'number' && typeof x[1] === 'number' ? [x[0], x[1]] : undefined
}

/** Positions in a (nested) GeoJSON coordinates array. */
function countPositions(c: unknown): number {
  if (!Array.isArray(c)) return 0
  return Array.isArray(c[0]) ? c.reduce((s: number, x) => s + countPositions(x), 0) : 1
}

function layerRover(doc: { name?: string; features: Feature[] }, ctx: ReadContext): RoverSlug {
  let sLon = 0
  let sLat = 0
  let n = 0
  for (const f of doc.features) {
    const p = firstPosition(f.geometry?.coordinates)
    if (p) {
      sLon += p[0]
      sLat += p[1]
      n++
    }
  }
  const rover = (n > 0 ? roverNearPlace(sLon / n, sLat / n) : undefined) ?? roverFromFileName(`${ctx.file} ${doc.name ?? ''}`)
  if (!rover) throw new SourceError(ctx.file, 'file', 'cannot tell which rover this location layer belongs to')
  return rover
}

export function readMmgisWaypoints(doc: { name?: string; features: Feature[] }, ctx: ReadContext): { records: number; waypoints: Waypoint[] } {
  if (doc.features.length === 0) return { records: 0, waypoints: [] }
  const rover = layerRover(doc, ctx)
  const waypoints = eachRecord(ctx, doc.features, (f) => f?.properties?.RMC, (f) => {
    const p = f?.properties
    if (!p) throw new RecordError('feature without properties')
    const site = parseCount(p.site)
    const drive = parseCount(p.drive)
    if (site === undefined || drive === undefined) throw new RecordError('missing site or drive')
    const pos = firstPosition(f.geometry?.coordinates)
    const w: Waypoint = compact({
      rover,
      site,
      drive,
      sol: parseCount(p.sol),
      lon: parseNumber(p.lon) ?? pos?.[0],
      lat: parseNumber(p.lat) ?? pos?.[1],
      elevation_m: parseNumber(p.elev_geoid),
      easting: parseNumber(p.easting),
      northing: parseNumber(p.northing),
      dist_total_m: parseNumber(p.dist_total_m),
      format: 'waypoints',
      source: ctx.file,
    })
    return w
  })
  return { records: doc.features.length, waypoints }
}

export function readMmgisTraverse(doc: { name?: string; features: Feature[] }, ctx: ReadContext): { records: number; traverse: TraverseSummary } {
  const rover = layerRover(doc, ctx)
  let points = 0
  let length = 0
  let hasLength = false
  for (const f of doc.features) {
    points += countPositions(f.geometry?.coordinates)
    const l = parseNumber(f.properties?.Length)
    if (l !== undefined) {
      length += l
      hasLength = true
    }
  }
  return { records: doc.features.length, traverse: compact({ rover, source: ctx.file, segments: doc.features.length, points, length_m: hasLength ? length : undefined }) }
}
