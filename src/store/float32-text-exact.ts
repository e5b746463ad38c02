/**
 * The number a float32 column's value reads as: the shortest decimal that is the same float32 (as
 * the answers write it, query/bytes/float32-text.ts), and the column values a bound on that number
 * keeps. Telemetry and sun angles are float32 columns served this way.
 */

/** The shortest decimal text of a float32 value, by a binary search over 1..9 significant digits with toPrecision (9 always round-trips; if p digits do, more do too). */
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

/**
 * The float32 values whose served text lies in [lo, hi]: a range filter over a float32 column
 * compares the column with these, so a bound is inclusive of the value a client reads (the
 * text 89.4581 is the float32 89.45809936…, below the bound 89.4581 as a double). A value's
 * text lies in its own rounding interval, so the texts ascend with the values: only the float32
 * nearest a bound can fall on either side of it, and the next one inward never does.
 */
export function float32TextRange(lo: number, hi: number): { lo: number; hi: number } {
  return { lo: textAtLeast(lo), hi: -textAtLeast(-hi) }
}

/** The least float32 whose text reads as a number >= b (b itself when infinite or NaN). */
function textAtLeast(b: number): number {
  const c = Math.fround(b)
  if (!Number.isFinite(c)) return Number.isFinite(b) ? c : b
  return Number(float32TextExact(c)) >= b ? c : nextUp32(c)
}

const f32 = new Float32Array(1)
const f32Bits = new Uint32Array(f32.buffer)

/** The next float32 above a finite float32 (towards +Infinity). */
function nextUp32(x: number): number {
  if (x === 0) return 1.401298464324817e-45 // the least positive float32, above both zeros
  f32[0] = x
  f32Bits[0] += x > 0 ? 1 : -1
  return f32[0]
}
