/**
 * UTC instants as the feeds write them. M2020 `date_taken_utc` is a naive ISO time that is UTC
 * ("2023-03-11T23:26:11.688"); MSL `date_taken` carries a Z or not. Both are read as UTC.
 */
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/

/** ms since the Unix epoch, or undefined when the text is not an ISO date-time (or a real date). */
export function parseUtc(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined
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

/** "YYYY-MM-DD" of a UTC instant. */
export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

/** True for a real calendar date written YYYY-MM-DD. */
export function isIsoDate(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false
  return parseUtc(value) !== undefined
}
