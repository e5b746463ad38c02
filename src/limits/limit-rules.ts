import type { Config } from '../config'
import { ProblemError } from '../http/problems'
import type { KeyRecord } from '../keys/key-store'
import type { LimitName, Limits } from './counter-store'
import { secondsUntil, windowsAt } from './windows'
import { ratelimitPolicy, ratelimitState } from './ratelimit-fields'

/** The limits of one key: its operator-set figures, else the configured defaults (interface.md, Limits). */
export function effectiveLimits(record: KeyRecord, config: Pick<Config, 'rateLimitHourly' | 'rateLimitDaily' | 'rateLimitConcurrent'>): Limits {
  return {
    hourly: record.limits.hourly ?? config.rateLimitHourly,
    daily: record.limits.daily ?? config.rateLimitDaily,
    concurrent: record.limits.concurrent ?? config.rateLimitConcurrent,
  }
}

/**
 * interface.md, Limits 3 / decisions.md: X-RateLimit-Limit / -Remaining / -Reset describe the
 * hourly window (Reset = unix seconds of the next top of the hour); RateLimit-Policy and RateLimit
 * (./ratelimit-fields.ts) describe both windows.
 */
export function rateLimitHeaders(limits: Limits, hourCount: number, nowMs: number, dayCount = 0): Record<string, string> {
  return {
    'x-ratelimit-limit': String(limits.hourly),
    'x-ratelimit-remaining': String(Math.max(0, limits.hourly - hourCount)),
    'x-ratelimit-reset': String(windowsAt(nowMs).hourReset),
    'ratelimit-policy': ratelimitPolicy(limits),
    ratelimit: ratelimitState(limits, hourCount, dayCount, nowMs),
  }
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
