import type { ByteSink } from './byte-sink'
import { dayText } from './day-text'
import { isoTime } from './iso-time'

/**
 * Dates into a byte sink with the texts of day-text.ts and iso-time.ts (Date#toISOString), from
 * integer arithmetic: the civil date of a day number by the days-to-civil algorithm of Howard
 * Hinnant ("chrono-Compatible Low-Level Date Algorithms"), proleptic Gregorian as Date is.
 * Years outside 0000-9999 (which toISOString writes with a sign) take the text functions.
 */
const MIN_DAY = -719_528 // 0000-01-01
const MAX_DAY = 2_932_896 // 9999-12-31
const MIN_MS = -62_167_219_200_000 // 0000-01-01T00:00:00.000Z
const MAX_MS = 253_402_300_799_999 // 9999-12-31T23:59:59.999Z
const DAY = 86_400_000

/** Days 1970-01-01 .. 2069-12-31 keep their text once made (the photos' dates): 10 bytes each. */
const CACHED_DAYS = 36_525
const dayBytes = new Uint8Array(CACHED_DAYS * 10)
const dayMade = new Uint8Array(CACHED_DAYS)

/** YYYY-MM-DD of a day number (days since 1970-01-01): dayText's bytes. */
export function writeDay(sink: ByteSink, days: number): void {
  if (days >= 0 && days < CACHED_DAYS) {
    const from = days * 10
    if (dayMade[days] === 0) {
      const o = sink.pos
      civilDay(sink, days)
      dayBytes.set(sink.buf.subarray(o, o + 10), from)
      dayMade[days] = 1
      return
    }
    sink.ensure(10)
    const b = sink.buf
    const o = sink.pos
    for (let i = 0; i < 10; i++) b[o + i] = dayBytes[from + i]
    sink.pos = o + 10
    return
  }
  if (!(days >= MIN_DAY && days <= MAX_DAY)) {
    sink.text(dayText(days))
    return
  }
  civilDay(sink, days)
}

/** 0 <= v < 100 as two digits at b[o], b[o + 1]. */
function two(b: Buffer, o: number, v: number): void {
  const t = (v / 10) | 0
  b[o] = 48 + t
  b[o + 1] = 48 + v - t * 10
}

function civilDay(sink: ByteSink, days: number): void {
  const z = days + 719_468
  const era = Math.floor(z / 146_097)
  const doe = z - era * 146_097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1
  const m = mp < 10 ? mp + 3 : mp - 9
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0)
  sink.ensure(10)
  const b = sink.buf
  const o = sink.pos
  const hi = (y / 100) | 0
  two(b, o, hi)
  two(b, o + 2, y - hi * 100)
  b[o + 4] = 0x2d
  two(b, o + 5, m)
  b[o + 7] = 0x2d
  two(b, o + 8, d)
  sink.pos = o + 10
}

/** Date#toISOString of a time in ms since the epoch: isoTime's bytes. */
export function writeIsoTime(sink: ByteSink, t: number): void {
  // new Date(t) truncates a fractional time toward zero.
  const ms = Math.trunc(t)
  if (!(ms >= MIN_MS && ms <= MAX_MS)) {
    sink.text(isoTime(t))
    return
  }
  const day = Math.floor(ms / DAY)
  writeDay(sink, day)
  writeClock(sink, ms - day * DAY)
}

/**
 * The day of a time as writeIsoTime writes it (days since 1970-01-01), or -1 when its text is
 * not a day and a clock (years outside 0000-9999: isoTime's signed form).
 */
export function isoDay(t: number): number {
  const ms = Math.trunc(t)
  return ms >= MIN_MS && ms <= MAX_MS ? Math.floor(ms / DAY) : -1
}

/** writeIsoTime after the day: `Thh:mm:ss.mmmZ` of the ms since the start of the day. */
export function writeClock(sink: ByteSink, msOfDay: number): void {
  // Below 2^31: integer arithmetic.
  const rest = msOfDay | 0
  const secs = (rest / 1000) | 0
  const milli = rest - secs * 1000
  const mins = (secs / 60) | 0
  const sec = secs - mins * 60
  const hour = (mins / 60) | 0
  const min = mins - hour * 60
  sink.ensure(14)
  const b = sink.buf
  const o = sink.pos
  b[o] = 0x54 // T
  two(b, o + 1, hour)
  b[o + 3] = 0x3a
  two(b, o + 4, min)
  b[o + 6] = 0x3a
  two(b, o + 7, sec)
  b[o + 9] = 0x2e
  b[o + 10] = 48 + ((milli / 100) | 0)
  two(b, o + 11, milli % 100)
  b[o + 13] = 0x5a // Z
  sink.pos = o + 14
}
