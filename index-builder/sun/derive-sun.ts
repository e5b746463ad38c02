import type { PhotoColumns, TraverseColumns } from '../../src/store/schema'
import { PLACE_METHODS, RoverPlaces, type PlaceMethod } from './rover-places'
import { sunPosition } from './sun-position'
import { derivesRow, type KeptRows } from '../derive/kept-rows'

/**
 * The sun's position for every photo with a capture time (docs/derived-fields.md, "Sun"): a
 * value the record states (Curiosity PDS3 labels, MER index tables) is served as stated; every
 * other is derived by Mars24 (./sun-position.ts) at the rover's place (./rover-places.ts). A photo
 * without a capture time keeps NaN: its sun cannot be known (golden hour does not match it).
 *
 * Every stated value is also derived as if the record had not stated it, and the difference
 * measured (derived − stated): the report's `errors`, printed by every real build, pinned by
 * test/sun-derived.test.ts. Azimuth errors count only where the stated sun is above
 * AZIMUTH_MIN_ELEVATION (near the zenith the azimuth is undefined and any error is meaningless).
 *
 * Fills photos.sun_elevation, sun_azimuth, solar_longitude in place. With `kept` (an update's
 * merge, derive/kept-rows.ts), only the new rows: a published row's values are what this derives
 * from its unchanged facts and traverses; the report then counts the new rows alone.
 */
export const AZIMUTH_MIN_ELEVATION = 5

export interface SunErrors {
  n: number
  /** |derived − stated| in degrees at the 50th, 95th percentiles and the maximum; mean signed. */
  median: number
  p95: number
  max: number
  mean: number
}

export interface SunReport {
  /** Photos whose sun the records state; derived per place method; unknown (no capture time). */
  stated: number
  derived: Record<PlaceMethod, number>
  unknown: number
  /** Derived vs stated over the stated photos, by quantity. */
  errors: { elevation: SunErrors; azimuth: SunErrors; solar_longitude: SunErrors }
}

/** One photo's sun from its own facts (at `utcMs`, its capture time unless given), ignoring what its record states. */
export function deriveSunAt(places: RoverPlaces, photos: PhotoColumns, row: number, utcMs = photos.date_taken_utc[row]!) {
  const place = places.at(photos.rover[row]!, photos.site[row]!, photos.drive[row]!, photos.sol[row]!)
  return { place, sun: sunPosition(utcMs, place.lat, place.lon) }
}

export function deriveSun(photos: PhotoColumns, traverses: TraverseColumns, kept?: KeptRows): SunReport {
  const places = new RoverPlaces(traverses)
  const derived = Object.fromEntries(PLACE_METHODS.map((m) => [m, 0])) as Record<PlaceMethod, number>
  const el: number[] = []
  const az: number[] = []
  const ls: number[] = []
  let stated = 0
  let unknown = 0
  const { sun_elevation, sun_azimuth, solar_longitude, date_taken_utc } = photos
  for (let row = 0; row < photos.length; row++) {
    if (!derivesRow(kept, row)) continue
    if (Number.isNaN(date_taken_utc[row]!)) {
      if (Number.isNaN(sun_elevation[row]!)) unknown++
      else stated++
      continue
    }
    const { place, sun } = deriveSunAt(places, photos, row)
    const statedEl = sun_elevation[row]!
    const statedAz = sun_azimuth[row]!
    const statedLs = solar_longitude[row]!
    if (!Number.isNaN(statedEl)) {
      stated++
      el.push(sun.elevation - statedEl)
      if (!Number.isNaN(statedAz) && statedEl > AZIMUTH_MIN_ELEVATION) az.push(angleDiff(sun.azimuth, statedAz))
    } else {
      derived[place.method]++
      sun_elevation[row] = sun.elevation
      sun_azimuth[row] = sun.azimuth
    }
    if (!Number.isNaN(statedLs)) ls.push(angleDiff(sun.solarLongitude, statedLs))
    else solar_longitude[row] = sun.solarLongitude
  }
  return { stated, derived, unknown, errors: { elevation: summarise(el), azimuth: summarise(az), solar_longitude: summarise(ls) } }
}

/** a − b wrapped into (−180, 180]. */
export function angleDiff(a: number, b: number): number {
  const d = (((a - b) % 360) + 360) % 360
  return d > 180 ? d - 360 : d
}

/** Absolute-error percentiles (nearest rank) and the signed mean. */
export function summarise(diffs: readonly number[]): SunErrors {
  const n = diffs.length
  if (n === 0) return { n: 0, median: NaN, p95: NaN, max: NaN, mean: NaN }
  const abs = diffs.map(Math.abs).sort((a, b) => a - b)
  const rank = (q: number) => abs[Math.min(n - 1, Math.ceil(q * n) - 1)]!
  return { n, median: rank(0.5), p95: rank(0.95), max: abs[n - 1]!, mean: diffs.reduce((s, d) => s + d, 0) / n }
}
