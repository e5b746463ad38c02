import type { RoverSlug } from '../../../src/catalog/rovers'

/**
 * How each camera of the synthetic catalogue shoots and names its products (SOURCES.md §6.2,
 * §6.5-6.7): share of the rover's photos, id/URL family, stereo partner, mast angles and sweeps,
 * sizes and sample types, and the feed texts. Weights follow the manifests' camera-sol counts
 * and the Perseverance sample (§2.6). Image sizes are the ones real records state (§2.11–2.13):
 * Perseverance Navcam/Hazcam full 1280×960 and thumbnails 80×60, Mastcam-Z 1648×1200 / 192×144
 * (raw_images feed); Curiosity Navcam 1024×1024 full and 256×256 downsampled (PDS3 labels);
 * Mastcam and MAHLI the commonest sizes of the v1 table (measured from the images).
 */
export const SAMPLE_TYPES = ['Full', 'Subframe', 'Downsampled', 'Thumbnail', 'ChemCam PRC'] as const
export const FULL = 0
export const SUBFRAME = 1
export const DOWNSAMPLED = 2
export const THUMBNAIL = 3
export const CHEMCAM_PRC = 4

/** [sample type, width, height, weight] */
export type Product = readonly [number, number, number, number]

export type IdFamily = 'm20' | 'msl-eng' | 'msl-ccam' | 'msss' | 'mer'

export interface CameraProfile {
  rover: RoverSlug
  camera: string
  family: IdFamily
  /** Id prefix: M20 two letters (NL), MSL eng two letters (FL), MSSS (ML), MER camera letter (P). */
  code: string
  /** Stereo partner: M20 the partner camera's profile name; MSL/MER the partner's id code (same camera). */
  pairCode?: string
  pairCamera?: string
  /** Chance that a frame is taken by both eyes. */
  pairChance: number
  /** URL folder (ncam, mcam, p, ...) and sequence tag (NCAM, ZCAM, ...). */
  dir: string
  seq: string
  weight: number
  mast: boolean
  /** Chance that a sequence of this camera is an azimuth sweep (a panorama). */
  sweep: number
  products: readonly Product[]
  credit: string
  /** Instrument name used in titles and captions. */
  long: string
  /** Only on the landing sol (EDL cameras), or a burst on the landing sol (MARDI). */
  landingOnly?: boolean
  landingBurst?: number
}

const NAV_MSL: Product[] = [[FULL, 1024, 1024, 70], [SUBFRAME, 1024, 512, 15], [DOWNSAMPLED, 256, 256, 8], [THUMBNAIL, 64, 64, 7]]
const HAZ_MSL: Product[] = [[FULL, 1024, 1024, 75], [DOWNSAMPLED, 512, 512, 15], [THUMBNAIL, 64, 64, 10]]
const M20_NAV: Product[] = [[FULL, 1280, 960, 92], [THUMBNAIL, 80, 60, 8]]
const M20_Z: Product[] = [[FULL, 1648, 1200, 92], [THUMBNAIL, 192, 144, 8]]
const MER_PAN: Product[] = [[FULL, 1024, 1024, 75], [SUBFRAME, 512, 512, 20], [SUBFRAME, 1024, 256, 5]]
const MER_NAV: Product[] = [[FULL, 1024, 1024, 70], [DOWNSAMPLED, 512, 512, 20], [SUBFRAME, 1024, 512, 10]]
const MER_HAZ: Product[] = [[FULL, 1024, 1024, 70], [DOWNSAMPLED, 512, 512, 30]]

function mer(rover: RoverSlug): CameraProfile[] {
  const base = { rover, family: 'mer' as const, pairChance: 0 }
  return [
    { ...base, camera: 'PANCAM', code: 'P', pairCode: 'R', pairChance: 0.3, dir: 'p', seq: 'P', weight: 62, mast: true, sweep: 0.45, products: MER_PAN, credit: 'NASA/JPL-Caltech/Cornell', long: 'Panoramic Camera' },
    { ...base, camera: 'NAVCAM', code: 'N', pairCode: 'R', pairChance: 0.6, dir: 'n', seq: 'P', weight: 22, mast: true, sweep: 0.5, products: MER_NAV, credit: 'NASA/JPL-Caltech', long: 'Navigation Camera' },
    { ...base, camera: 'FHAZ', code: 'F', pairCode: 'R', pairChance: 0.8, dir: 'f', seq: 'P', weight: 7, mast: false, sweep: 0, products: MER_HAZ, credit: 'NASA/JPL-Caltech', long: 'Front Hazard Avoidance Camera' },
    { ...base, camera: 'RHAZ', code: 'R', pairCode: 'R', pairChance: 0.8, dir: 'r', seq: 'P', weight: 4, mast: false, sweep: 0, products: MER_HAZ, credit: 'NASA/JPL-Caltech', long: 'Rear Hazard Avoidance Camera' },
    // The v1 MER ingest filed Microscopic Imager frames under MINITES (behaviour.md §19.2).
    { ...base, camera: 'MINITES', code: 'M', dir: 'm', seq: 'P', weight: 6, mast: false, sweep: 0, products: [[FULL, 1024, 1024, 1]], credit: 'NASA/JPL-Caltech/Cornell/USGS', long: 'Microscopic Imager' },
    { ...base, camera: 'ENTRY', code: 'E', dir: 'e', seq: 'F', weight: 1, mast: false, sweep: 0, products: [[FULL, 1024, 1024, 1]], credit: 'NASA/JPL-Caltech', long: 'Descent Image Motion Estimation System camera', landingOnly: true },
  ]
}

const M20 = { rover: 'perseverance' as const, family: 'm20' as const, pairChance: 0 }
const MSL = { rover: 'curiosity' as const, pairChance: 0 }

export const PROFILES: readonly CameraProfile[] = [
  ...mer('spirit'),
  ...mer('opportunity'),
  { ...MSL, family: 'msl-eng', camera: 'FHAZ', code: 'FL', pairCode: 'FR', pairChance: 0.9, dir: 'fcam', seq: 'FHAZ', weight: 6, mast: false, sweep: 0, products: HAZ_MSL, credit: 'NASA/JPL-Caltech', long: 'Front Hazard Avoidance Camera' },
  { ...MSL, family: 'msl-eng', camera: 'RHAZ', code: 'RL', pairCode: 'RR', pairChance: 0.9, dir: 'rcam', seq: 'RHAZ', weight: 4, mast: false, sweep: 0, products: HAZ_MSL, credit: 'NASA/JPL-Caltech', long: 'Rear Hazard Avoidance Camera' },
  { ...MSL, family: 'msl-eng', camera: 'NAVCAM', code: 'NL', pairCode: 'NR', pairChance: 0.5, dir: 'ncam', seq: 'NCAM', weight: 26, mast: true, sweep: 0.5, products: NAV_MSL, credit: 'NASA/JPL-Caltech', long: 'Navigation Camera' },
  { ...MSL, family: 'msss', camera: 'MAST', code: 'ML', pairCode: 'MR', pairChance: 0.4, dir: 'mcam', seq: '', weight: 40, mast: true, sweep: 0.4, products: [[FULL, 1408, 1200, 40], [FULL, 1600, 1200, 35], [SUBFRAME, 848, 848, 15], [THUMBNAIL, 192, 144, 5], [THUMBNAIL, 96, 96, 5]], credit: 'NASA/JPL-Caltech/MSSS', long: 'Mast Camera (Mastcam)' },
  { ...MSL, family: 'msl-ccam', camera: 'CHEMCAM', code: 'CR', dir: 'ccam', seq: 'CCAM', weight: 9, mast: true, sweep: 0, products: [[FULL, 1024, 1024, 80], [CHEMCAM_PRC, 1024, 1024, 20]], credit: 'NASA/JPL-Caltech/LANL', long: 'Chemistry & Camera (ChemCam)' },
  { ...MSL, family: 'msss', camera: 'MAHLI', code: 'MH', dir: 'mhli', seq: '', weight: 10, mast: false, sweep: 0, products: [[FULL, 1632, 1200, 60], [FULL, 1584, 1184, 20], [SUBFRAME, 800, 600, 10], [THUMBNAIL, 192, 144, 10]], credit: 'NASA/JPL-Caltech/MSSS', long: 'Mars Hand Lens Imager (MAHLI)' },
  { ...MSL, family: 'msss', camera: 'MARDI', code: 'MD', dir: 'mrdi', seq: '', weight: 5, mast: false, sweep: 0, products: [[FULL, 1600, 1200, 1]], credit: 'NASA/JPL-Caltech/MSSS', long: 'Mars Descent Imager (MARDI)', landingBurst: 3684 },
  { ...M20, camera: 'NAVCAM_LEFT', code: 'NL', pairCamera: 'NAVCAM_RIGHT', pairChance: 0.55, dir: 'ncam', seq: 'NCAM', weight: 1326, mast: true, sweep: 0.5, products: M20_NAV, credit: 'NASA/JPL-Caltech', long: 'Left Navigation Camera (Navcam)' },
  { ...M20, camera: 'NAVCAM_RIGHT', code: 'NR', dir: 'ncam', seq: 'NCAM', weight: 300, mast: true, sweep: 0.3, products: M20_NAV, credit: 'NASA/JPL-Caltech', long: 'Right Navigation Camera (Navcam)' },
  { ...M20, camera: 'MCZ_LEFT', code: 'ZL', pairCamera: 'MCZ_RIGHT', pairChance: 0.5, dir: 'zcam', seq: 'ZCAM', weight: 1282, mast: true, sweep: 0.45, products: M20_Z, credit: 'NASA/JPL-Caltech/ASU', long: 'Left Mastcam-Z Camera' },
  { ...M20, camera: 'MCZ_RIGHT', code: 'ZR', dir: 'zcam', seq: 'ZCAM', weight: 1160, mast: true, sweep: 0.45, products: M20_Z, credit: 'NASA/JPL-Caltech/ASU', long: 'Right Mastcam-Z Camera' },
  { ...M20, camera: 'FRONT_HAZCAM_LEFT_A', code: 'FL', pairCamera: 'FRONT_HAZCAM_RIGHT_A', pairChance: 0.95, dir: 'fcam', seq: 'FHAZ', weight: 134, mast: false, sweep: 0, products: M20_NAV, credit: 'NASA/JPL-Caltech', long: 'Front Left Hazard Avoidance Camera (Hazcam)' },
  { ...M20, camera: 'FRONT_HAZCAM_RIGHT_A', code: 'FR', dir: 'fcam', seq: 'FHAZ', weight: 5, mast: false, sweep: 0, products: M20_NAV, credit: 'NASA/JPL-Caltech', long: 'Front Right Hazard Avoidance Camera (Hazcam)' },
  { ...M20, camera: 'REAR_HAZCAM_LEFT', code: 'RL', pairCamera: 'REAR_HAZCAM_RIGHT', pairChance: 0.95, dir: 'rcam', seq: 'RHAZ', weight: 18, mast: false, sweep: 0, products: M20_NAV, credit: 'NASA/JPL-Caltech', long: 'Rear Left Hazard Avoidance Camera (Hazcam)' },
  { ...M20, camera: 'REAR_HAZCAM_RIGHT', code: 'RR', dir: 'rcam', seq: 'RHAZ', weight: 1, mast: false, sweep: 0, products: M20_NAV, credit: 'NASA/JPL-Caltech', long: 'Rear Right Hazard Avoidance Camera (Hazcam)' },
  { ...M20, camera: 'SUPERCAM_RMI', code: 'LR', dir: 'scam', seq: 'SCAM', weight: 294, mast: true, sweep: 0, products: [[FULL, 2048, 2048, 1]], credit: 'NASA/JPL-Caltech/LANL/CNES/IRAP', long: 'SuperCam Camera' },
  { ...M20, camera: 'SHERLOC_WATSON', code: 'SI', dir: 'shrlc', seq: 'SRLC', weight: 64, mast: false, sweep: 0, products: [[FULL, 1648, 1200, 1]], credit: 'NASA/JPL-Caltech', long: 'SHERLOC - WATSON camera' },
  { ...M20, camera: 'SKYCAM', code: 'WS', dir: 'meda', seq: 'MEDA', weight: 33, mast: false, sweep: 0, products: [[FULL, 1288, 968, 1]], credit: 'NASA/JPL-Caltech', long: 'MEDA SkyCam' },
  { ...M20, camera: 'EDL_RUCAM', code: 'EU', dir: 'edl', seq: 'EDLC', weight: 4, mast: false, sweep: 0, products: [[FULL, 1280, 1024, 1]], credit: 'NASA/JPL-Caltech', long: 'Rover Up-Look Camera', landingOnly: true },
  { ...M20, camera: 'EDL_RDCAM', code: 'ED', dir: 'edl', seq: 'EDLC', weight: 4, mast: false, sweep: 0, products: [[FULL, 1280, 1024, 1]], credit: 'NASA/JPL-Caltech', long: 'Rover Down-Look Camera', landingOnly: true },
  { ...M20, camera: 'EDL_DDCAM', code: 'ES', dir: 'edl', seq: 'EDLC', weight: 4, mast: false, sweep: 0, products: [[FULL, 1280, 1024, 1]], credit: 'NASA/JPL-Caltech', long: 'Descent Stage Down-Look Camera', landingOnly: true },
  { ...M20, camera: 'EDL_PUCAM1', code: 'EA', dir: 'edl', seq: 'EDLC', weight: 2, mast: false, sweep: 0, products: [[FULL, 1280, 1024, 1]], credit: 'NASA/JPL-Caltech', long: 'Parachute Up-Look Camera A', landingOnly: true },
  { ...M20, camera: 'EDL_PUCAM2', code: 'EB', dir: 'edl', seq: 'EDLC', weight: 2, mast: false, sweep: 0, products: [[FULL, 1280, 1024, 1]], credit: 'NASA/JPL-Caltech', long: 'Parachute Up-Look Camera B', landingOnly: true },
  { ...M20, camera: 'LCAM', code: 'LV', dir: 'edl', seq: 'EDLC', weight: 2, mast: false, sweep: 0, products: [[FULL, 1024, 1024, 1]], credit: 'NASA/JPL-Caltech', long: 'Lander Vision System Camera', landingOnly: true },
]

export function profileIndex(rover: RoverSlug, camera: string): number {
  return PROFILES.findIndex((p) => p.rover === rover && p.camera === camera)
}
