import { digitsAt } from './ascii-digits'

/**
 * UTC instants as the feeds write them. M2020 `date_taken_utc` is a naive ISO time that is UTC
 * ("2023-03-11T23:26:11.688"); MSL `date_taken` carries a Z or not. Both are read as UTC.
 */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/

/** ms since the Unix epoch, or undefined when the text is not an ISO date-time (or a real date). */
export function parseUtc(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined
  const fixed = fixedFormUtc(value)
  if (fixed !== null) return fixed
  return parseUtcByExpression(value)
}

/** parseUtc by the regular expression alone: the definition fixedFormUtc follows (exported for the test that both agree). */
export function parseUtcByExpression(value: string): number | undefined {
  const m = ISO.exec(value.trim())
  if (!m) return undefined
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac, zone] = m
  const ms = frac ? Math.floor(Number(`0.${frac}`) * 1000) : 0
  let t = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms)
  const check = new Date(t)
  if (check.getUTCDate() !== Number(d) || check.getUTCMonth() !== Number(mo) - 1) return undefined
  if (zone && zone !== 'Z') {
    const z = /([+-])(\d{2}):?(\d{2})/.exec(zone)!
    t -= (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3])) * 60000
  }
  return t
}

/**
 * The forms the feeds write nearly always, read by character position: `YYYY-MM-DDTHH:MM:SS`
 * (or a space for the T), then optionally `.fff` (three digits), then optionally `Z`; null for
 * any other text (parseUtcByExpression reads it). The same numbers go through the same Date.UTC
 * and the same calendar check as the expression's path, so the result is the same; it saves the
 * match array, the trim and seven number parses on the two times of each of millions of records.
 */
function fixedFormUtc(s: string): number | undefined | null {
  const n = s.length
  if (n < 19 || n > 24) return null
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return null
  const sep = s.charCodeAt(10)
  if (sep !== 84 && sep !== 32) return null
  const y = digitsAt(s, 0, 4)
  const mo = digitsAt(s, 5, 7)
  const d = digitsAt(s, 8, 10)
  const h = digitsAt(s, 11, 13)
  const mi = digitsAt(s, 14, 16)
  const sec = digitsAt(s, 17, 19)
  if ((y | mo | d | h | mi | sec) < 0) return null
  let end = 19
  let ms = 0
  if (n >= 23 && s.charCodeAt(19) === 46) {
    const f = digitsAt(s, 20, 23)
    if (f < 0) return null
    ms = MS_OF_3_DIGITS[f]!
    end = 23
  }
  if (end !== n && !(end + 1 === n && s.charCodeAt(end) === 90)) return null
  const t = Date.UTC(y, mo - 1, d, h, mi, sec, ms)
  const check = new Date(t)
  if (check.getUTCDate() !== d || check.getUTCMonth() !== mo - 1) return undefined
  return t
}

/** The milliseconds the expression's path makes of three fraction digits `000`..`999`, by that same arithmetic. */
const MS_OF_3_DIGITS = Int16Array.from({ length: 1000 }, (_, k) => Math.floor(Number(`0.${String(k).padStart(3, '0')}`) * 1000))

/** "YYYY-MM-DD" of a UTC instant. */
export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

/** True for a real calendar date written YYYY-MM-DD. */
export function isIsoDate(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false
  return parseUtc(value) !== undefined
}
