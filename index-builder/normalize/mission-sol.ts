import { ROVERS, type RoverSlug } from '../../src/catalog/rovers'
import { marsTimeAt } from './mars24'

/**
 * Mission sol numbers and local mean solar time at each rover's landing longitude
 * (src/catalog/rovers.ts `landing_longitude_east`), from the Mars24 local sol number
 * floor(MSD + λ/360) minus a per-rover constant.
 *
 * The constants were measured, not assumed: every real record that carries both a sol and a UTC
 * time gives the same difference (docs/derived-fields.md, "Mission sol"):
 *  - curiosity 49269: the MSL raw_image_items record of sol 4681 (SOURCES.md §4.2);
 *  - perseverance 52304: the two mru records (sols 670, 731) and the raw_images record of sol 1646 (§4.1);
 *  - spirit 46215, opportunity 46236: all 2,209 / 5,352 rows of the MER timetables (sol 1 = landing sol).
 * MER sols run on "Hybrid Local Solar Time", a mean solar time that is a fixed amount behind Mars24 LMST
 * at the landing longitude (measured over every timetable row, ±2 s of rounding); sol boundaries follow it.
 */
export const SOL_EPOCH: Readonly<Record<RoverSlug, number>> = {
  curiosity: 49269,
  opportunity: 46236,
  perseverance: 52304,
  spirit: 46215,
}

/** Mission clock minus Mars24 LMST, seconds (0 where the mission keeps LMST). */
export const MISSION_CLOCK_OFFSET_S: Readonly<Record<RoverSlug, number>> = {
  curiosity: 0,
  opportunity: -2338.3,
  perseverance: 0,
  spirit: -2508.6,
}

const LONGITUDE: Record<string, number> = Object.fromEntries(ROVERS.map((r) => [r.slug, r.landing_longitude_east]))

/** Mars sol length in seconds (Allison & McEwen 2000). */
export const SOL_SECONDS = 88775.244147

/** Local mean solar time of day in ms [0, 86400000) at the rover's landing longitude (Mars24 C-3). */
export function lmstMsAt(rover: RoverSlug, utcMs: number): number {
  const h = marsTimeAt(utcMs, LONGITUDE[rover]!).lmst
  return Math.min(86399999, Math.floor(h * 3600000))
}

/** The mission sol (as the mission counts it) at a UTC instant. */
export function missionSolAt(rover: RoverSlug, utcMs: number): number {
  const t = marsTimeAt(utcMs, LONGITUDE[rover]!)
  const localMsd = t.msd + LONGITUDE[rover]! / 360 + MISSION_CLOCK_OFFSET_S[rover] / SOL_SECONDS
  return Math.floor(localMsd) - SOL_EPOCH[rover]
}

const LANDING_MS: Record<string, number> = Object.fromEntries(ROVERS.map((r) => [r.slug, Date.parse(`${r.landing_date}T00:00:00Z`)]))

/** The first UTC instant (ms, to the millisecond) of a mission sol: missionSolAt inverted by bisection. */
export function solStartUtcMs(rover: RoverSlug, sol: number): number {
  const solMs = SOL_SECONDS * 1000
  let lo = LANDING_MS[rover]! + (sol - 3) * solMs
  let hi = LANDING_MS[rover]! + (sol + 3) * solMs
  while (missionSolAt(rover, lo) >= sol) lo -= solMs
  while (missionSolAt(rover, hi) < sol) hi += solMs
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2)
    if (missionSolAt(rover, mid) >= sol) hi = mid
    else lo = mid
  }
  return hi
}
