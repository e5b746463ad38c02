import { ROVERS, roverCode, type RoverSlug } from './rovers'

/**
 * Every camera of every rover (behaviour.md §19.2: 36 rows; the interface lists the first 13
 * Perseverance cameras). Identity is (rover, name); names repeat across rovers (FHAZ, NAVCAM…).
 */
export interface CameraFacts {
  rover: RoverSlug
  name: string
  full_name: string
}

const MER_CAMERAS = (rover: RoverSlug): CameraFacts[] => [
  { rover, name: 'FHAZ', full_name: 'Front Hazard Avoidance Camera' },
  { rover, name: 'RHAZ', full_name: 'Rear Hazard Avoidance Camera' },
  { rover, name: 'NAVCAM', full_name: 'Navigation Camera' },
  { rover, name: 'PANCAM', full_name: 'Panoramic Camera' },
  { rover, name: 'MINITES', full_name: 'Miniature Thermal Emission Spectrometer (Mini-TES)' },
  { rover, name: 'ENTRY', full_name: 'Entry, Descent, and Landing Camera' },
]

export const CAMERAS: readonly CameraFacts[] = [
  { rover: 'curiosity', name: 'FHAZ', full_name: 'Front Hazard Avoidance Camera' },
  { rover: 'curiosity', name: 'RHAZ', full_name: 'Rear Hazard Avoidance Camera' },
  { rover: 'curiosity', name: 'MAST', full_name: 'Mast Camera' },
  { rover: 'curiosity', name: 'CHEMCAM', full_name: 'Chemistry and Camera Complex' },
  { rover: 'curiosity', name: 'MAHLI', full_name: 'Mars Hand Lens Imager' },
  { rover: 'curiosity', name: 'MARDI', full_name: 'Mars Descent Imager' },
  { rover: 'curiosity', name: 'NAVCAM', full_name: 'Navigation Camera' },
  ...MER_CAMERAS('opportunity'),
  { rover: 'perseverance', name: 'EDL_RUCAM', full_name: 'Rover Up-Look Camera' },
  { rover: 'perseverance', name: 'EDL_RDCAM', full_name: 'Rover Down-Look Camera' },
  { rover: 'perseverance', name: 'EDL_DDCAM', full_name: 'Descent Stage Down-Look Camera' },
  { rover: 'perseverance', name: 'EDL_PUCAM1', full_name: 'Parachute Up-Look Camera A' },
  { rover: 'perseverance', name: 'EDL_PUCAM2', full_name: 'Parachute Up-Look Camera B' },
  { rover: 'perseverance', name: 'NAVCAM_LEFT', full_name: 'Navigation Camera - Left' },
  { rover: 'perseverance', name: 'NAVCAM_RIGHT', full_name: 'Navigation Camera - Right' },
  { rover: 'perseverance', name: 'MCZ_LEFT', full_name: 'Mast Camera Zoom - Left' },
  { rover: 'perseverance', name: 'MCZ_RIGHT', full_name: 'Mast Camera Zoom - Right' },
  { rover: 'perseverance', name: 'FRONT_HAZCAM_LEFT_A', full_name: 'Front Hazard Avoidance Camera - Left' },
  { rover: 'perseverance', name: 'FRONT_HAZCAM_RIGHT_A', full_name: 'Front Hazard Avoidance Camera - Right' },
  { rover: 'perseverance', name: 'REAR_HAZCAM_LEFT', full_name: 'Rear Hazard Avoidance Camera - Left' },
  { rover: 'perseverance', name: 'REAR_HAZCAM_RIGHT', full_name: 'Rear Hazard Avoidance Camera - Right' },
  { rover: 'perseverance', name: 'SKYCAM', full_name: 'MEDA Skycam' },
  { rover: 'perseverance', name: 'SHERLOC_WATSON', full_name: 'SHERLOC WATSON Camera' },
  { rover: 'perseverance', name: 'SUPERCAM_RMI', full_name: 'SuperCam Remote Micro Imager' },
  { rover: 'perseverance', name: 'LCAM', full_name: 'Lander Vision System Camera' },
  ...MER_CAMERAS('spirit'),
]

/** Cameras of one rover, in catalogue order. */
export function camerasOf(rover: RoverSlug): CameraFacts[] {
  return CAMERAS.filter((c) => c.rover === rover)
}

/** The camera facts for (rover, name), or undefined. `name` must already be upper-case. */
export function findCamera(rover: RoverSlug, name: string): CameraFacts | undefined {
  return CAMERAS.find((c) => c.rover === rover && c.name === name)
}

/** All distinct camera names across rovers, sorted. */
export const CAMERA_NAMES: readonly string[] = [...new Set(CAMERAS.map((c) => c.name))].sort()

export { ROVERS, roverCode }
