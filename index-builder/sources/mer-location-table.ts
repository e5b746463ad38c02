import type { RoverSlug } from '../../src/catalog/rovers'
import { columnIndex, tableNumber, type Table } from './delimited-text'
import { METRES_PER_DEGREE, roverFromFileName, roverNearPlace } from './rover-by-place'
import { eachRecord, RecordError, SourceError, type ReadContext } from './source-error'
import { compact } from './photo-draft'
import type { Waypoint } from './waypoint'

/**
 * MER location tables from jumpjack/VST-converter (SOURCES.md §2.10):
 *  - rover motion counter tables (`drives.tsv`, `sites.tsv`): latitude, longitude, altitude, geometry,
 *    rmcSite, rmcDrive, rmcPose, firstSol, lastSol, xCorrected, yCorrected;
 *  - traverse tables (`traverse_map.tsv` with decimal commas, `…traverse_path.csv`): SITE, DRIVE,
 *    START_SOL, END_SOL, RAW_X/Y/Z, CORRECTED_X/Y.
 * The rover: the file name when it names one, else the landing site nearest to the rows (for the
 * traverse tables from CORRECTED_Y, metres north of the equator: y / (π R / 180) is the latitude).
 */
export function isMerRmcTable(t: Table): boolean {
  return columnIndex(t.header, 'rmcSite') >= 0 && columnIndex(t.header, 'rmcDrive') >= 0
}

export function isMerTraverseTable(t: Table): boolean {
  return columnIndex(t.header, 'SITE') >= 0 && columnIndex(t.header, 'DRIVE') >= 0 && columnIndex(t.header, 'START_SOL') >= 0
}

function pickRover(ctx: ReadContext, lon: number | undefined, lat: number | undefined): RoverSlug {
  const r = roverFromFileName(ctx.file.slice(ctx.file.lastIndexOf('/') + 1)) ?? (lat !== undefined ? roverNearPlace(lon, lat) : undefined)
  if (!r) throw new SourceError(ctx.file, 'file', 'cannot tell which rover this location table belongs to')
  return r
}

function mean(t: Table, col: number): number | undefined {
  if (col < 0) return undefined
  let s = 0
  let n = 0
  for (const r of t.rows) {
    const v = tableNumber(r[col])
    if (v !== undefined) {
      s += v
      n++
    }
  }
  return n > 0 ? s / n : undefined
}

export function readMerRmcTable(t: Table, ctx: ReadContext): { records: number; waypoints: Waypoint[] } {
  const c = {
    lat: columnIndex(t.header, 'latitude'),
    lon: columnIndex(t.header, 'longitude'),
    alt: columnIndex(t.header, 'altitude'),
    site: columnIndex(t.header, 'rmcSite'),
    drive: columnIndex(t.header, 'rmcDrive'),
    pose: columnIndex(t.header, 'rmcPose'),
    first: columnIndex(t.header, 'firstSol'),
    last: columnIndex(t.header, 'lastSol'),
    x: columnIndex(t.header, 'xCorrected'),
    y: columnIndex(t.header, 'yCorrected'),
  }
  const rover = pickRover(ctx, mean(t, c.lon), mean(t, c.lat))
  const waypoints = eachRecord(ctx, t.rows, () => undefined, (r) => {
    const site = tableNumber(r[c.site])
    const drive = tableNumber(r[c.drive])
    if (site === undefined || drive === undefined || !Number.isInteger(site) || !Number.isInteger(drive)) throw new RecordError('missing rmcSite or rmcDrive')
    return compact<Waypoint>({
      rover,
      site,
      drive,
      pose: int(r[c.pose]),
      sol: int(r[c.first]),
      last_sol: int(r[c.last]),
      lon: tableNumber(r[c.lon]),
      lat: tableNumber(r[c.lat]),
      elevation_m: tableNumber(r[c.alt]),
      x: tableNumber(r[c.x]),
      y: tableNumber(r[c.y]),
      format: 'mer-rmc-table',
      source: ctx.file,
    })
  })
  return { records: t.rows.length, waypoints }
}

export function readMerTraverseTable(t: Table, ctx: ReadContext): { records: number; waypoints: Waypoint[] } {
  const c = {
    site: columnIndex(t.header, 'SITE'),
    drive: columnIndex(t.header, 'DRIVE'),
    first: columnIndex(t.header, 'START_SOL'),
    last: columnIndex(t.header, 'END_SOL'),
    x: columnIndex(t.header, 'CORRECTED_X'),
    y: columnIndex(t.header, 'CORRECTED_Y'),
  }
  const meanY = mean(t, c.y)
  const rover = pickRover(ctx, undefined, meanY !== undefined ? meanY / METRES_PER_DEGREE : undefined)
  const waypoints = eachRecord(ctx, t.rows, () => undefined, (r) => {
    const site = tableNumber(r[c.site])
    const drive = tableNumber(r[c.drive])
    if (site === undefined || drive === undefined || !Number.isInteger(site) || !Number.isInteger(drive)) throw new RecordError('missing SITE or DRIVE')
    return compact<Waypoint>({
      rover,
      site,
      drive,
      sol: int(r[c.first]),
      last_sol: int(r[c.last]),
      x: tableNumber(r[c.x]),
      y: tableNumber(r[c.y]),
      format: 'mer-traverse-table',
      source: ctx.file,
    })
  })
  return { records: t.rows.length, waypoints }
}

function int(s: string | undefined): number | undefined {
  const v = tableNumber(s)
  return v !== undefined && Number.isInteger(v) ? v : undefined
}
