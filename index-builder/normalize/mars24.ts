/**
 * Mars time from UTC by the Mars24 algorithm (NASA GISS, https://www.giss.nasa.gov/tools/mars24/help/algorithm.html),
 * which implements Allison & McEwen (2000), Planet. Space Sci. 48, 215-235, with the perturbation terms of
 * Allison (1997). Step names (A-1 ... C-4) are those of the Mars24 page; each is cited beside its line.
 *
 * Pure functions, no allocation per call except the returned object.
 */

const DEG = Math.PI / 180

/** TAI−UTC in seconds from each date on (IERS Bulletin C; the last leap second was 2016-12-31). */
const LEAP_TABLE: ReadonlyArray<readonly [number, number]> = [
  [Date.UTC(1999, 0, 1), 32],
  [Date.UTC(2006, 0, 1), 33],
  [Date.UTC(2009, 0, 1), 34],
  [Date.UTC(2012, 6, 1), 35],
  [Date.UTC(2015, 6, 1), 36],
  [Date.UTC(2017, 0, 1), 37],
]

/** TT − UTC in seconds at a UTC instant (A-4: TT − UTC = TAI − UTC + 32.184 s). Valid from 1999 on. */
export function ttMinusUtc(utcMs: number): number {
  let tai = LEAP_TABLE[0]![1]
  for (const [from, secs] of LEAP_TABLE) if (utcMs >= from) tai = secs
  return tai + 32.184
}

/** Perturbers of B-3: amplitude A (deg), period τ (Julian years), phase φ (deg). */
const PBS_TERMS: ReadonlyArray<readonly [number, number, number]> = [
  [0.0071, 2.2353, 49.409],
  [0.0057, 2.7543, 168.173],
  [0.0039, 1.1177, 191.837],
  [0.0037, 15.7866, 21.736],
  [0.0021, 2.1354, 15.704],
  [0.002, 2.4694, 95.528],
  [0.0018, 32.8493, 49.095],
]

export interface MarsTime {
  /** Mars Sol Date (C-2), sols since 1873-12-29 noon at the prime meridian, mean solar. */
  msd: number
  /** Mean solar time at the prime meridian, hours [0, 24) (C-2). */
  mst: number
  /** Local mean solar time at the given east longitude, hours [0, 24) (C-3). */
  lmst: number
  /** Local true solar time, hours [0, 24) (C-4). */
  ltst: number
  /** Equation of time, degrees (C-1); LTST = LMST + EOT/15. */
  eot: number
  /** Areocentric solar longitude Ls, degrees [0, 360) (B-5). */
  ls: number
  /** Local mean sol number counted from MSD 0 at this longitude: floor(MSD + λ/360). */
  localSolNumber: number
}

const mod = (x: number, m: number) => ((x % m) + m) % m

/** Mars time at `utcMs` (ms since the Unix epoch, UTC) for a place at `eastLongitudeDeg`. */
export function marsTimeAt(utcMs: number, eastLongitudeDeg: number): MarsTime {
  const jdUt = 2440587.5 + utcMs / 86400000
  const jdTt = jdUt + ttMinusUtc(utcMs) / 86400
  const dt = jdTt - 2451545.0 // Δt_J2000 in TT days
  const M = 19.3871 + 0.52402073 * dt // B-1: Mars mean anomaly (deg)
  const alphaFms = 270.3871 + 0.524038496 * dt // B-2: angle of the fictitious mean sun (deg)
  let pbs = 0 // B-3: perturbers
  for (const [a, tau, phi] of PBS_TERMS) pbs += a * Math.cos(((0.985626 * dt) / tau + phi) * DEG)
  const Mr = M * DEG
  const nuMinusM = // B-4: equation of centre (deg)
    (10.691 + 3.0e-7 * dt) * Math.sin(Mr) +
    0.623 * Math.sin(2 * Mr) +
    0.05 * Math.sin(3 * Mr) +
    0.005 * Math.sin(4 * Mr) +
    0.0005 * Math.sin(5 * Mr) +
    pbs
  const ls = mod(alphaFms + nuMinusM, 360) // B-5
  const lsr = ls * DEG
  const eot = 2.861 * Math.sin(2 * lsr) - 0.071 * Math.sin(4 * lsr) + 0.002 * Math.sin(6 * lsr) - nuMinusM // C-1 (deg)
  const msd = (jdTt - 2451549.5) / 1.0274912517 + 44796.0 - 0.0009626 // C-2
  const mst = mod(24 * msd, 24) // C-2
  const lmst = mod(mst + eastLongitudeDeg / 15, 24) // C-3 with east longitude (Λ_west = −λ_east)
  const ltst = mod(lmst + eot / 15, 24) // C-4
  const localSolNumber = Math.floor(msd + eastLongitudeDeg / 360)
  return { msd, mst, lmst, ltst, eot, ls, localSolNumber }
}
