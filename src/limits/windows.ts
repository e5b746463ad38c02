/**
 * Fixed calendar windows in UTC (interface.md, Limits: the hourly count resets at the top of
 * each hour, the daily one at midnight UTC). Pure arithmetic, no clock of its own.
 */
export const HOUR_MS = 3_600_000
export const DAY_MS = 86_400_000

export interface Windows {
  /** Start of the current UTC hour / day, ms since the epoch: also the window's name. */
  hourStart: number
  dayStart: number
  /** Unix seconds of the next top of the hour / next midnight UTC. */
  hourReset: number
  dayReset: number
}

export function windowsAt(nowMs: number): Windows {
  const hourStart = nowMs - (nowMs % HOUR_MS)
  const dayStart = nowMs - (nowMs % DAY_MS)
  return { hourStart, dayStart, hourReset: (hourStart + HOUR_MS) / 1000, dayReset: (dayStart + DAY_MS) / 1000 }
}

/** Whole seconds from `nowMs` until `resetUnixSeconds`, at least 1 (a Retry-After of 0 invites a hot loop). */
export function secondsUntil(resetUnixSeconds: number, nowMs: number): number {
  return Math.max(1, Math.ceil(resetUnixSeconds - nowMs / 1000))
}
