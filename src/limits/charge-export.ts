import { ProblemError } from '../http/problems'
import type { CounterStore, Limits } from './counter-store'
import { secondsUntil, windowsAt } from './windows'
import { ROWS_PER_CALL } from '../query/export/export-plan'

/**
 * Charges an export before a byte is streamed (decisions.md, Export charging): it costs one call
 * per started 1,000 rows; its own call was counted when it was admitted, so `cost - 1` more are
 * charged here, all or nothing, through CounterStore.charge (atomic in memory and in Redis).
 * When the key has fewer left than the export costs, the answer is 429 stating the cost and what
 * is left, and the call counted at admission is given back (refused calls do not count).
 * Returns the hour's count after it (for X-RateLimit-Remaining), and the 429 when refused.
 */
/** How a refusal names what was charged and how to ask for less (an export by default; v1's whole day passes its own). */
export interface ChargeWording {
  what: string
  fewer: string
  costHeader: string
}

export const EXPORT_WORDING: ChargeWording = { what: 'this export', fewer: 'Ask for fewer rows with max_rows', costHeader: 'x-export-cost' }

export async function chargeExport(store: CounterStore, keyId: number, limits: Limits, cost: number, rows: number, nowMs: number, wording: ChargeWording = EXPORT_WORDING): Promise<{ hourCount: number; dayCount: number; refusal?: ProblemError }> {
  const charge = await store.charge(keyId, cost - 1, limits, nowMs)
  if (!charge.refused) return { hourCount: charge.hourCount, dayCount: charge.dayCount }
  const after = await store.charge(keyId, -1, limits, nowMs)
  const w = windowsAt(nowMs)
  const hourly = charge.refused === 'hourly'
  const limit = hourly ? limits.hourly : limits.daily
  const left = Math.max(0, limit - (hourly ? charge.hourCount : charge.dayCount) + 1)
  const retryAfter = secondsUntil(hourly ? w.hourReset : w.dayReset, nowMs)
  const never = cost > limit
  const detail =
    `Rate limit exceeded: ${wording.what} of ${rows} photos costs ${cost} requests (one per started ${ROWS_PER_CALL} rows), ` +
    `and this API key has ${left} of its ${hourly ? 'hourly' : 'daily'} limit of ${limit} left. ` +
    (never ? `${wording.fewer} (at most ${limit * ROWS_PER_CALL} rows).` : `${wording.fewer}, or retry in ${retryAfter} s.`)
  return { hourCount: after.hourCount, dayCount: after.dayCount, refusal: new ProblemError('rateLimited', detail, { retryAfter, headers: { 'retry-after': String(retryAfter), [wording.costHeader]: String(cost) } }) }
}
