import { ROVERS, type RoverSlug } from '../../../src/catalog/rovers'

/**
 * Mission clocks of the synthetic catalogue, by the Mars24 equations (NASA GISS, Allison &
 * McEwen 2000; "Mars24 Sunclock — Algorithm and Worked Examples", steps A-C):
 *   MSD  = (JD_TT − 2405522.0028779) / 1.0274912517        Mars Sol Date
 *   LMST = MTC + east longitude / 15 h, so the local sol count is MSD + lon/360
 * The mission sol is the local sol count minus a per-rover offset fixed by the landing time
 * and the sol number of the landing day (0 for MSL and M20, 1 for the MERs).
 */
export const SOL_MS = 88_775_244.147 // 1.0274912517 d
const J2000_UNIX_MS = Date.UTC(2000, 0, 1, 11, 58, 55, 816) // SCLK epoch (J2000 TT written in UTC)

/** TAI−UTC steps (IERS Bulletin C) since 2004; TT−UTC = TAI−UTC + 32.184 s. */
const LEAPS: Array<[number, number]> = [
  [Date.UTC(2017, 0, 1), 37],
  [Date.UTC(2015, 6, 1), 36],
  [Date.UTC(2012, 6, 1), 35],
  [Date.UTC(2009, 0, 1), 34],
  [Date.UTC(2006, 0, 1), 33],
  [-Infinity, 32],
]
function ttMinusUtcMs(unixMs: number): number {
  for (const [from, s] of LEAPS) if (unixMs >= from) return (s + 32.184) * 1000
  return 64_184
}

/** Landing times (UTC) and the mission's sol number of the landing day. */
const LANDINGS: Record<RoverSlug, { utc: number; sol: number }> = {
  curiosity: { utc: Date.UTC(2012, 7, 6, 5, 17, 57), sol: 0 },
  perseverance: { utc: Date.UTC(2021, 1, 18, 20, 55, 0), sol: 0 },
  spirit: { utc: Date.UTC(2004, 0, 4, 4, 35, 0), sol: 1 },
  opportunity: { utc: Date.UTC(2004, 0, 25, 5, 5, 0), sol: 1 },
}
/** SCLK − seconds since J2000, per rover (from the MER timetables and the M20/MSL records of SOURCES.md §4). */
const SCLK_OFFSET_S: Record<RoverSlug, number> = { curiosity: -4115, perseverance: -666, spirit: 30, opportunity: 9 }

/** Local Mars sol count (MSD + east longitude/360) at a UTC instant. */
export function localSolDate(unixMs: number, lonEast: number): number {
  const jdTT = (unixMs + ttMinusUtcMs(unixMs)) / 86_400_000 + 2440587.5
  return (jdTT - 2405522.0028779) / 1.0274912517 + lonEast / 360
}

export interface MissionClock {
  /** UTC ms of local mean solar time `lmstMs` (0..86399999) on mission sol `sol`. */
  utcOf(sol: number, lmstMs: number): number
  /** Spacecraft clock seconds at a UTC instant. */
  sclkOf(unixMs: number): number
  /** LMST of the landing, ms of the day. */
  landingLmstMs: number
  landingSol: number
}

export function missionClock(rover: RoverSlug): MissionClock {
  const lon = ROVERS.find((r) => r.slug === rover)!.landing_longitude_east
  const landing = LANDINGS[rover]
  const lsd = localSolDate(landing.utc, lon)
  const offset = Math.floor(lsd) - landing.sol
  const sclkOffset = SCLK_OFFSET_S[rover]
  return {
    utcOf(sol, lmstMs) {
      const target = offset + sol + lmstMs / 86_400_000
      // localSolDate is linear between leap seconds: two Newton steps are exact to the ms.
      let t = landing.utc + (target - lsd) * SOL_MS
      for (let k = 0; k < 2; k++) t += (target - localSolDate(t, lon)) * SOL_MS
      return Math.round(t)
    },
    sclkOf(unixMs) {
      return (unixMs - J2000_UNIX_MS) / 1000 + sclkOffset
    },
    landingLmstMs: Math.round((lsd - Math.floor(lsd)) * 86_400_000),
    landingSol: landing.sol,
  }
}
