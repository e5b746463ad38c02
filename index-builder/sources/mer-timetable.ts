import { ROVERS, type RoverSlug } from '../../src/catalog/rovers'
import { columnIndex, tableNumber, type Table } from './delimited-text'
import { roverFromFileName } from './rover-by-place'
import { eachRecord, RecordError, SourceError, type ReadContext } from './source-error'
import { compact } from './photo-draft'

/**
 * MER timetables from the MER Analyst's Notebook (SOURCES.md §2.10): one row per sol with
 * `Sol, Hybrid Local Solar Time ("0001:12:09:17" = sol:hh:mm:ss), SCLK, UTC ("2004-01-04 02.05.34"),
 * Solar longitude, Solar azimuth, Solar elevation, Sun distance`, decimal commas.
 * They calibrate the MER clocks (sclk-to-utc.ts) and check our Mars time (docs/derived-fields.md).
 * The rover: named in the file name, else the one whose landing date is the UTC date of sol 1's row
 * (± 1 day).
 */
export interface MerTimetableRow {
  rover: RoverSlug
  sol: number
  /** Hybrid Local Solar Time of day of the row, ms. */
  hlst_ms: number
  sclk: number
  utc_ms: number
  ls?: number
  solar_azimuth?: number
  solar_elevation?: number
  sun_distance_au?: number
}

export function isMerTimetable(t: Table): boolean {
  return columnIndex(t.header, 'Hybrid Local Solar Time') >= 0 && columnIndex(t.header, 'SCLK') >= 0 && columnIndex(t.header, 'UTC') >= 0
}

const HLST = /^(\d+):(\d{2}):(\d{2}):(\d{2})$/
const UTC = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2})[.:](\d{2})[.:](\d{2})$/

export function readMerTimetable(t: Table, ctx: ReadContext): { records: number; rows: MerTimetableRow[] } {
  const c = {
    sol: columnIndex(t.header, 'Sol'),
    hlst: columnIndex(t.header, 'Hybrid Local Solar Time'),
    sclk: columnIndex(t.header, 'SCLK'),
    utc: columnIndex(t.header, 'UTC'),
    ls: columnIndex(t.header, 'Solar longitude (deg)'),
    az: columnIndex(t.header, 'Solar azimuth (deg)'),
    el: columnIndex(t.header, 'Solar elevation (deg)'),
    au: columnIndex(t.header, 'Sun distance (AU)'),
  }
  const parsed = eachRecord(ctx, t.rows, (r) => r[c.sol], (r) => {
    const sol = tableNumber(r[c.sol])
    if (sol === undefined || !Number.isInteger(sol)) throw new RecordError('missing sol')
    const h = HLST.exec((r[c.hlst] ?? '').trim())
    if (!h) throw new RecordError(`Hybrid Local Solar Time ${JSON.stringify(r[c.hlst])} is not sol:hh:mm:ss`)
    const u = UTC.exec((r[c.utc] ?? '').trim())
    if (!u) throw new RecordError(`UTC ${JSON.stringify(r[c.utc])} is not "YYYY-MM-DD HH.MM.SS"`)
    const sclk = tableNumber(r[c.sclk])
    if (sclk === undefined) throw new RecordError('missing SCLK')
    return {
      sol,
      hlst_ms: ((Number(h[2]) * 60 + Number(h[3])) * 60 + Number(h[4])) * 1000,
      sclk,
      utc_ms: Date.UTC(Number(u[1]), Number(u[2]) - 1, Number(u[3]), Number(u[4]), Number(u[5]), Number(u[6])),
      ls: tableNumber(r[c.ls]),
      solar_azimuth: tableNumber(r[c.az]),
      solar_elevation: tableNumber(r[c.el]),
      sun_distance_au: tableNumber(r[c.au]),
    }
  })
  const rover = roverFromFileName(ctx.file.slice(ctx.file.lastIndexOf('/') + 1)) ?? roverByLanding(parsed)
  if (!rover) throw new SourceError(ctx.file, 'file', 'cannot tell which rover this timetable belongs to')
  return { records: t.rows.length, rows: parsed.map((p) => compact({ rover, ...p })) }
}

function roverByLanding(rows: ReadonlyArray<{ sol: number; utc_ms: number }>): RoverSlug | undefined {
  const r = rows[0]
  if (!r) return undefined
  const landing = r.utc_ms - r.sol * 88775244
  for (const rv of ROVERS) if (Math.abs(Date.parse(`${rv.landing_date}T12:00:00Z`) - landing) < 2 * 86400000) return rv.slug
  return undefined
}
