import type { RoverSlug } from '../../src/catalog/rovers'

/**
 * Spacecraft clock (SCLK) → UTC.
 *
 * MER, MSL and M2020 SCLK count seconds from the J2000 epoch, 2000-01-01T12:00:00 TT =
 * 2000-01-01T11:58:55.816Z (SCLK_EPOCH_MS). The clocks drift: the real records show UTC − (epoch + SCLK)
 * ("the offset") growing by 7.9 s per million seconds for Perseverance (8 ppm, 0.7 s a day) and jumping when MER
 * clocks were reset. So a fixed epoch is wrong by minutes to an hour; we correct with an offset curve
 * interpolated linearly in SCLK between calibration points, each a real (SCLK, UTC) pair:
 *
 *  - perseverance: the two mru records (file-name SCLK vs `date_taken_utc`) and the raw_images record of
 *    sol 1646 quoted in SOURCES.md §4.1. Leaving the middle one out, the line through the others predicts
 *    it within 0.6 s: the drift is linear, so the line is also extrapolated (sol 0 .. today).
 *  - curiosity: the raw_image_items record of sol 4681 quoted in SOURCES.md §4.2, and the landing:
 *    touchdown at 2012-08-06T05:17:57Z (spacecraft event time, NASA) for the first post-landing Hazcam
 *    frame RLA_397502188. That frame was taken within about two minutes after touchdown, so times near
 *    landing may read up to ~2 min early; between the two points the error is that of assuming a linear
 *    drift over 13 years (unverified; see docs/derived-fields.md).
 *  - spirit, opportunity: the MER Analyst's Notebook timetables (one SCLK↔UTC row per sol), read from
 *    the sources at build time (`calibrationFromTimetable`). Interpolated only inside the table.
 * Times are SCLK seconds as written in the image id (integer seconds; the sub-second part is not there).
 */
export const SCLK_EPOCH_MS = Date.UTC(2000, 0, 1, 11, 58, 55, 816)

export interface CalibrationPoint {
  sclk: number
  utcMs: number
  /** Where the pair comes from (documentation and test messages). */
  label: string
}

export interface RoverCalibration {
  points: CalibrationPoint[]
  /** Continue the end segments' drift beyond the first/last point (true), or give no value there (false). */
  extrapolate: boolean
}

export type SclkCalibration = Partial<Record<RoverSlug, RoverCalibration>>

export const BUILT_IN_CALIBRATION: SclkCalibration = {
  perseverance: {
    extrapolate: true,
    points: [
      { sclk: 726421423, utcMs: Date.parse('2023-01-08T03:53:04.187Z'), label: 'mru NLF_0670_0726421423 date_taken_utc' },
      { sclk: 731848568, utcMs: Date.parse('2023-03-11T23:26:11.688Z'), label: 'mru NRF_0731_0731848568 date_taken_utc' },
      { sclk: 813073669, utcMs: Date.parse('2025-10-07T02:08:38Z'), label: 'raw_images NRF_1646_0813073669 date_taken_utc (SOURCES.md §4.1)' },
    ],
  },
  curiosity: {
    extrapolate: true,
    points: [
      { sclk: 397502188, utcMs: Date.parse('2012-08-06T05:17:57Z'), label: 'touchdown SCET vs first Hazcam frame RLA_397502188' },
      { sclk: 813038955, utcMs: Date.parse('2025-10-06T17:16:46Z'), label: 'raw_image_items CR0_813038955 date_taken (SOURCES.md §4.2)' },
    ],
  },
}

/** UTC − (epoch + SCLK) in seconds for one calibration point. */
export function clockOffsetSeconds(p: { sclk: number; utcMs: number }): number {
  return (p.utcMs - (SCLK_EPOCH_MS + p.sclk * 1000)) / 1000
}

/** A SCLK → UTC converter for one rover; undefined outside the calibrated range when not extrapolating. */
export type SclkToUtc = (sclk: number) => number | undefined

export function sclkToUtcFor(cal: RoverCalibration | undefined): SclkToUtc {
  if (!cal || cal.points.length === 0) return () => undefined
  const pts = [...cal.points].sort((a, b) => a.sclk - b.sclk)
  const xs = Float64Array.from(pts, (p) => p.sclk)
  const off = Float64Array.from(pts, (p) => clockOffsetSeconds(p))
  const n = xs.length
  return (sclk: number) => {
    if (!Number.isFinite(sclk)) return undefined
    let o: number
    if (n === 1) {
      if (!cal.extrapolate && sclk !== xs[0]) return undefined
      o = off[0]!
    } else if (sclk <= xs[0]! || sclk >= xs[n - 1]!) {
      if (!cal.extrapolate && (sclk < xs[0]! || sclk > xs[n - 1]!)) return undefined
      const i = sclk <= xs[0]! ? 0 : n - 2
      o = lerp(xs[i]!, off[i]!, xs[i + 1]!, off[i + 1]!, sclk)
    } else {
      const lo = bracket(xs, sclk)
      o = lerp(xs[lo]!, off[lo]!, xs[lo + 1]!, off[lo + 1]!, sclk)
    }
    return Math.round(SCLK_EPOCH_MS + (sclk + o) * 1000)
  }
}

function lerp(x0: number, y0: number, x1: number, y1: number, x: number): number {
  return x1 === x0 ? y0 : y0 + ((y1 - y0) * (x - x0)) / (x1 - x0)
}

/** Calibration from MER timetable rows (one per sol), not extrapolated. */
export function calibrationFromTimetable(rows: ReadonlyArray<{ sol: number; sclk: number; utc_ms: number }>): RoverCalibration {
  return {
    extrapolate: false,
    points: rows.map((r) => ({ sclk: r.sclk, utcMs: r.utc_ms, label: `MER timetable sol ${r.sol}` })),
  }
}

/** The index i of sorted `xs` (at least two) with xs[i] <= x < xs[i+1], for x within [xs[0], xs[n-1]] (n-2 at the top end): a binary search. */
export function bracket(xs: ArrayLike<number>, x: number): number {
  let lo = 0
  let hi = xs.length - 1
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1
    if (xs[mid]! <= x) lo = mid
    else hi = mid
  }
  return lo
}
