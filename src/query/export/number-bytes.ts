import { dayText } from '../day-text'
import { float32TextExact } from '../float32-text'
import type { ByteOut } from './byte-out'

/**
 * The texts the photo JSON writes for dates, times and floats (day-text.ts, iso-time.ts,
 * float32-text.ts, Number#toString), written as bytes from integer arithmetic: no string per
 * value. Values outside what the arithmetic covers take the string functions themselves, so the
 * bytes always equal the JSON's text.
 */
const DAY = 86_400_000
const MIN_MS = -62_167_219_200_000 // 0000-01-01T00:00:00.000Z
const MAX_MS = 253_402_300_799_999 // 9999-12-31T23:59:59.999Z
const MIN_DAY = -719_528 // 0000-01-01
const MAX_DAY = 2_932_896 // 9999-12-31

/** YYYY-MM-DD of a day number (days since 1970-01-01): the civil-from-days algorithm (proleptic Gregorian, as Date). */
export function writeDay(out: ByteOut, days: number): void {
  if (days < MIN_DAY || days > MAX_DAY) return out.text(dayText(days))
  const z = days + 719_468
  const era = Math.floor(z / 146_097)
  const doe = z - era * 146_097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1
  const m = mp < 10 ? mp + 3 : mp - 9
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0)
  out.padded(y, 4)
  out.byte(0x2d)
  out.padded(m, 2)
  out.byte(0x2d)
  out.padded(d, 2)
}

/** Days (since 1970-01-01) whose texts are pre-encoded: 1990-01-01 .. 2069-12-31, every day a catalogue photo can have. */
const FIRST_DAY = 7305
const DAYS = 29_220
let dayPool: Buffer | undefined
function daysPool(): Buffer {
  if (!dayPool) {
    const pool = Buffer.allocUnsafeSlow(DAYS * 10)
    for (let i = 0; i < DAYS; i++) pool.write(dayText(FIRST_DAY + i), i * 10, 'latin1')
    dayPool = pool
  }
  return dayPool
}

/**
 * Dates and times into one export's output: day texts copied from a pre-encoded table attached
 * to the output (one native copy), the time of day written digit by digit.
 */
export class DateWriter {
  readonly #base: number
  constructor(out: ByteOut) {
    this.#base = out.attach(daysPool())
  }

  /** YYYY-MM-DD of a day number. */
  day(out: ByteOut, days: number): void {
    const i = days - FIRST_DAY
    if (i >= 0 && i < DAYS) out.frag(this.#base + i * 10, this.#base + i * 10 + 10)
    else writeDay(out, days)
  }

  /** Date#toISOString of a time in ms (the caller has checked |t| <= 8.64e15, as the JSON does). */
  iso(out: ByteOut, t: number): void {
    const ms = Math.trunc(t)
    if (!(ms >= MIN_MS && ms <= MAX_MS)) return out.text(new Date(t).toISOString())
    const day = Math.floor(ms / DAY)
    this.day(out, day)
    let rest = ms - day * DAY
    const milli = rest % 1000
    rest = (rest - milli) / 1000
    const sec = rest % 60
    rest = (rest - sec) / 60
    const min = rest % 60
    const hour = (rest - min) / 60
    out.ensure(14)
    const b = out.buf
    let p = out.pos
    b[p++] = 0x54
    b[p++] = 0x30 + ((hour / 10) | 0)
    b[p++] = 0x30 + (hour % 10)
    b[p++] = 0x3a
    b[p++] = 0x30 + ((min / 10) | 0)
    b[p++] = 0x30 + (min % 10)
    b[p++] = 0x3a
    b[p++] = 0x30 + ((sec / 10) | 0)
    b[p++] = 0x30 + (sec % 10)
    b[p++] = 0x2e
    b[p++] = 0x30 + ((milli / 100) | 0)
    b[p++] = 0x30 + (((milli / 10) | 0) % 10)
    b[p++] = 0x30 + (milli % 10)
    b[p++] = 0x5a
    out.pos = p
  }
}

const P10: number[] = []
for (let i = 0; i <= 22; i++) P10.push(Number('1e' + i))

/**
 * The shortest text of a float32 value (float32-text.ts's definition and its arithmetic fast
 * path: fewest significant digits that read back as the same float32), as bytes. Decimal ties
 * and magnitudes outside 1e-5..1e15 take the reference function.
 */
export function writeFloat32(out: ByteOut, x: number): void {
  if (x === 0) return out.byte(0x30) // 0 and -0 both print "0"
  const a = x < 0 ? -x : x
  if (a >= 1e-5 && a < 1e15) {
    let e = Math.floor(Math.log10(a))
    if (e >= 0 ? P10[e]! > a : 1 / P10[-e]! > a) e--
    else if (e + 1 >= 0 ? P10[e + 1]! <= a : 1 / P10[-e - 1]! <= a) e++
    // Binary search over 1..9 significant digits: if p digits read back, so do more (the
    // correctly rounded p+1-digit decimal is nearer the value), as the reference assumes.
    let lo = 1
    let hi = 9
    let bestM = -1
    let bestK = 0
    let exact = true
    while (lo <= hi) {
      const p = (lo + hi) >> 1
      const k = p - 1 - e
      if (k > 22 || k < -22) { exact = false; break }
      const scaled = k >= 0 ? a * P10[k]! : a / P10[-k]!
      const fl = Math.floor(scaled)
      const frac = scaled - fl
      if (frac > 0.5 - 1e-6 && frac < 0.5 + 1e-6) { exact = false; break }
      const m = frac >= 0.5 ? fl + 1 : fl
      const d = k >= 0 ? m / P10[k]! : m * P10[-k]!
      if (Math.fround(d) === a) {
        bestM = m
        bestK = k
        hi = p - 1
      } else lo = p + 1
    }
    if (exact && bestM >= 0) {
      if (x < 0) out.byte(0x2d)
      return writeDecimal(out, bestM, bestK)
    }
  }
  out.text(float32TextExact(x))
}

/**
 * m·10^-k in Number#toString form for 1e-6 <= value < 1e21, where m is a positive integer of at
 * most 10^9 (the float32 path: 9 significant digits, rounded), written straight into the buffer.
 */
function writeDecimal(out: ByteOut, m: number, k: number): void {
  while (k > 0 && m % 10 === 0) {
    m = (m / 10) | 0
    k--
  }
  const n = m < 10 ? 1 : m < 100 ? 2 : m < 1000 ? 3 : m < 10000 ? 4 : m < 100000 ? 5 : m < 1000000 ? 6 : m < 10000000 ? 7 : m < 100000000 ? 8 : m < 1000000000 ? 9 : 10
  // Digits, point and zeros: at most 10 + 1 + 22 bytes.
  out.ensure(40)
  const b = out.buf
  let p = out.pos
  if (k <= 0) {
    let e = p + n
    for (let q = m, i = e - 1; i >= p; i--) {
      const d = (q / 10) | 0
      b[i] = 0x30 + q - d * 10
      q = d
    }
    for (let i = 0; i < -k; i++) b[e++] = 0x30
    out.pos = e
    return
  }
  if (k >= n) {
    b[p++] = 0x30
    b[p++] = 0x2e
    for (let i = 0; i < k - n; i++) b[p++] = 0x30
    const e = p + n
    for (let q = m, i = e - 1; i >= p; i--) {
      const d = (q / 10) | 0
      b[i] = 0x30 + q - d * 10
      q = d
    }
    out.pos = e
    return
  }
  // n - k digits, the point, k digits.
  const e = p + n + 1
  const point = p + n - k
  for (let q = m, i = e - 1; i >= p; i--) {
    if (i === point) {
      b[i] = 0x2e
      continue
    }
    const d = (q / 10) | 0
    b[i] = 0x30 + q - d * 10
    q = d
  }
  out.pos = e
}

/**
 * Number#toString of doubles through a direct-mapped cache keyed by the value: coordinates
 * repeat over the many photos taken at one rover position (a few thousand distinct values in
 * the whole catalogue), so a miss (one string) is rare and a hit is a short copy.
 */
export class DoubleTexts {
  static readonly SLOTS = 8192
  static readonly WIDTH = 32 // the longest Number#toString of a double is 24 characters
  readonly #keys = new Float64Array(DoubleTexts.SLOTS).fill(NaN)
  readonly #lens = new Uint8Array(DoubleTexts.SLOTS)
  readonly #texts = Buffer.alloc(DoubleTexts.SLOTS * DoubleTexts.WIDTH)
  readonly #bits = new Float64Array(1)
  readonly #words = new Uint32Array(this.#bits.buffer)

  write(out: ByteOut, x: number): void {
    this.#bits[0] = x
    const slot = (Math.imul(this.#words[0]! ^ this.#words[1]!, 0x9e3779b1) >>> 19) & (DoubleTexts.SLOTS - 1)
    const at = slot * DoubleTexts.WIDTH
    if (this.#keys[slot] !== x || (x === 0 && 1 / x !== 1 / this.#keys[slot]!)) {
      const len = this.#texts.write('' + x, at, 'latin1')
      this.#keys[slot] = x
      this.#lens[slot] = len
    }
    out.copy(this.#texts, at, at + this.#lens[slot]!)
  }
}
