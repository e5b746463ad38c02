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

export function mapCamera(rover: RoverSlug, instrument: string): string | undefined {
  const name = instrument.trim().toUpperCase()
  if (findCamera(rover, name)) return name
  if (rover === 'curiosity') {
    for (const [re, cam] of MSL_PREFIX) if (re.test(name)) return cam
  }
  // Tables that name the camera by its v1 full name ("Mars Hand Lens Imager", SOURCES.md §2.11).
  return camerasOf(rover).find((c) => c.full_name.toUpperCase() === name)?.name
}
