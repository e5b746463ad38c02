import type { PhotoRecord } from './photo-record'
import { clockCountOf } from './clock-count'
import { parseImageId } from './parse-image-id'
import type { SclkToUtc } from './sclk-to-utc'
import { lmstMsAt, missionSolAt } from './mission-sol'
import { formatDateTakenMars, parseMarsTimeMs } from './date-taken-mars'
import { utcDate } from './utc-time'

/**
 * Fills what a record encodes but does not state (SOURCES.md §4.5, docs/derived-fields.md), never
 * overwriting a value the record gives:
 *   sclk, site, drive, sample_type   ← the NASA image id (parse-image-id.ts)
 *   date_taken_utc                   ← sclk through the rover's calibrated clock (sclk-to-utc.ts)
 *   date_taken_mars, mars_time_ms    ← Mars24 LMST of date_taken_utc at the landing longitude, plus the
 *                                      clock fit's correction where labels cover the sol (clock-fit.ts), with
 *                                      the record's sol (mission-sol.ts); mars_time_ms also parses a verbatim
 *                                      date_taken_mars
 *   earth_date                       ← UTC date of date_taken_utc
 * Returns the names of the fields it filled, and notes where the id or the clock disagree with the record.
 */
export interface Derivation {
  filled: string[]
  /** The sol in the image id differs from the record's sol. */
  idSolMismatch?: number
  /** The mission sol at the (derived) UTC time differs from the record's sol. */
  clockSolMismatch?: number
}

export function deriveFields(rec: PhotoRecord, toUtc: SclkToUtc, lmstCorrectionMs?: (sclk: number, sol: number) => number): Derivation {
  const filled: string[] = []
  const out: Derivation = { filled }
  const id = parseImageId(rec.rover, rec.nasa_id)
  if (id.sol !== undefined && id.sol !== rec.sol) out.idSolMismatch = id.sol
  if (rec.sclk === undefined && id.sclk !== undefined) {
    rec.sclk = id.sclk
    filled.push('sclk')
  }
  if (rec.site === undefined && rec.drive === undefined && id.site !== undefined && id.drive !== undefined) {
    rec.site = id.site
    rec.drive = id.drive
    filled.push('site', 'drive')
  }
  if (rec.sample_type === undefined && id.sample_type !== undefined) {
    rec.sample_type = id.sample_type
    filled.push('sample_type')
  }
  let utcDerived = false
  const clock = clockCountOf(rec, id)
  if (rec.date_taken_utc === undefined && clock !== undefined) {
    const t = toUtc(clock)
    if (t !== undefined) {
      rec.date_taken_utc = t
      utcDerived = true
      filled.push('date_taken_utc')
    }
  }
  if (utcDerived) {
    const sol = missionSolAt(rec.rover, rec.date_taken_utc!)
    if (sol !== rec.sol) out.clockSolMismatch = sol
  }
  if (rec.date_taken_mars === undefined && rec.date_taken_utc !== undefined) {
    // The clock fit's per-sol correction of Mars24 at the landing longitude (clock-fit.ts).
    const fix = clock !== undefined && lmstCorrectionMs ? lmstCorrectionMs(clock, rec.sol) : 0
    const ms = (((lmstMsAt(rec.rover, rec.date_taken_utc) + fix) % 86_400_000) + 86_400_000) % 86_400_000
    rec.date_taken_mars = formatDateTakenMars(rec.sol, ms)
    rec.mars_time_ms = ms
    filled.push('date_taken_mars', 'mars_time_ms')
  } else if (rec.date_taken_mars !== undefined && rec.mars_time_ms === undefined) {
    const ms = parseMarsTimeMs(rec.date_taken_mars)
    if (ms !== undefined) rec.mars_time_ms = ms
  }
  if (rec.earth_date === '' && rec.date_taken_utc !== undefined) {
    rec.earth_date = utcDate(rec.date_taken_utc)
    filled.push('earth_date')
  }
  return out
}
