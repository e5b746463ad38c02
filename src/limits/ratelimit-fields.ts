import type { Limits } from './counter-store'
import { secondsUntil, windowsAt } from './windows'

/**
 * The IETF rate-limit fields beside X-RateLimit-* (decisions.md, IETF rate-limit fields), as the
 * newest revision of the httpapi draft defines them: both are Structured Field Lists (RFC 8941)
 * of policy names (sf-string) with parameters.
 *   RateLimit-Policy: "hour";q=10000;w=3600, "day";q=100000;w=86400   (quota, window seconds)
 *   RateLimit: "hour";r=9999;t=1520, "day";r=99999;t=40000            (remaining, seconds to reset)
 * The windows are fixed UTC calendar windows (src/limits/windows.ts), so `t` is the time to the
 * top of the hour or to midnight UTC.
 */
export const RATELIMIT_DRAFT = 'draft-ietf-httpapi-ratelimit-headers-10'

/** RateLimit-Policy depends only on the key's figures: keep the last few texts. */
const policyTexts = new Map<string, string>()

let lastHourly = NaN
let lastDaily = NaN
let lastText = ''

export function ratelimitPolicy(limits: Limits): string {
  // Most calls come with the figures of the one before (the default limits): no key to build.
  if (limits.hourly === lastHourly && limits.daily === lastDaily) return lastText
  const id = limits.hourly + ' ' + limits.daily
  let text = policyTexts.get(id)
  if (text === undefined) {
    text = `"hour";q=${limits.hourly};w=3600, "day";q=${limits.daily};w=86400`
    if (policyTexts.size > 256) policyTexts.clear()
    policyTexts.set(id, text)
  }
  lastHourly = limits.hourly
  lastDaily = limits.daily
  lastText = text
  return text
}

export function ratelimitState(limits: Limits, hourCount: number, dayCount: number, nowMs: number): string {
  const w = windowsAt(nowMs)
  const hourLeft = Math.max(0, limits.hourly - hourCount)
  const dayLeft = Math.max(0, limits.daily - dayCount)
  return `"hour";r=${hourLeft};t=${secondsUntil(w.hourReset, nowMs)}, "day";r=${dayLeft};t=${secondsUntil(w.dayReset, nowMs)}`
}
