import type { RoverSlug } from '../../src/catalog/rovers'
import { lmstMsAt, SOL_SECONDS } from './mission-sol'
import type { NumericError } from './measure-derivations'
import { bracket, clockOffsetSeconds, SCLK_EPOCH_MS, sclkToUtcFor, type CalibrationPoint, type RoverCalibration, type SclkToUtc } from './sclk-to-utc'

/**
 * The spacecraft clock fitted on every label the build holds (docs/derived-fields.md, "Clock
 * fit"). A label is a record stating both its capture time (UTC, and local mean solar time where
 * it states it) and the clock count in its image id. The clock drifts (Curiosity: about 0.84 s a
 * sol), so two calibration points years apart leave lean records tens of seconds off; here
 * every labelled sol is a knot:
 *
 *   UTC   offset (UTC − epoch − SCLK) per sol = the median of its labels' offsets, at the median
 *         SCLK of the sol; linear between knots; beyond the first and last labelled sol the
 *         rover's built-in points (sclk-to-utc.ts) carry the drift on.
 *   LMST  Mars24 at the landing longitude is off by the rover's move east or west (seconds):
 *         per labelled sol the median of (stated LMST − Mars24 LMST of the fitted UTC), linear
 *         between knots; none beyond the labelled sols (Mars24 at the landing longitude there).
 *
 * Validated leave-one-sol-out: each labelled sol predicted from the knots of the others.
 */
export interface ClockLabel {
  sol: number
  /** Whole-second clock count of the image id (what a lean record has). */
  sclk: number
  utcMs: number
  /** Stated local mean solar time of day, ms, where the label states it. */
  lmstMs?: number
}

export interface ClockFit {
  toUtc: SclkToUtc
  /** Milliseconds to add to Mars24 LMST of the derived UTC at this clock count of this sol (0 outside the labelled sols). */
  lmstCorrectionMs: (sclk: number, sol: number) => number
  /** Labelled sols and labels the fit used. */
  sols: number
  labels: number
}

const DAY_MS = 86_400_000
/** Earth days per mean solar day of Mars (Mars24 C-2): mean solar time runs 1/this as fast as UTC. */
const EARTH_DAYS_PER_SOL = 1.0274912517

/** A label with the Mars24 LMST of its stated UTC, computed once: LMST is linear in UTC (mean solar time). */
interface Prepared extends ClockLabel {
  m24: number
}

function prepare(rover: RoverSlug, labels: readonly ClockLabel[]): Prepared[] {
  return labels.map((l) => ({ ...l, m24: lmstMsAt(rover, l.utcMs) }))
}

/** Mars24 LMST at `utcMs`, from the label's LMST at its own UTC (exact between leap seconds). */
function m24At(l: Prepared, utcMs: number): number {
  return l.m24 + (utcMs - l.utcMs) / EARTH_DAYS_PER_SOL
}

interface Knot { sol: number; sclk: number; offset: number; lmst?: number }

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

/** Folds a time-of-day difference into ±12 h. */
function wrapDay(d: number): number {
  return d > DAY_MS / 2 ? d - DAY_MS : d < -DAY_MS / 2 ? d + DAY_MS : d
}

function utcKnots(labels: readonly ClockLabel[]): Knot[] {
  const bySol = new Map<number, ClockLabel[]>()
  for (const l of labels) {
    const g = bySol.get(l.sol)
    if (g) g.push(l)
    else bySol.set(l.sol, [l])
  }
  return [...bySol].map(([sol, g]) => ({ sol, sclk: median(g.map((l) => l.sclk)), offset: median(g.map((l) => clockOffsetSeconds({ sclk: l.sclk, utcMs: l.utcMs }))) })).sort((a, b) => a.sclk - b.sclk)
}

function utcCalibration(knots: readonly Knot[], base: RoverCalibration | undefined): RoverCalibration {
  const lo = knots[0]!.sclk
  const hi = knots[knots.length - 1]!.sclk
  const points: CalibrationPoint[] = knots.map((k) => ({ sclk: k.sclk, utcMs: SCLK_EPOCH_MS + (k.sclk + k.offset) * 1000, label: `labels of sol ${k.sol}` }))
  // Built-in points beyond the labelled sols carry the drift on (a point inside would fight the labels).
  for (const p of base?.points ?? []) if (p.sclk < lo - SOL_SECONDS || p.sclk > hi + SOL_SECONDS) points.push(p)
  return { extrapolate: base?.extrapolate ?? true, points }
}

/**
 * Linear interpolation of knot values in sclk. Knots sit at the median clock of their sol: before
 * the first knot and after the last, the end knot's value holds through the rest of its own sol
 * (a labelled sol is corrected whole), and is 0 on every other sol.
 */
function inside(knots: ReadonlyArray<{ sol: number; sclk: number; v: number }>): (sclk: number, sol: number) => number {
  const xs = knots.map((k) => k.sclk)
  return (sclk, sol) => {
    const n = xs.length
    if (n === 0) return 0
    if (sclk < xs[0]!) return sol === knots[0]!.sol ? knots[0]!.v : 0
    if (sclk > xs[n - 1]!) return sol === knots[n - 1]!.sol ? knots[n - 1]!.v : 0
    if (n === 1) return knots[0]!.v
    const lo = bracket(xs, sclk)
    const a = knots[lo]!
    const b = knots[lo + 1]!
    return b.sclk === a.sclk ? a.v : a.v + ((b.v - a.v) * (sclk - a.sclk)) / (b.sclk - a.sclk)
  }
}

function lmstKnots(labels: readonly Prepared[], toUtc: SclkToUtc): Array<{ sol: number; sclk: number; v: number }> {
  const bySol = new Map<number, { sclk: number[]; d: number[] }>()
  for (const l of labels) {
    if (l.lmstMs === undefined) continue
    const utc = toUtc(l.sclk)
    if (utc === undefined) continue
    const g = bySol.get(l.sol) ?? { sclk: [], d: [] }
    g.sclk.push(l.sclk)
    g.d.push(wrapDay(l.lmstMs - m24At(l, utc)))
    bySol.set(l.sol, g)
  }
  return [...bySol].map(([sol, g]) => ({ sol, sclk: median(g.sclk), v: median(g.d) })).sort((a, b) => a.sclk - b.sclk)
}

/** The clock of a rover fitted on its labels, over the built-in calibration (undefined without labels). */
export function fitClock(rover: RoverSlug, labels: readonly ClockLabel[], base: RoverCalibration | undefined): ClockFit | undefined {
  return labels.length === 0 ? undefined : fitPrepared(prepare(rover, labels), base)
}

function fitPrepared(labels: readonly Prepared[], base: RoverCalibration | undefined): ClockFit {
  const knots = utcKnots(labels)
  const toUtc = sclkToUtcFor(utcCalibration(knots, base))
  const lmst = inside(lmstKnots(labels, toUtc))
  return { toUtc, lmstCorrectionMs: (sclk, sol) => Math.round(lmst(sclk, sol)), sols: knots.length, labels: labels.length }
}

function summary(values: number[]): NumericError {
  const abs = values.map(Math.abs).sort((a, b) => a - b)
  const q = (p: number) => abs[Math.min(abs.length - 1, Math.floor(p * abs.length))]!
  const round = (x: number) => Math.round(x * 1000) / 1000
  return { n: values.length, mean: round(values.reduce((a, b) => a + b, 0) / values.length), median_abs: round(q(0.5)), p95_abs: round(q(0.95)), max_abs: round(abs[abs.length - 1]!) }
}

/**
 * Leave-one-sol-out errors of the fit, seconds: every label's UTC and LMST predicted by the fit of
 * the other sols' labels (a sol's own labels never predict it).
 */
export function leaveOneSolOut(rover: RoverSlug, labels: readonly ClockLabel[], base: RoverCalibration | undefined): { utc: NumericError; lmst?: NumericError } | undefined {
  const sols = [...new Set(labels.map((l) => l.sol))]
  if (sols.length < 2) return undefined
  const prepared = prepare(rover, labels)
  const utc: number[] = []
  const lmst: number[] = []
  for (const sol of sols) {
    const fit = fitPrepared(prepared.filter((l) => l.sol !== sol), base)
    for (const l of prepared) {
      if (l.sol !== sol) continue
      const t = fit.toUtc(l.sclk)
      if (t === undefined) continue
      utc.push((t - l.utcMs) / 1000)
      if (l.lmstMs !== undefined) lmst.push(wrapDay(m24At(l, t) + fit.lmstCorrectionMs(l.sclk, l.sol) - l.lmstMs) / 1000)
    }
  }
  return { utc: summary(utc), ...(lmst.length > 0 ? { lmst: summary(lmst) } : {}) }
}
