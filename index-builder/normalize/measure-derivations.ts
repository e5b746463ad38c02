import type { RoverSlug } from '../../src/catalog/rovers'
import { parseMarsTimeMs } from './date-taken-mars'
import { lmstMsAt, missionSolAt } from './mission-sol'
import { parseImageId } from './parse-image-id'
import type { PhotoRecord } from './photo-record'
import type { SclkToUtc } from './sclk-to-utc'

/**
 * How far each derivation of derive-fields.ts is from the truth, measured on the records that
 * state the value themselves (a stated value always wins; the derivation only fills lean records):
 *   utc_from_sclk       clock-derived UTC − stated UTC, seconds (SCLK from the file name, as derived)
 *   lmst_mars24         Mars24 LMST of the stated UTC − stated LMST, Mars seconds (wrapped to ±12 h)
 *   sol_from_clock      mission sol at the stated UTC vs the stated sol
 *   lmst_from_sclk      the whole chain a lean record gets (file-name SCLK → UTC → Mars24 LMST + the clock
 *                       fit's correction, clock-fit.ts) vs the
 *                       stated LMST, Mars seconds; sol_from_sclk the same chain's sol vs the stated sol
 *                       (these need no stated UTC, so they also test feeds whose UTC is not the capture time)
 *   site_drive_from_id  site and drive in the image id vs the stated ones
 *   sample_type_from_id sample type from the id's sampling letter vs the stated one
 * Run on the records as read, before anything is derived into them.
 */
export interface NumericError {
  n: number
  mean: number
  median_abs: number
  p95_abs: number
  max_abs: number
}
export interface AgreementCount {
  n: number
  agree: number
}
export type DerivationErrors = Partial<Record<RoverSlug, Record<string, NumericError | AgreementCount>>>

const HALF_DAY_MS = 43_200_000

/** A time-of-day difference folded into ±12 h. */
function wrapDay(d: number): number {
  if (d > HALF_DAY_MS) return d - 2 * HALF_DAY_MS
  if (d < -HALF_DAY_MS) return d + 2 * HALF_DAY_MS
  return d
}

export function measureDerivations(records: readonly PhotoRecord[], clocks: Record<RoverSlug, SclkToUtc>, lmstCorrections: Partial<Record<RoverSlug, (sclk: number, sol: number) => number>> = {}): DerivationErrors {
  const numeric = new Map<string, number[]>()
  const agreement = new Map<string, AgreementCount>()
  const addNum = (rover: string, method: string, v: number) => {
    const k = `${rover}\0${method}`
    const list = numeric.get(k)
    if (list) list.push(v)
    else numeric.set(k, [v])
  }
  const addAgree = (rover: string, method: string, ok: boolean) => {
    const k = `${rover}\0${method}`
    const a = agreement.get(k) ?? { n: 0, agree: 0 }
    a.n++
    if (ok) a.agree++
    agreement.set(k, a)
  }
  for (const rec of records) {
    const id = parseImageId(rec.rover, rec.nasa_id)
    const utc = rec.date_taken_utc
    if (utc !== undefined) {
      const clock = id.sclk ?? rec.sclk
      const derived = clock !== undefined ? clocks[rec.rover](clock) : undefined
      if (derived !== undefined) addNum(rec.rover, 'utc_from_sclk', (derived - utc) / 1000)
      addAgree(rec.rover, 'sol_from_clock', missionSolAt(rec.rover, utc) === rec.sol)
      const stated = rec.date_taken_mars !== undefined ? parseMarsTimeMs(rec.date_taken_mars) : undefined
      if (stated !== undefined) {
        addNum(rec.rover, 'lmst_mars24', wrapDay(lmstMsAt(rec.rover, utc) - stated) / 1000)
      }
    }
    const clock = id.sclk ?? rec.sclk
    const chainUtc = clock !== undefined ? clocks[rec.rover](clock) : undefined
    if (chainUtc !== undefined) {
      addAgree(rec.rover, 'sol_from_sclk', missionSolAt(rec.rover, chainUtc) === rec.sol)
      const stated = rec.date_taken_mars !== undefined ? parseMarsTimeMs(rec.date_taken_mars) : undefined
      const fix = lmstCorrections[rec.rover]?.(clock!, rec.sol) ?? 0
      if (stated !== undefined) addNum(rec.rover, 'lmst_from_sclk', wrapDay(lmstMsAt(rec.rover, chainUtc) + fix - stated) / 1000)
    }
    if (rec.site !== undefined && rec.drive !== undefined && id.site !== undefined && id.drive !== undefined) {
      addAgree(rec.rover, 'site_drive_from_id', id.site === rec.site && id.drive === rec.drive)
    }
    if (rec.sample_type !== undefined && id.sample_type !== undefined) addAgree(rec.rover, 'sample_type_from_id', id.sample_type === rec.sample_type)
  }
  const out: DerivationErrors = {}
  const slot = (k: string) => {
    const [rover, method] = k.split('\0') as [RoverSlug, string]
    return { table: (out[rover] ??= {}), method }
  }
  for (const [k, values] of numeric) {
    const { table, method } = slot(k)
    const abs = values.map(Math.abs).sort((a, b) => a - b)
    const q = (p: number) => abs[Math.min(abs.length - 1, Math.floor(p * abs.length))]!
    const round = (x: number) => Math.round(x * 1000) / 1000
    table[method] = { n: values.length, mean: round(values.reduce((a, b) => a + b, 0) / values.length), median_abs: round(q(0.5)), p95_abs: round(q(0.95)), max_abs: round(abs[abs.length - 1]!) }
  }
  for (const [k, a] of agreement) {
    const { table, method } = slot(k)
    table[method] = a
  }
  return out
}
