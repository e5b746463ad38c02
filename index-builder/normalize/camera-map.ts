import { camerasOf, findCamera } from '../../src/catalog/cameras'
import type { RoverSlug } from '../../src/catalog/rovers'

/**
 * Feed instrument names → catalogue camera abbreviations (src/catalog/cameras.ts), as the public
 * service maps them (behaviour.md §20: "MAST_*→MAST, NAV_*→NAVCAM, FHAZ_*, RHAZ_*, CHEMCAM_*, MAHLI,
 * MARDI"; Perseverance instruments match a catalogue name exactly). An instrument that maps to no
 * catalogue camera returns undefined: the photo is skipped and counted (behaviour.md §19.2, last note),
 * e.g. Perseverance PIXL, CACHECAM, HELI_*, FRONT_HAZCAM_LEFT_B. A v1 full name maps to its camera.
 */
const MSL_PREFIX: ReadonlyArray<readonly [RegExp, string]> = [
  [/^MAST(_|$)/, 'MAST'],
  [/^NAV(CAM)?(_|$)/, 'NAVCAM'],
  [/^FHAZ(_|$)/, 'FHAZ'],
  [/^RHAZ(_|$)/, 'RHAZ'],
  [/^CHEMCAM(_|$)/, 'CHEMCAM'],
  [/^MAHLI(_|$)/, 'MAHLI'],
  [/^MARDI(_|$)/, 'MARDI'],
]

/**
 * MER INSTRUMENT_ID values of the PDS EDR labels and index tables (SOURCES.md §4.3) → the v1 MER
 * cameras: each eye of a stereo pair is its camera, the descent imager is ENTRY (v1's ENTRY photos
 * are its `1E…`/`2E…` products). The Microscopic Imager has no v1 camera (v1's MINITES is the
 * Mini-TES, not an imager of these volumes): its photos are skipped and counted.
 */
const MER_PREFIX: ReadonlyArray<readonly [RegExp, string]> = [
  [/^PANCAM(_|$)/, 'PANCAM'],
  [/^NAVCAM(_|$)/, 'NAVCAM'],
  [/^(FRONT_HAZCAM|FHAZ)(_|$)/, 'FHAZ'],
  [/^(REAR_HAZCAM|RHAZ)(_|$)/, 'RHAZ'],
  [/^DESCENT(_|$)/, 'ENTRY'],
]

export function mapCamera(rover: RoverSlug, instrument: string): string | undefined {
  const name = instrument.trim().toUpperCase()
  if (findCamera(rover, name)) return name
  const prefixes = rover === 'curiosity' ? MSL_PREFIX : rover === 'opportunity' || rover === 'spirit' ? MER_PREFIX : []
  for (const [re, cam] of prefixes) if (re.test(name)) return cam
  // Tables that name the camera by its v1 full name ("Mars Hand Lens Imager", SOURCES.md §2.11).
  return camerasOf(rover).find((c) => c.full_name.toUpperCase() === name)?.name
}
