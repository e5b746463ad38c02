import { relative, resolve } from 'node:path'
import { roverCode, type RoverSlug } from '../../src/catalog/rovers'
import type { ManifestSource, PhotoColumns } from '../../src/store/schema'
import { DictBuilder, Utf8Builder } from '../encode/utf8-builder'
import { CHEMCAM_PRC, PROFILES, SAMPLE_TYPES, THUMBNAIL } from './synthetic/camera-profiles'
import { captionOf, merCode, MER_CODE_LIMIT, titleOf } from './synthetic/feed-texts'
import { allocRows, generateRover, type GenRows } from './synthetic/generate-rows'
import { planVolumes, type SolPlan } from './synthetic/plan-volumes'
import { Rng, subSeed } from './synthetic/rng'
import { readWaypoints, type ShapingFile } from './synthetic/shaping-data'
import { buildTraverse } from './synthetic/traverse'
import { realSteps, traversePositions } from './synthetic/traverse-positions'
import type { Waypoint } from './waypoint'
import { landingSite } from '../sun/rover-places'

/**
 * The synthetic full-scale catalogue (SOURCES.md §6): ~2M photos shaped on the real per-sol
 * manifests, camera mixes and waypoint tables, a pure function of (seed, scale). Numbers are
 * generated into typed arrays (synthetic/generate-rows.ts) and the strings (nasa_id per §4.5,
 * URLs per §4.1/4.2/4.4, Mars time) written straight into Utf8 buffers, no object per photo.
 * `photos` is a photo table in generation order for the column encoder
 * (encode/photo-columns.ts), the one that orders and encodes the real sources too; `raw` is empty.
 */
export interface SyntheticOptions {
  seed?: number
  /** 1 = full size (~2M). Below 1, each sol is kept with that probability. */
  scale?: number
  onProgress?: (done: number, total: number, stage: string) => void
}

export interface SyntheticCatalogue {
  /** In generation order, not yet encoded: hand it to encodePhotoColumns (which consumes it). */
  photos: PhotoColumns
  sources: ManifestSource[]
  seed: number
  scale: number
  perRover: Record<RoverSlug, number>
  /** Where each rover stood at each (site, drive) of its traverse, labelled synthetic (synthetic/traverse-positions.ts). */
  waypoints: Waypoint[]
}

export const DEFAULT_SEED = 20120806
/** Mission order: ids rise with mission time, like the v1 ids. */
const GENERATION_ORDER: RoverSlug[] = ['spirit', 'opportunity', 'curiosity', 'perseverance']
const REPO = resolve(import.meta.dir, '../..')

export function generateSynthetic(opts: SyntheticOptions = {}): SyntheticCatalogue {
  const seed = opts.seed ?? DEFAULT_SEED
  const scale = opts.scale ?? 1
  if (!(scale > 0) || !Number.isFinite(scale)) throw new Error(`--scale must be a positive number, got ${scale}`)
  const used: ShapingFile[] = []
  const plans = new Map<RoverSlug, SolPlan[]>()
  let total = 0
  for (const rover of GENERATION_ORDER) {
    const p = planVolumes(rover, scale, new Rng(subSeed(seed, `${rover}/volumes`)), used)
    plans.set(rover, p)
    for (const s of p) total += s.count
  }

  const rows = allocRows(total)
  const perRover = { curiosity: 0, perseverance: 0, opportunity: 0, spirit: 0 } as Record<RoverSlug, number>
  const waypoints: Waypoint[] = []
  // Opportunity has no table: its steps are Spirit's, its twin's (read first: spirit comes later in GENERATION_ORDER).
  const spiritSteps = realSteps(readWaypoints('spirit', []))
  for (const rover of GENERATION_ORDER) {
    const mer = rover === 'spirit' || rover === 'opportunity'
    const maxSol = Math.max(0, ...plans.get(rover)!.map((p) => p.sol))
    const real = readWaypoints(rover, used)
    const traverse = buildTraverse(
      real,
      {
        maxSol,
        firstSite: mer ? 0 : 1,
        maxDrive: mer ? MER_CODE_LIMIT - 1 : 9999,
        maxSite: mer ? MER_CODE_LIMIT - 1 : 999,
        driveChance: 0.4,
        step: mer ? [8, 120] : [20, 400],
        solsPerSite: mer ? 25 : 40,
      },
      new Rng(subSeed(seed, `${rover}/traverse`)),
    )
    const steps = rover === 'opportunity' ? spiritSteps : realSteps(real)
    waypoints.push(...traversePositions(rover, traverse, real, steps, landingSite(roverCode(rover)), new Rng(subSeed(seed, `${rover}/positions`))))
    perRover[rover] = generateRover(rows, rover, plans.get(rover)!, traverse, new Rng(subSeed(seed, `${rover}/photos`)), rows.length + 1)
    opts.onProgress?.(rows.length, total, 'generate')
  }

  const photos = photoTable(rows, opts.onProgress)
  const sources: ManifestSource[] = used.map((u) => ({ path: relative(REPO, u.path), format: u.format, records: u.records, photos: 0, skipped: 0 }))
  return { photos, sources, seed, scale, perRover, waypoints }
}

const M20_DIR = 'https://mars.nasa.gov/mars2020-raw-images/pub/ods/surface/sol/'
const MSL_DIR = 'https://mars.nasa.gov/msl-raw-images/'
const MER_DIR = 'http://mars.nasa.gov/mer/gallery/all/'
const MSL_LETTER = ['F', 'S', 'D', 'T', 'F']
const MSSS_PRODUCT = ['E01', 'I01', 'D01', 'C00', 'E01']
const MER_PRODUCT = ['EFF', 'ESF', 'EDN', 'ETH', 'EFF']

/** The generated numbers as they are (no copy) and every string column written from them, in generation order. */
function photoTable(g: GenRows, onProgress?: SyntheticOptions['onProgress']): PhotoColumns {
  const n = g.length
  const used = <T extends { subarray(a: number, b: number): T }>(a: T): T => a.subarray(0, n)

  const rover = new Uint8Array(n)
  const camera = new Int16Array(n)
  const sample = new Int8Array(n)
  const cameraDict = new DictBuilder()
  const profileCamera = PROFILES.map((p) => cameraDict.code(p.camera))
  const profileRover = PROFILES.map((p) => roverCode(p.rover))
  const credits = new DictBuilder()
  const profileCredit = PROFILES.map((p) => credits.code(p.credit))
  const captions = new DictBuilder()
  const profileCaption = PROFILES.map((p) => captions.code(captionOf(p)))
  const titles = new DictBuilder()
  const titleCode = new Map<number, number>()
  const dirs = new DictBuilder()
  const dirCode = new Map<number, number>()
  const titleCodes = new Int32Array(n)
  const dirCodes = new Int32Array(n)
  const creditCodes = new Int8Array(n)
  const captionCodes = new Int16Array(n)

  // Bytes per row measured on the catalogue (35, 22, ~15 and ~41), with room to spare: a big
  // column that outgrows its buffer is copied into a larger one.
  const nasaId = new Utf8Builder(n, 36.5)
  const mars = new Utf8Builder(n, 22.5)
  const small = new Utf8Builder(n, 15.5)
  const medium = new Utf8Builder(n, 15.5)
  const large = new Utf8Builder(n, 15.5)
  const full = new Utf8Builder(n, 42)
  const raw = new Utf8Builder(n, 0)

  for (let i = 0; i < n; i++) {
    const pi = g.profile[i]!
    const p = PROFILES[pi]!
    const sol = g.sol[i]!
    const product = g.product[i]!
    rover[i] = profileRover[pi]!
    camera[i] = profileCamera[pi]!
    sample[i] = product
    creditCodes[i] = profileCredit[pi]!
    captionCodes[i] = profileCaption[pi]!
    const tKey = pi * 16384 + sol
    let tc = titleCode.get(tKey)
    if (tc === undefined) titleCode.set(tKey, (tc = titles.code(titleOf(p, sol))))
    titleCodes[i] = tc
    const prc = product === CHEMCAM_PRC ? 1 : 0
    const dKey = (pi * 2 + prc) * 16384 + sol
    let dc = dirCode.get(dKey)
    if (dc === undefined) dirCode.set(dKey, (dc = dirs.code(imageDir(pi, sol, prc === 1))))
    dirCodes[i] = dc

    // nasa_id (SOURCES.md §4.5) with the sol, SCLK and site/drive of this photo embedded.
    const sclk = g.sclk[i]!
    const sclkInt = Math.floor(sclk)
    const site = g.site[i]!
    const drive = g.drive[i]!
    const eye = g.eye[i]!
    const seq = g.seq[i]!
    const frame = g.frame[i]!
    switch (p.family) {
      case 'm20': {
        const letter = product === THUMBNAIL ? 'M' : p.seq === 'ZCAM' ? String(seq % 8) : 'F'
        nasaId.text(p.code).text(letter).text('_').int(sol, 4).text('_').int(sclkInt, 10).text('_').int(Math.floor((sclk - sclkInt) * 1000), 3)
        nasaId.text('ECM_N').int(site, 3).int(drive, 4).text(p.seq).int(seq % 100000, 5).text('_').int(frame % 100, 2).text('_295J')
        break
      }
      case 'msl-eng':
      case 'msl-ccam': {
        const code = eye === 1 && p.pairCode ? p.pairCode : p.code
        const cam = p.family === 'msl-ccam' ? 'CR0' : code + (sol < 200 ? 'A' : 'B')
        nasaId.text(cam).text('_').int(sclkInt, 9).text(prc ? 'PRC' : 'EDR').text('_').text(MSL_LETTER[product]!)
        nasaId.int(site, 3).int(drive, 4).text(p.seq).int(seq % 100000, 5).text(prc ? 'L1' : 'M_')
        break
      }
      case 'msss': {
        const code = eye === 1 && p.pairCode ? p.pairCode : p.code
        nasaId.int(sol, 4).text(code).int(seq % 1_000_000, 6).int(frame % 1000, 3).int(g.counter[i]! % 10_000_000, 7).text(MSSS_PRODUCT[product]!).text('_DXXX')
        break
      }
      case 'mer': {
        const roverNo = p.rover === 'opportunity' ? '1' : '2'
        const eyeLetter = p.pairCode ? (eye === 1 ? 'R' : 'L') : 'N'
        const filter = p.camera === 'PANCAM' ? 2 + (seq % 6) : 0
        nasaId.text(roverNo).text(p.code).int(sclkInt, 9).text(MER_PRODUCT[product]!).text(merCode(site)).text(merCode(drive))
        nasaId.text(p.seq).int(seq % 10000, 4).text(eyeLetter).int(filter, 1).text('M1')
        break
      }
    }
    nasaId.end()
    const id = nasaId.lastValue()
    if (p.family === 'm20') {
      small.bytes(id).text('01_320.jpg')
      medium.bytes(id).text('01_800.jpg')
      large.bytes(id).text('01_1200.jpg')
      full.bytes(id).text('01.png')
    } else {
      full.bytes(id).text(p.family === 'mer' ? '-BR.JPG' : p.family === 'msss' ? '.jpg' : prc ? '.PNG' : '.JPG')
    }
    small.end()
    medium.end()
    large.end()
    full.end()
    raw.end()

    const t = g.lmst[i]!
    mars.text('Sol-').int(sol, 5).text('M').int(Math.floor(t / 3_600_000), 2).text(':').int(Math.floor(t / 60_000) % 60, 2).text(':')
    mars.int(Math.floor(t / 1000) % 60, 2).text('.').int(t % 1000, 3)
    mars.end()
    if ((i & 0x3ffff) === 0) onProgress?.(i, n, 'strings')
  }
  onProgress?.(n, n, 'strings')

  return {
    length: n,
    id: used(g.id),
    rover,
    camera: { codes: camera, dict: cameraDict.dict },
    nasa_id: nasaId.finish(),
    sol: used(g.sol),
    earth_date: used(g.earthDate),
    date_taken_utc: used(g.utc),
    date_taken_mars: mars.finish(),
    mars_time_ms: used(g.lmst),
    sample_type: { codes: sample, dict: [...SAMPLE_TYPES] },
    width: used(g.width),
    height: used(g.height),
    site: used(g.site),
    drive: used(g.drive),
    coord_x: used(g.x),
    coord_y: used(g.y),
    coord_z: used(g.z),
    mast_azimuth: used(g.az),
    mast_elevation: used(g.el),
    sclk: used(g.sclk),
    // Stated by no synthetic record: derived by the builder (index-builder/sun/) like a lean record's.
    sun_elevation: new Float32Array(n).fill(NaN),
    sun_azimuth: new Float32Array(n).fill(NaN),
    solar_longitude: new Float32Array(n).fill(NaN),
    // Filled from all photos after encoding, as for real records (derive/related/related-columns.ts).
    lat: new Float64Array(n).fill(NaN),
    lon: new Float64Array(n).fill(NaN),
    stereo_partner: new Int32Array(n).fill(-1),
    sequence: { codes: new Uint8Array(n), dict: [''] },
    // NASA's downlink time is never invented: the synthetic catalogue states none.
    date_received: new Float64Array(n).fill(NaN),
    image_dir: { codes: dirCodes, dict: dirs.dict },
    image_small: small.finish(),
    image_medium: medium.finish(),
    image_large: large.finish(),
    image_full: full.finish(),
    title: { codes: titleCodes, dict: titles.dict },
    caption: { codes: captionCodes, dict: captions.dict },
    credit: { codes: creditCodes, dict: credits.dict },
    raw: raw.finish(),
  }
}

/** The URL folder of a photo (SOURCES.md §4.1 M20, §4.2 MSL engineering/ChemCam/MSSS, §4.4 MER). */
function imageDir(profile: number, sol: number, prc: boolean): string {
  const p = PROFILES[profile]!
  const sol5 = String(sol).padStart(5, '0')
  switch (p.family) {
    case 'm20':
      return `${M20_DIR}${sol5}/ids/edr/browse/${p.dir}/`
    case 'msl-eng':
      return `${MSL_DIR}proj/msl/redops/ods/surface/sol/${sol5}/opgs/edr/${p.dir}/`
    case 'msl-ccam':
      return `${MSL_DIR}proj/msl/redops/ods/surface/sol/${sol5}/${prc ? 'soas/rdr' : 'opgs/edr'}/ccam/`
    case 'msss':
      return `${MSL_DIR}msss/${sol5}/${p.dir}/`
    case 'mer':
      return `${MER_DIR}${p.rover === 'opportunity' ? 1 : 2}/${p.dir}/${String(sol).padStart(3, '0')}/`
  }
}
