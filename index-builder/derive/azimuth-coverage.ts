/**
 * Azimuth arithmetic on a circle, for panorama detection (behaviour.md §15.2-§15.3).
 *
 * The Anchor measures coverage as max - min of mast_az, so a pan across north (350° -> 20°)
 * looks ~340° wide (behaviour.md §15.3, BUG). Here coverage is the arc the photos span on the
 * circle: 360 minus the largest gap between neighbouring azimuths taken mod 360 (the gap from
 * the last back round to the first included). A single direction covers 0°; 350°, 0°, 10°, 20°
 * cover 30°; evenly spaced photos all round cover 360 - spacing. Perseverance reports azimuths
 * in -180..180 and Curiosity in 0..360: both are normalised to [0, 360) first.
 */

/** x mod 360 in [0, 360). */
export function normaliseAzimuth(az: number): number {
  const a = az % 360
  return a < 0 ? (a + 360 === 360 ? 0 : a + 360) : a
}

/** Round half to even, as .NET's Math.Round does (the Anchor counts unique positions that way, §15.2). */
export function roundHalfEven(x: number): number {
  const r = Math.round(x)
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r
}

/**
 * Arc covered by `values` (degrees, any range), in place: `values[0..n)` is normalised and
 * sorted. Returns 360 - largest circular gap; 0 for n <= 1.
 */
export function circularCoverage(values: Float64Array, n: number): number {
  if (n <= 1) return 0
  for (let i = 0; i < n; i++) values[i] = normaliseAzimuth(values[i]!)
  const sorted = values.subarray(0, n).sort()
  let largestGap = sorted[0]! + 360 - sorted[n - 1]!
  for (let i = 1; i < n; i++) {
    const gap = sorted[i]! - sorted[i - 1]!
    if (gap > largestGap) largestGap = gap
  }
  return 360 - largestGap
}

/**
 * Unique positions (§15.3 `unique_positions`): distinct whole-degree azimuths after rounding
 * half to even, on the circle (so -180 and 180 are one position). Writes the positions, sorted,
 * into `out` and returns how many there are. `marks` is a 360-slot scratch buffer, left zeroed.
 */
export function uniquePositions(values: ArrayLike<number>, n: number, marks: Uint8Array, out: Float64Array): number {
  for (let i = 0; i < n; i++) marks[normaliseAzimuth(roundHalfEven(values[i]!))] = 1
  let k = 0
  for (let p = 0; p < 360; p++) {
    if (marks[p]) {
      out[k++] = p
      marks[p] = 0
    }
  }
  return k
}

/**
 * avg_position_spacing (§15.3): the arc spanned by the unique positions divided by the number
 * of steps between them (n - 1); NaN when n < 2. The Anchor divides max - min; the arc is the
 * wrap-aware equivalent (a sweep 350°..20° in 10° steps gives 10, not ~113).
 */
export function positionSpacing(positions: Float64Array, n: number): number {
  if (n < 2) return NaN
  return circularCoverage(positions, n) / (n - 1)
}
