import type { Config } from '../config'
import { ProblemError } from '../http/problems'
import type { KeyRecord } from '../keys/key-store'
import type { LimitName, Limits } from './counter-store'
import { secondsUntil, windowsAt } from './windows'
import { ratelimitPolicy } from './ratelimit-fields'

/** The limits of one key: its operator-set figures, else the configured defaults (interface.md, Limits). */
export function effectiveLimits(record: KeyRecord, config: Pick<Config, 'rateLimitHourly' | 'rateLimitDaily' | 'rateLimitConcurrent'>): Limits {
  return {
    hourly: record.limits.hourly ?? config.rateLimitHourly,
    daily: record.limits.daily ?? config.rateLimitDaily,
    concurrent: record.limits.concurrent ?? config.rateLimitConcurrent,
  }
}

/** The names of the rate-limit fields, in the order every answer carries them. */
export const RATE_LIMIT_FIELD_NAMES = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit-policy', 'ratelimit'] as const

/**
 * interface.md, Limits 3 / decisions.md: X-RateLimit-Limit / -Remaining / -Reset describe the
 * hourly window (Reset = unix seconds of the next top of the hour); RateLimit-Policy and RateLimit
 * (./ratelimit-fields.ts) describe both windows. An instance has exactly the fields
 * RATE_LIMIT_FIELD_NAMES, in that order (the answer's header set relies on it) and is frozen.
 */
export class RateLimitFields {
  readonly [name: string]: string
  readonly 'x-ratelimit-limit': string
  readonly 'x-ratelimit-remaining': string
  readonly 'x-ratelimit-reset': string
  readonly 'ratelimit-policy': string
  readonly ratelimit: string
  constructor(limits: Limits, hourCount: number, nowMs: number, dayCount: number) {
    const c = constantsAt(limits, nowMs)
    const hourLeft = String(Math.max(0, limits.hourly - hourCount))
    this['x-ratelimit-limit'] = c.limit
    this['x-ratelimit-remaining'] = hourLeft
    this['x-ratelimit-reset'] = c.reset
    this['ratelimit-policy'] = c.policy
    // = ratelimitState(limits, hourCount, dayCount, nowMs), from the pieces fixed for this second
    this.ratelimit = c.beforeHour + hourLeft + c.beforeDay + Math.max(0, limits.daily - dayCount) + c.afterDay
    Object.freeze(this)
  }
}

/** The parts of the fields that depend only on the limits and the second: the same for every answer of that second. */
interface Constants {
  second: number
  hourly: number
  daily: number
  limit: string
  reset: string
  policy: string
  beforeHour: string
  beforeDay: string
  afterDay: string
}

let constants: Constants | undefined

function constantsAt(limits: Limits, nowMs: number): Constants {
  const second = Math.floor(nowMs / 1000)
  const c = constants
  if (c !== undefined && c.second === second && c.hourly === limits.hourly && c.daily === limits.daily) return c
  const w = windowsAt(nowMs)
  constants = {
    second,
    hourly: limits.hourly,
    daily: limits.daily,
    limit: String(limits.hourly),
    reset: String(w.hourReset),
    policy: ratelimitPolicy(limits),
    beforeHour: '"hour";r=',
    beforeDay: `;t=${secondsUntil(w.hourReset, nowMs)}, "day";r=`,
    afterDay: `;t=${secondsUntil(w.dayReset, nowMs)}`,
  }
  return constants
}

let lastSecond = NaN
let lastHourCount = NaN
let lastDayCount = NaN
let lastHourly = NaN
let lastDaily = NaN
let lastFields: RateLimitFields | undefined

/**
 * The fields for these figures. They depend on the limits, the two counts and the whole second
 * of `nowMs` only (every `t` and the reset are whole seconds), so the last set made is handed out
 * again while those stay the same: what a run of revalidations (peeked, uncounted) carries.
 */
export function rateLimitHeaders(limits: Limits, hourCount: number, nowMs: number, dayCount = 0): RateLimitFields {
  const second = Math.floor(nowMs / 1000)
  if (second === lastSecond && hourCount === lastHourCount && dayCount === lastDayCount && limits.hourly === lastHourly && limits.daily === lastDaily) return lastFields!
  lastFields = new RateLimitFields(limits, hourCount, nowMs, dayCount)
  lastSecond = second
  lastHourCount = hourCount
  lastDayCount = dayCount
  lastHourly = limits.hourly
  lastDaily = limits.daily
  return lastFields
}

/**
 * The 429 for a refused call (interface.md, Errors and Limits 4): `detail` names the limit and
 * its figure, `retryAfter` and the Retry-After header (RFC 9110 §10.2.3) give the seconds until it
 * frees up: the end of the hour or day, or 1 s for the in-flight limit.
 */
export function refusal(refused: LimitName, limits: Limits, nowMs: number): ProblemError {
  const w = windowsAt(nowMs)
  let detail: string
  let retryAfter: number
  switch (refused) {
    case 'hourly':
      retryAfter = secondsUntil(w.hourReset, nowMs)
      detail = `Rate limit exceeded: the hourly limit of ${limits.hourly} requests for this API key is used up. It resets at the top of the hour.`
      break
    case 'daily':
      retryAfter = secondsUntil(w.dayReset, nowMs)
      detail = `Rate limit exceeded: the daily limit of ${limits.daily} requests for this API key is used up. It resets at midnight UTC.`
      break
    case 'concurrent':
      retryAfter = 1
      detail = `Rate limit exceeded: the concurrent limit of ${limits.concurrent} requests in flight for this API key is reached. Retry when one has finished.`
      break
  }
  return new ProblemError('rateLimited', detail, { retryAfter, headers: { 'retry-after': String(retryAfter) } })
}
