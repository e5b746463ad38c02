import { ByteMemo, hashDouble } from './byte-memo'
import { PAIRS, writeDigits, type ByteSink } from './byte-sink'
import { float32TextExact } from '../../store/float32-text-exact'

/**
 * Shortest decimal text of a number as JS writes it (Number#toString): the fewest significant
 * digits that read back as the same value. Telemetry angles are float32 (the digits must read
 * back as the same float32), coordinates float64.
 *
 * The float32 reference (store/float32-text-exact.ts) is a binary search of toPrecision strings
 * (~0.4 µs per try, ~1.8 µs per value); for float64 it is String(x). The fast path tries 1, 2, ... significant digits with
 * double arithmetic (scale by an exact power of ten, round, unscale; products and quotients of
 * exact doubles are correctly rounded, so the candidate is the correctly rounded decimal unless
 * the scaled value sits within rounding error of a half) and writes the digits from the integer
 * mantissa. Decimal ties, magnitudes outside 1e-5..1e15 and values needing more digits
 * (float32: 9; float64: 15, beyond which two decimals could read back as the same double) take
 * the reference.
 */
const P10: number[] = []
for (let i = 0; i <= 22; i++) P10.push(Number('1e' + i))
/** 1 / 10^i as the comparisons of shortestDecimal have always used them. */
const N10 = P10.map((p) => 1 / p)

/** The last decimal found by shortestDecimal: |x| = m·10^-k. */
let decM = 0
let decK = 0

/** Views for reading a value's bits (is it a power of two?). */
const f32 = new Float32Array(1)
const f32Bits = new Uint32Array(f32.buffer)
const f64 = new Float64Array(1)
const f64Bits = new Uint32Array(f64.buffer)

/**
 * Finds the shortest decimal of |x| (into decM, decK) for a float32 (`single`) or a double;
 * false when the reference must decide.
 *
 * The search starts at the digit count most values need (7 for float32, 6 for the site-frame
 * coordinates) and walks down while the nearest decimal still reads back, or up until it does.
 * Walking from there is exact because the test is monotone in the digit count: the nearest
 * (p+1)-digit decimal is at least as close as the nearest p-digit one, and the values that read
 * back as x form an interval symmetric around x. Powers of two are the exception (the interval
 * below is half as wide): for them the search runs up from 1 digit.
 */
function shortestDecimal(x: number, single: boolean): boolean {
  const a = x < 0 ? -x : x
  if (!(a >= 1e-5 && a < 1e15)) return false
  // e = floor(log10(a)), by comparisons with the powers of ten (cheaper than Math.log10).
  let e = 0
  if (a >= 1) while (P10[e + 1] <= a) e++
  else {
    e = -1
    while (N10[-e] > a) e--
  }
  const digits = single ? 9 : 15
  let p: number
  if (single) {
    f32[0] = a
    const bits = f32Bits[0]
    const mant = bits & 0x7fffff
    p = mant === 0 ? 1 : 7
    // The float32 rounding interval of a: half an ulp either side, a quarter below a power of
    // two (the float below is closer). Both ends are doubles (26 significant bits at most).
    const ulp = F32_ULP[bits >>> 23]
    lo32 = a - (mant === 0 ? ulp * 0.25 : ulp * 0.5)
    hi32 = a + ulp * 0.5
  } else {
    f64[0] = a
    p = f64Bits[0] === 0 && (f64Bits[1] & 0xfffff) === 0 ? 1 : 6
  }
  let r = single ? nearestFloat32(a, e, p) : nearestDecimal(a, e, p, false)
  if (r < 0) return false
  if (r === 1) {
    // Down while fewer digits still read back (decM, decK keep the last that did).
    while (p > 1) {
      r = single ? nearestFloat32(a, e, p - 1) : nearestDecimal(a, e, p - 1, false)
      if (r < 0) return false
      if (r === 0) return true
      p--
    }
    return true
  }
  while (++p <= digits) {
    r = single ? nearestFloat32(a, e, p) : nearestDecimal(a, e, p, false)
    if (r !== 0) return r === 1
  }
  return false
}

/** 2^(exponent field - 150): the ulp of a normal float32 by its biased exponent. */
const F32_ULP = new Float64Array(256)
for (let i = 1; i < 255; i++) F32_ULP[i] = 2 ** (i - 150)
/** The rounding interval of the float32 being written (shortestDecimal). */
let lo32 = 0
let hi32 = 0

/**
 * nearestDecimal for a float32 without a division: for 0 <= k <= 11, a·10^k and the interval
 * ends times 10^k are exact doubles (24 or 26 significant bits times 5^k < 2^26 fit in 53), so
 * the nearest decimal m·10^-k and whether it lies inside the interval are decided exactly. A
 * decimal inside by more than a double's rounding (a relative 2^-53) reads back as a double
 * strictly inside, which rounds to a; outside by as much, to another float32. Closer than that,
 * an exact half, or another k: nearestDecimal decides.
 */
function nearestFloat32(a: number, e: number, p: number): number {
  const k = p - 1 - e
  if (k < 0 || k > 11) return nearestDecimal(a, e, p, true)
  const t = P10[k]
  const scaled = a * t
  const fl = Math.floor(scaled)
  const frac = scaled - fl
  if (frac === 0.5) return nearestDecimal(a, e, p, true)
  const m = frac > 0.5 ? fl + 1 : fl
  const lo = lo32 * t
  const hi = hi32 * t
  const margin = hi * 4.5e-16
  if (m - lo > margin && hi - m > margin) {
    decM = m
    decK = k
    return 1
  }
  if (lo - m > margin || m - hi > margin) return 0
  return nearestDecimal(a, e, p, true)
}

/**
 * Whether the p-significant-digit decimal nearest a (10^e <= a < 10^(e+1)) reads back as a:
 * 1 yes (kept in decM, decK), 0 no, -1 unknown (the reference decides).
 */
function nearestDecimal(a: number, e: number, p: number, single: boolean): number {
  const k = p - 1 - e
  if (k > 22 || k < -22) return -1
  const scaled = k >= 0 ? a * P10[k] : a / P10[-k]
  const fl = Math.floor(scaled)
  const frac = scaled - fl
  // The scaled value carries a relative rounding error of 2^-53: near a half, the rounding
  // direction is unknown.
  const guard = single ? 1e-6 : 1e-6 + scaled * 4.5e-16
  if (frac > 0.5 - guard && frac < 0.5 + guard) return -1
  const m = frac >= 0.5 ? fl + 1 : fl
  // m / 10^k is the double nearest the decimal m·10^-k (what parsing its text gives).
  const d = k >= 0 ? m / P10[k] : m * P10[-k]
  if (single ? Math.fround(d) !== a : d !== a) return 0
  decM = m
  decK = k
  return 1
}

export function float32Text(x: number): string {
  return shortestDecimal(x, true) ? (x < 0 ? '-' : '') + decimalText(decM, decK) : float32TextExact(x)
}

/**
 * The texts of recent numbers, by value (byte-memo.ts): photo coordinates take a few thousand
 * distinct values (rows of one site share them) and telemetry angles repeat too, so most
 * numbers are one copy instead of a digit search. Doubles: 64K slots (~2.1 MB). Float32: 4K
 * slots (~106 KB), small enough to stay in the cache beside an answer's rows (at 64K its misses
 * cost more than the digits), large enough that a page of 100 photos' ~200 angles seldom share
 * a slot (at 1K about a quarter did, and were written from their digits on every answer).
 */
const float32Memo = new ByteMemo(12, 1, 16)
const doubleMemo = new ByteMemo(16, 1, 24)

/** A float32 value's shortest text into the sink (float32Text). */
export function writeFloat32(sink: ByteSink, x: number): void {
  writeMemoised(sink, x, float32Memo, true)
}

/** A double's text into the sink, as Number#toString writes it. */
export function writeDouble(sink: ByteSink, x: number): void {
  if (x === 0) {
    sink.byte(0x30) // also -0, which toString writes as 0
    return
  }
  writeMemoised(sink, x, doubleMemo, false)
}

/** The number's text from the memo when it holds `x`, else found (shortestDecimal, or the reference) and kept. */
function writeMemoised(sink: ByteSink, x: number, m: ByteMemo, single: boolean): void {
  const s = m.slot(hashDouble(x, 0))
  if (m.keys[s] === x) {
    m.copyOut(sink, s)
    return
  }
  const o = sink.pos
  if (shortestDecimal(x, single)) writeDecimal(sink, x < 0, decM, decK)
  else sink.text(single ? float32TextExact(x) : String(x))
  if (m.keep(s, sink.buf, o, sink.pos)) m.keys[s] = x
}

/** Text of m·10^-k (m a positive integer) in JS Number#toString form for 1e-6 <= value < 1e21. */
function decimalText(m: number, k: number): string {
  while (k > 0 && m % 10 === 0) { m /= 10; k-- }
  const digits = '' + m
  if (k <= 0) return k === 0 ? digits : digits + '0'.repeat(-k)
  const n = digits.length
  if (k >= n) return '0.' + '0'.repeat(k - n) + digits
  return digits.slice(0, n - k) + '.' + digits.slice(n - k)
}

/**
 * The bytes of decimalText, with a sign: the length first, then the digits right to left with
 * the point put in on the way (two digits per step where two are left of the same part).
 */
function writeDecimal(sink: ByteSink, negative: boolean, m: number, k: number): void {
  // floor(m * 0.1) is floor(m / 10) for integers below 2^50 (the double 0.1 is a little above 0.1).
  while (k > 0) {
    const q = Math.floor(m * 0.1)
    if (m - q * 10 !== 0) break
    m = q
    k--
  }
  let n = 1
  while (n < 16 && P10[n] <= m) n++
  // digits, then trailing zeros when k < 0; "0." and leading zeros when k >= n; else a point
  const len = (negative ? 1 : 0) + (k <= 0 ? n - k : k >= n ? k + 2 : n + 1)
  sink.ensure(len)
  const b = sink.buf
  const start = sink.pos
  let o = start + len
  if (k <= 0) {
    for (; k < 0; k++) b[--o] = 0x30
    writeDigits(b, o, m)
  } else {
    let v = m
    let i = k
    for (; i >= 2; i -= 2) {
      const q = Math.floor(v * 0.01)
      const r = (v - q * 100) << 1
      b[--o] = PAIRS[r + 1]
      b[--o] = PAIRS[r]
      v = q
    }
    if (i === 1) {
      const q = Math.floor(v * 0.1)
      b[--o] = 48 + v - q * 10
      v = q
    }
    b[--o] = 0x2e
    if (v === 0) b[--o] = 0x30
    else writeDigits(b, o, v)
  }
  if (negative) b[start] = 0x2d
  sink.pos = start + len
}
