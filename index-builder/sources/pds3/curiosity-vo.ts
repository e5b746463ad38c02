import type { PhotoRecord } from '../../normalize/photo-record'
import { mapCamera } from '../../normalize/camera-map'
import { nasaIdFromUrl } from '../../normalize/nasa-id'
import { parseUtc } from '../../normalize/utc-time'
import { MAX_LABEL_BYTES } from '../input-limits'
import { compact, type PhotoDraft } from '../photo-draft'
import { countUnmapped, eachRecord, RecordError, type ReadContext } from '../source-error'
import { solFromUrl } from '../v1-csv'
import { parsePvl, PvlError, pvlBlock, pvlGet, pvlNumber, pvlString, type PvlBlock, type PvlValue } from './parse-pvl'

/**
 * The Curiosity visual-odometry archive (SOURCES.md §2.13): per sol an `index` of raw-image URLs
 * (one a line) and PDS3 EDR labels (`*.LBL`) for some of them. A label and the URL of one product
 * make one photo: the URL gives the image, the label states capture time (START_TIME, UTC), local
 * mean solar time, SCLK, site and drive (ROVER_MOTION_COUNTER by its names), mast pointing and the
 * image's size. A URL without a label is a lean photo whose other fields are derived from its id.
 *
 * Product ids: the label's PRODUCT_ID ends in the product version digit (`…TRAV00024M1`), the raw
 * image's file name in `_` (`…TRAV00024M_.JPG`, the NASA image id as everywhere else in MSL data);
 * all else is equal (checked for all 2,282 labels), so a label joins its URL by that id.
 */
export interface LabelFacts {
  nasa_id: string
  instrument: string
  sol?: number
  date_taken_utc?: number
  date_taken_mars?: string
  sclk?: number
  site?: number
  drive?: number
  mast_azimuth?: number
  mast_elevation?: number
  width?: number
  height?: number
  /** The sun as the label states it: SITE_DERIVED_GEOMETRY_PARMS (local level, azimuth from north, clockwise) and SOLAR_LONGITUDE. */
  sun_elevation?: number
  sun_azimuth?: number
  solar_longitude?: number
  sequence_id?: string
  /** Where the label was read, for messages. */
  where: string
}

/** The NASA image id a PDS product id stands for (the trailing version digit becomes `_`). */
export function nasaIdOfProduct(productId: string): string {
  return /\d$/.test(productId) ? `${productId.slice(0, -1)}_` : productId
}

/** The photo facts of one PDS3 EDR label; RecordError when the label is malformed or lacks its identity. */
export function readPds3Label(text: string): Omit<LabelFacts, 'where'> {
  if (text.length > MAX_LABEL_BYTES) throw new RecordError(`label is ${text.length} characters (at most ${MAX_LABEL_BYTES})`)
  let label: PvlBlock
  try {
    label = parsePvl(text)
  } catch (e) {
    if (e instanceof PvlError) throw new RecordError(`malformed PDS3 label: ${e.message}`)
    throw e
  }
  const productId = pvlString(pvlGet(label, 'PRODUCT_ID'))
  if (!productId) throw new RecordError('label has no PRODUCT_ID')
  const instrument = pvlString(pvlGet(label, 'INSTRUMENT_ID'))
  if (!instrument) throw new RecordError('label has no INSTRUMENT_ID')
  const motion = motionCounter(pvlGet(label, 'ROVER_MOTION_COUNTER'), pvlGet(label, 'ROVER_MOTION_COUNTER_NAME'))
  const image = pvlBlock(label, 'OBJECT', 'IMAGE')
  // Rover frame, as the raw-image feeds' mast angles; the site frame (from north) is the other group.
  const geometry = pvlBlock(label, 'GROUP', 'ROVER_DERIVED_GEOMETRY_PARMS')
  // The site frame is local level with +x north and azimuth CLOCKWISE (the group's own
  // POSITIVE_AZIMUTH_DIRECTION): the sun there is the sun in the rover's sky, from north clockwise.
  const site = pvlBlock(label, 'GROUP', 'SITE_DERIVED_GEOMETRY_PARMS')
  const siteClockwise = site !== undefined && pvlString(pvlGet(site, 'POSITIVE_AZIMUTH_DIRECTION'))?.toUpperCase() === 'CLOCKWISE'
  const sclk = pvlNumber(pvlGet(label, 'SPACECRAFT_CLOCK_START_COUNT'))
  const start = pvlString(pvlGet(label, 'START_TIME'))
  const lmst = pvlString(pvlGet(label, 'MSL:LOCAL_MEAN_SOLAR_TIME'))
  return compact({
    nasa_id: nasaIdOfProduct(productId),
    instrument,
    sol: nonNegativeInt(pvlNumber(pvlGet(label, 'PLANET_DAY_NUMBER'))),
    date_taken_utc: start ? parseUtc(start) : undefined,
    date_taken_mars: lmst,
    sclk,
    site: motion.SITE,
    drive: motion.DRIVE,
    mast_azimuth: geometry ? pvlNumber(pvlGet(geometry, 'INSTRUMENT_AZIMUTH')) : undefined,
    mast_elevation: geometry ? pvlNumber(pvlGet(geometry, 'INSTRUMENT_ELEVATION')) : undefined,
    width: image ? positiveInt(pvlNumber(pvlGet(image, 'LINE_SAMPLES'))) : undefined,
    height: image ? positiveInt(pvlNumber(pvlGet(image, 'LINES'))) : undefined,
    sun_elevation: site ? degreesWithin(pvlNumber(pvlGet(site, 'SOLAR_ELEVATION')), -90, 90) : undefined,
    sun_azimuth: siteClockwise ? degreesWithin(pvlNumber(pvlGet(site!, 'SOLAR_AZIMUTH')), 0, 360) : undefined,
    solar_longitude: degreesWithin(pvlNumber(pvlGet(label, 'SOLAR_LONGITUDE')), 0, 360),
    sequence_id: pvlString(pvlGet(label, 'SEQUENCE_ID')),
  })
}

/** An angle a label states, when it lies in the range its field allows (360 read as 0). */
function degreesWithin(n: number | undefined, lo: number, hi: number): number | undefined {
  if (n === undefined || !(n >= lo && n <= hi)) return undefined
  return hi === 360 && n === 360 ? 0 : n
}

function nonNegativeInt(n: number | undefined): number | undefined {
  return n !== undefined && Number.isInteger(n) && n >= 0 ? n : undefined
}
function positiveInt(n: number | undefined): number | undefined {
  return n !== undefined && Number.isInteger(n) && n > 0 ? n : undefined
}

/** ROVER_MOTION_COUNTER values by ROVER_MOTION_COUNTER_NAME (SITE, DRIVE, POSE, …). */
function motionCounter(values: PvlValue | undefined, names: PvlValue | undefined): Record<string, number | undefined> {
  const out: Record<string, number | undefined> = {}
  if (!Array.isArray(values) || !Array.isArray(names)) return out
  names.forEach((n, i) => {
    const key = pvlString(n as PvlValue)
    if (key !== undefined) out[key.toUpperCase()] = nonNegativeInt(pvlNumber(values[i]))
  })
  return out
}

/** The URLs of one `index` member: one per non-empty line. */
export function readUrlIndex(text: string): string[] {
  const out: string[] = []
  for (const line of text.split('\n')) {
    const t = line.trim()
    if (t !== '') out.push(t)
  }
  return out
}

/**
 * One photo per URL of the indexes, joined with its label where one exists. A label whose product
 * is in no index is a bad record (nothing to show); `labels` are the labels of the same archive.
 */
export function curiosityVoDrafts(
  urls: ReadonlyArray<{ url: string; ctx: ReadContext; line: number }>,
  labels: ReadonlyMap<string, LabelFacts>,
  labelCtx: (where: string) => ReadContext,
): PhotoDraft[] {
  const drafts: PhotoDraft[] = []
  const joined = new Set<string>()
  for (const u of urls) {
    const got = eachRecord(u.ctx, [u], () => `line ${u.line}`, () => {
      const { nasaId, version } = nasaIdFromUrl(u.url)
      const label = labels.get(nasaId)
      if (label) joined.add(nasaId)
      const instrument = label?.instrument ?? instrumentOfId(nasaId)
      if (!instrument) throw new RecordError(`no camera in image id ${nasaId}`)
      const camera = mapCamera('curiosity', instrument)
      if (!camera) return countUnmapped(u.ctx, 'curiosity', instrument)
      const urlSol = solFromUrl(u.url)
      const sol = label?.sol ?? urlSol
      if (sol === undefined) throw new RecordError(`no sol in ${u.url}`)
      if (label?.sol !== undefined && urlSol !== undefined && label.sol !== urlSol) throw new RecordError(`label ${label.where} says sol ${label.sol}, its URL sol ${urlSol}`)
      const record: PhotoRecord = compact({
        rover: 'curiosity' as const,
        camera,
        nasa_id: nasaId,
        sol,
        earth_date: '',
        date_taken_utc: label?.date_taken_utc,
        date_taken_mars: label?.date_taken_mars,
        sclk: label?.sclk,
        site: label?.site,
        drive: label?.drive,
        mast_azimuth: label?.mast_azimuth,
        mast_elevation: label?.mast_elevation,
        width: label?.width,
        height: label?.height,
        sun_elevation: label?.sun_elevation,
        sun_azimuth: label?.sun_azimuth,
        solar_longitude: label?.solar_longitude,
        sequence_id: label?.sequence_id,
        images: { full: u.url },
        raw: JSON.stringify(label ? { img_src: u.url, label: label.where } : { img_src: u.url }),
        source: label ? label.where : u.ctx.file,
      })
      return { record, richness: label ? 2 : 1, version }
    })
    for (const d of got) drafts.push(d)
  }
  for (const [id, label] of labels) {
    if (joined.has(id)) continue
    const ctx = labelCtx(label.where)
    eachRecord(ctx, [label], () => id, () => {
      throw new RecordError(`label for ${id} matches no URL of the archive's indexes`)
    })
  }
  return drafts
}

/** The MSL engineering-camera instrument an image id names (NLA_… → NAV_LEFT_A). */
function instrumentOfId(id: string): string | undefined {
  const m = /^([NFRC])([LR0])([AB0-9])_/.exec(id)
  if (!m) return undefined
  const cam = { N: 'NAV', F: 'FHAZ', R: 'RHAZ', C: 'CHEMCAM' }[m[1] as 'N' | 'F' | 'R' | 'C']
  return cam === 'CHEMCAM' ? 'CHEMCAM_RMI' : `${cam}_${m[2] === 'L' ? 'LEFT' : 'RIGHT'}_${m[3]}`
}
