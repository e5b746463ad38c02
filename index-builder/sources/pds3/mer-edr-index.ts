import { lstatSync, readdirSync, realpathSync } from 'node:fs'
import path from 'node:path'
import type { RoverSlug } from '../../../src/catalog/rovers'
import { mapCamera } from '../../normalize/camera-map'
import type { PhotoRecord } from '../../normalize/photo-record'
import { parseUtc } from '../../normalize/utc-time'
import { MAX_LABEL_BYTES } from '../input-limits'
import { displayPath } from '../list-files'
import { openBytes } from '../open-file'
import { compact, type PhotoDraft } from '../photo-draft'
import { countUnmapped, RecordError, SourceError, type ReadContext } from '../source-error'
import { readIndexTableLabel, type IndexTableLayout } from './index-table-label'
import { readIndexRows, type Cell, type RowValues } from './index-table-rows'

/**
 * Opportunity and Spirit photos from the PDS Imaging Node's MER EDR index tables (SOURCES.md
 * §4.3): `index/edrindex.lbl` with the `edrindex.tab` it points at, one pair per camera volume
 * (`mer{1|2}{p|n|h|m|d}o_0xxx`: Pancam, Navcam, Hazcams, Microscopic Imager, descent camera; MER1
 * is Opportunity, MER2 Spirit). The table is read through its label (index-table-label.ts and
 * index-table-rows.ts); this module maps one row to one photo:
 *
 *   rover          INSTRUMENT_HOST_ID (MER1/MER2), which must agree with the volume's digit
 *   camera         INSTRUMENT_ID (PANCAM_LEFT → PANCAM, …: normalize/camera-map.ts), which must be a
 *                  camera of the volume's letter
 *   nasa_id        PRODUCT_ID (FILE_NAME's stem, upper-cased, must be the same product)
 *   sol            PLANET_DAY_NUMBER
 *   date_taken_utc START_TIME (UTC); earth_date is its date (normalize/derive-fields.ts)
 *   sclk           SPACECRAFT_CLOCK_START (§4.3's name; the PDS data dictionary's SPACECRAFT_CLOCK_START_COUNT too)
 *   width, height  LINE_SAMPLES, LINES
 *   site, drive    the first two values of ROVER_MOTION_COUNTER (MER counts SITE, DRIVE, IDD, PMA, HGA)
 *   mast az/el     ROVER_INSTRUMENT_AZIMUTH/ELEVATION: the rover frame, as the Curiosity labels
 *                  (pds3/curiosity-vo.ts) and the raw feeds state them; the site frame is kept in raw
 *   image          the volume's browse JPEG: `{PDS_MER_BASE}/{rover}/{volume}/browse/sol{NNNN}/edr/{FILE_NAME}.jpg`
 *                  (§4.3); a PATH_NAME, where the table has one, must be that sol's EDR folder
 *   raw            the columns §4.3 names, as stated (numbers as numbers, absent values left out),
 *                  SOLAR_AZIMUTH and SOLAR_ELEVATION among them
 *   sun            SOLAR_ELEVATION, SOLAR_AZIMUTH: the sun's position NASA states for the exposure,
 *                  local level, azimuth from north clockwise (checked: the §4.3 row's 260.595°/36.72°
 *                  at 15:32 LTST is what Mars24 gives at the landing site within 0.12°)
 * Local true solar time (LOCAL_TRUE_SOLAR_TIME) is not the local mean solar time date_taken_mars
 * holds: it stays in raw, and date_taken_mars is derived from the UTC time like every other's.
 * The sample type comes from the product id (EFF full frame, ESF subframe, EDN downsampled, ETH
 * thumbnail; parse-image-id.ts). There is no title, caption, credit or xyz in the index.
 *
 * A row that does not match its label, or whose columns contradict each other, is a bad record
 * (refused, or counted with --skip-bad); a label that cannot describe a readable table, or an
 * index without the columns a photo needs, refuses the file.
 */
export const PDS_MER_BASE = 'https://planetarydata.jpl.nasa.gov/img/data/mer'

const VOLUME = /^mer([12])([pnhmd])o_\d[0-9x]{3}$/
/** The catalogue cameras of each volume letter (the Microscopic Imager's `m` maps to none). */
const VOLUME_CAMERAS: Record<string, readonly string[]> = { p: ['PANCAM'], n: ['NAVCAM'], h: ['FHAZ', 'RHAZ'], d: ['ENTRY'], m: [] }
const PRODUCT_ID = /^[A-Z0-9_]{1,64}$/
const FILE_NAME = /^[A-Za-z0-9_]{1,64}\.img$/i
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/

/** What a photo needs: a row without one of these columns cannot be one. */
const REQUIRED = ['PLANET_DAY_NUMBER', 'INSTRUMENT_ID'] as const
const RAW_COLUMNS = [
  'VOLUME_ID', 'INSTRUMENT_HOST_ID', 'INSTRUMENT_ID', 'PRODUCT_ID', 'FILE_NAME', 'PLANET_DAY_NUMBER', 'START_TIME',
  'LOCAL_TRUE_SOLAR_TIME', 'SPACECRAFT_CLOCK_START', 'SPACECRAFT_CLOCK_START_COUNT', 'LINES', 'LINE_SAMPLES', 'FIRST_LINE', 'FIRST_LINE_SAMPLE',
  'FILTER_NAME', 'EXPOSURE_DURATION', 'SITE_INSTRUMENT_AZIMUTH', 'SITE_INSTRUMENT_ELEVATION', 'ROVER_INSTRUMENT_AZIMUTH',
  'ROVER_INSTRUMENT_ELEVATION', 'SOLAR_AZIMUTH', 'SOLAR_ELEVATION', 'ROVER_MOTION_COUNTER',
] as const

/** The photos of one MER EDR index: its label's text and where the label is (the table is beside it). */
export function readMerEdrIndex(labelAbs: string, labelText: string, ctx: ReadContext): { records: number; drafts: PhotoDraft[] } {
  if (labelText.length > MAX_LABEL_BYTES) throw new SourceError(ctx.file, 'file', `label is ${labelText.length} characters (at most ${MAX_LABEL_BYTES})`)
  let layout: IndexTableLayout
  try {
    layout = readIndexTableLabel(labelText)
  } catch (e) {
    if (e instanceof RecordError) throw new SourceError(ctx.file, 'file', e.reason)
    throw e
  }
  const at = new Map(layout.columns.map((c, i) => [c.name, i]))
  for (const name of REQUIRED) if (!at.has(name)) throw new SourceError(ctx.file, 'file', `the index has no ${name} column: not a MER EDR index`)
  if (!at.has('PRODUCT_ID') && !at.has('FILE_NAME')) throw new SourceError(ctx.file, 'file', 'the index has neither PRODUCT_ID nor FILE_NAME: its rows name no image')
  if (!at.has('VOLUME_ID') && !at.has('PATH_NAME')) throw new SourceError(ctx.file, 'file', 'the index has neither VOLUME_ID nor PATH_NAME: its images cannot be placed')

  const tableAbs = tableBeside(labelAbs, layout.file, ctx.file)
  const tableFile = displayPath(tableAbs)
  const bytes = openBytes(tableAbs, tableFile)
  const drafts: PhotoDraft[] = []
  let records = 0
  readIndexRows(bytes, layout, {
    row(values, n) {
      records = n
      const d = rowDraft(values, at, ctx)
      if (d) drafts.push(d)
    },
    bad(where, reason) {
      if (where !== 'rows') records = where
      const err = new SourceError(tableFile, where === 'rows' ? 'rows' : `row ${where}`, reason)
      if (!ctx.skipBad) throw err
      ctx.skipped.push({ file: err.file, record: err.record, reason: err.reason })
    },
  })
  return { records, drafts }
}

/**
 * The table the label's pointer names, in the label's folder: matched without regard to case (PDS
 * volumes name `EDRINDEX.TAB` in labels of `edrindex.tab` files), and never a link out of the folder.
 */
function tableBeside(labelAbs: string, name: string, labelFile: string): string {
  const dir = path.dirname(labelAbs)
  const want = name.toLowerCase()
  const hit = readdirSync(dir).find((f) => f.toLowerCase() === want || f.toLowerCase() === `${want}.gz`)
  if (!hit) throw new SourceError(labelFile, 'file', `^INDEX_TABLE names ${name}, which is not beside the label`)
  const abs = path.join(dir, hit)
  if (lstatSync(abs).isSymbolicLink()) {
    const real = realpathSync(abs)
    if (path.dirname(real) !== realpathSync(dir)) throw new SourceError(labelFile, 'file', `${hit} is a symbolic link out of the label's folder: not read`)
  }
  return abs
}

function rowDraft(values: RowValues, at: ReadonlyMap<string, number>, ctx: ReadContext): PhotoDraft | undefined {
  const cell = (name: string): Cell | Cell[] | undefined => {
    const i = at.get(name)
    return i === undefined ? undefined : values[i]
  }
  const text = (name: string): string | undefined => {
    const v = cell(name)
    return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined
  }
  // A number wherever the table writes it, in a numeric column or quoted (SPACECRAFT_CLOCK_START).
  const number = (name: string): number | undefined => {
    const v = cell(name)
    if (v === null || v === undefined || typeof v === 'number') return v ?? undefined
    if (Array.isArray(v) || !DECIMAL.test(v)) throw new RecordError(`${name} ${JSON.stringify(String(v).slice(0, 30))} is not a number`)
    return Number(v)
  }

  const volume = (text('VOLUME_ID') ?? /^\/([^/]+)\//.exec(text('PATH_NAME') ?? '')?.[1])?.toLowerCase()
  const vm = volume === undefined ? null : VOLUME.exec(volume)
  if (!vm) throw new RecordError(`volume ${JSON.stringify((volume ?? '').slice(0, 30))} is not a MER camera volume (mer{1|2}{p|n|h|m|d}o_0xxx)`)
  const host = text('INSTRUMENT_HOST_ID')?.toUpperCase()
  if (host !== undefined && host !== 'MER1' && host !== 'MER2') throw new RecordError(`INSTRUMENT_HOST_ID ${JSON.stringify(host.slice(0, 20))} is not MER1 or MER2`)
  if (host !== undefined && host !== `MER${vm[1]}`) throw new RecordError(`INSTRUMENT_HOST_ID ${host} and volume ${volume} name different rovers`)
  const rover: RoverSlug = vm[1] === '1' ? 'opportunity' : 'spirit'

  const sol = number('PLANET_DAY_NUMBER')
  if (sol === undefined) throw new RecordError('no PLANET_DAY_NUMBER (sol)')
  if (!Number.isInteger(sol) || sol < 0) throw new RecordError(`PLANET_DAY_NUMBER ${sol} is not a sol`)
  const solDir = `sol${String(sol).padStart(4, '0')}`

  const product = text('PRODUCT_ID')?.toUpperCase()
  const fileName = text('FILE_NAME')
  if (product !== undefined && !PRODUCT_ID.test(product)) throw new RecordError(`PRODUCT_ID ${JSON.stringify(product.slice(0, 70))} is not a PDS product id`)
  if (fileName !== undefined && !FILE_NAME.test(fileName)) throw new RecordError(`FILE_NAME ${JSON.stringify(fileName.slice(0, 70))} is not an EDR file name (….img)`)
  const stem = fileName?.slice(0, -4)
  if (product !== undefined && stem !== undefined && stem.toUpperCase() !== product) throw new RecordError(`FILE_NAME ${fileName} is not the file of PRODUCT_ID ${product}`)
  const nasaId = product ?? stem?.toUpperCase()
  if (nasaId === undefined) throw new RecordError('neither PRODUCT_ID nor FILE_NAME: the row names no image')
  const file = fileName ?? `${nasaId.toLowerCase()}.img`
  const pathName = text('PATH_NAME')
  const edrDir = `/${volume}/data/${solDir}/edr/`
  if (pathName !== undefined && pathName.toLowerCase() !== edrDir) throw new RecordError(`PATH_NAME ${JSON.stringify(pathName.slice(0, 80))} is not ${edrDir}: its volume or sol and PLANET_DAY_NUMBER disagree`)

  const instrument = text('INSTRUMENT_ID')
  if (instrument === undefined) throw new RecordError('no INSTRUMENT_ID')
  const camera = mapCamera(rover, instrument)
  if (!camera) return countUnmapped(ctx, rover, instrument)
  if (!VOLUME_CAMERAS[vm[2]!]!.includes(camera)) throw new RecordError(`INSTRUMENT_ID ${instrument} is not a camera of volume ${volume}`)

  const start = text('START_TIME')
  const sclkColumn = at.has('SPACECRAFT_CLOCK_START') ? 'SPACECRAFT_CLOCK_START' : 'SPACECRAFT_CLOCK_START_COUNT'
  const rmc = cell('ROVER_MOTION_COUNTER')
  const counter = (i: number) => (Array.isArray(rmc) && typeof rmc[i] === 'number' && Number.isInteger(rmc[i]) && rmc[i]! >= 0 ? (rmc[i] as number) : undefined)
  const size = (name: string) => {
    const n = number(name)
    return n !== undefined && Number.isInteger(n) && n > 0 ? n : undefined
  }
  const raw: Record<string, unknown> = {}
  for (const name of RAW_COLUMNS) {
    const v = cell(name)
    if (v === null || v === undefined || (Array.isArray(v) && v.every((x) => x === null))) continue
    raw[name] = name === sclkColumn && typeof v === 'string' && DECIMAL.test(v) ? Number(v) : v
  }
  const record: PhotoRecord = compact({
    rover,
    camera,
    nasa_id: nasaId,
    sol,
    earth_date: '',
    date_taken_utc: start === undefined ? undefined : parseUtc(start),
    sclk: number(sclkColumn),
    width: size('LINE_SAMPLES'),
    height: size('LINES'),
    // Site and drive together or neither (derive-fields.ts reads both from an id, never one).
    site: counter(0) !== undefined && counter(1) !== undefined ? counter(0) : undefined,
    drive: counter(0) !== undefined && counter(1) !== undefined ? counter(1) : undefined,
    mast_azimuth: number('ROVER_INSTRUMENT_AZIMUTH'),
    mast_elevation: number('ROVER_INSTRUMENT_ELEVATION'),
    sun_elevation: number('SOLAR_ELEVATION'),
    sun_azimuth: number('SOLAR_AZIMUTH'),
    images: { full: `${PDS_MER_BASE}/${rover}/${volume}/browse/${solDir}/edr/${file}.jpg` },
    raw: JSON.stringify(raw),
    source: ctx.file,
  })
  return { record, richness: 2, version: 1 }
}
