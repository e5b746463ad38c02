import type { RoverSlug } from '../../src/catalog/rovers'
import type { RoverManifest } from '../sources/v1-manifest'
import { solStartUtcMs } from './mission-sol'
import { clockCountOf } from './clock-count'
import type { PhotoRecord } from './photo-record'
import type { SclkToUtc } from './sclk-to-utc'
import { utcDate } from './utc-time'

/**
 * Stated values that contradict their own record (docs/derived-fields.md, "Stated values that
 * contradict their record"). A stated value wins while it is consistent with the record's other
 * facts; beyond the tolerances below it is not served as stated: the record's other facts give
 * the served value (derived as documented), the stated one stays in `raw`, and each case is
 * counted per source in the build summary.
 *
 *   date_taken_utc  contradicts the record's clock count (its own, else its id's: clock-count.ts)
 *                   when it lies more than TIME_TOLERANCE_MS from the UTC that count gives through
 *                   the rover's calibrated clock (sclk-to-utc.ts): the clock's UTC is served, and a
 *                   stated earth_date follows it.
 *   earth_date      of a record stating no capture time (v1): contradicts its sol when NASA's v1
 *                   manifest dates that sol differently (v1 dated each sol once: the manifest's
 *                   date is served), and, where no manifest states the sol, when it lies
 *                   SOL_DATE_DAYS calendar days or more from the UTC date on which the sol begins
 *                   (served: the UTC date of the record's clock count, else the date the sol begins).
 * Runs on records as read, before anything is derived into them; mutates the record.
 */
export const TIME_TOLERANCE_MS = 60_000
export const SOL_DATE_DAYS = 2

export type ContradictedField = 'date_taken_utc' | 'earth_date'

const DAY_MS = 86_400_000

export class StatedValueCheck {
  readonly #manifestDate = new Map<string, string>()
  readonly #solStart = new Map<string, number>()

  constructor(readonly clocks: Record<RoverSlug, SclkToUtc>, manifests: readonly RoverManifest[]) {
    for (const m of manifests) for (const s of m.sols) this.#manifestDate.set(`${m.rover}/${s.sol}`, s.earth_date)
  }

  /** NASA's v1 manifest date of a sol, where a manifest states one. */
  manifestDate(rover: RoverSlug, sol: number): string | undefined {
    return this.#manifestDate.get(`${rover}/${sol}`)
  }

  /** The UTC date on which a mission sol begins. */
  solStartDate(rover: RoverSlug, sol: number): string {
    const k = `${rover}/${sol}`
    let t = this.#solStart.get(k)
    if (t === undefined) this.#solStart.set(k, (t = solStartUtcMs(rover, sol)))
    return utcDate(t)
  }

  /** UTC of the record's clock count, or undefined when it has none (or the clock is not calibrated there). */
  clockUtc(rec: PhotoRecord): number | undefined {
    const clock = clockCountOf(rec)
    return clock === undefined ? undefined : this.clocks[rec.rover](clock)
  }

  /** Corrects the record's contradicted stated values; returns the fields it corrected. */
  correct(rec: PhotoRecord): ContradictedField[] {
    const out: ContradictedField[] = []
    if (rec.date_taken_utc !== undefined) {
      const clock = this.clockUtc(rec)
      if (clock !== undefined && Math.abs(rec.date_taken_utc - clock) > TIME_TOLERANCE_MS) {
        rec.date_taken_utc = clock
        out.push('date_taken_utc')
        if (rec.earth_date !== '' && rec.earth_date !== utcDate(clock)) rec.earth_date = utcDate(clock)
      }
      return out
    }
    if (rec.earth_date === '') return out
    const nasa = this.manifestDate(rec.rover, rec.sol)
    if (nasa !== undefined) {
      if (rec.earth_date !== nasa) {
        rec.earth_date = nasa
        out.push('earth_date')
      }
      return out
    }
    const start = this.solStartDate(rec.rover, rec.sol)
    if (Math.abs(Date.parse(rec.earth_date) - Date.parse(start)) >= SOL_DATE_DAYS * DAY_MS) {
      const clock = this.clockUtc(rec)
      rec.earth_date = clock !== undefined ? utcDate(clock) : start
      out.push('earth_date')
    }
    return out
  }
}
