/**
 * Shortest decimal text of a float32 value, as JS writes numbers: the fewest significant digits
 * that read back as the same float32 (telemetry angles, two per photo).
 *
 * The reference is a binary search of toPrecision strings (~0.4 µs per try, ~1.8 µs per
 * value). The fast path tries 1..9
 * significant digits with double arithmetic (scale by an exact power of ten, round, unscale;
 * products and quotients of exact doubles are correctly rounded, so the candidate is the
 * correctly rounded decimal unless the scaled value sits within rounding error of a half) and
 * writes the digits from the integer mantissa. Decimal ties, magnitudes outside 1e-5..1e15 and
 * values needing more digits take the reference definition.
 */
const P10: number[] = []
for (let i = 0; i <= 22; i++) P10.push(Number('1e' + i))

/** Reference: binary search over 1..9 significant digits with toPrecision (9 always round-trips; if p digits do, more do too). */
export function float32TextExact(x: number): string {
  let lo = 1
  let hi = 9
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (Math.fround(Number(x.toPrecision(mid))) === x) hi = mid
    else lo = mid + 1
  }
  return String(Number(x.toPrecision(lo)))
}

export function float32Text(x: number): string {
  return shortest(x) ?? float32TextExact(x)
}

/** The shortest text by arithmetic, or undefined when the reference must decide. */
function shortest(x: number): string | undefined {
  const a = x < 0 ? -x : x
  if (!(a >= 1e-5 && a < 1e15)) return undefined
  let e = Math.floor(Math.log10(a))
  // log10 may land one off next to a power of ten.
  if (e >= 0 ? P10[e] > a : 1 / P10[-e] > a) e--
  else if (e + 1 >= 0 ? P10[e + 1] <= a : 1 / P10[-e - 1] <= a) e++
  for (let p = 1; p <= 9; p++) {
    const k = p - 1 - e
    if (k > 22 || k < -22) return undefined
    const scaled = k >= 0 ? a * P10[k] : a / P10[-k]
    const fl = Math.floor(scaled)
    const frac = scaled - fl
    if (frac > 0.5 - 1e-6 && frac < 0.5 + 1e-6) return undefined
    const m = frac >= 0.5 ? fl + 1 : fl
    // m / 10^k is the double nearest the decimal m·10^-k (what parsing its text gives).
    const d = k >= 0 ? m / P10[k] : m * P10[-k]
    if (Math.fround(d) === a) return (x < 0 ? '-' : '') + decimalText(m, k)
  }
  return undefined
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
