import { takenSortKey } from '../../src/query/order/sort-values'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Store } from '../../src/store/store'
import { INT_ABSENT, type DictColumn, type Utf8Column } from '../../src/store/schema'
import { CAMERAS } from '../../src/catalog/cameras'
import { ROVER_SLUGS } from '../../src/catalog/rovers'
import { isoDay } from '../lib/data-facts'

/**
 * Writes the store's rows as RFC 4180 CSV files (no header) in the column order of
 * peer-schema.ts, for `COPY ... FROM` in both peers. Absent values (INT_ABSENT, NaN, "")
 * become SQL NULL: an empty unquoted field. Text is quoted when it holds a comma, a quote
 * or a line break.
 */
export interface CsvFiles {
  photos: string
  locations: string
  panoramas: string
  bytes: number
  /** Rows per table (an empty table has an empty file, which a COPY need not read). */
  rows: { photos: number; locations: number; panoramas: number }
}

const NEEDS_QUOTES = /[",\r\n]/
const text = (s: string) => (s === '' ? '' : NEEDS_QUOTES.test(s) ? '"' + s.replaceAll('"', '""') + '"' : s)
const int = (v: number) => (v === INT_ABSENT ? '' : String(v))
const float = (v: number) => (Number.isNaN(v) ? '' : String(v))

function utf8Reader(c: Utf8Column): (i: number) => string {
  const buf = Buffer.from(c.data.buffer, c.data.byteOffset, c.data.byteLength)
  return (i) => text(buf.toString('utf8', c.offsets[i], c.offsets[i + 1]))
}

function dictReader(c: DictColumn): (i: number) => string {
  const escaped = c.dict.map(text)
  return (i) => escaped[c.codes[i]]
}

const dayCache = new Map<number, string>()
const day = (d: number) => {
  let s = dayCache.get(d)
  if (s === undefined) dayCache.set(d, (s = isoDay(d)))
  return s
}

async function writeRows(path: string, rows: number, line: (i: number) => string): Promise<number> {
  const writer = Bun.file(path).writer()
  let bytes = 0
  let chunk: string[] = []
  for (let i = 0; i < rows; i++) {
    chunk.push(line(i))
    if (chunk.length === 10_000 || i === rows - 1) {
      const s = chunk.join('\n') + '\n'
      bytes += Buffer.byteLength(s)
      writer.write(s)
      await writer.flush()
      chunk = []
    }
  }
  await writer.end()
  return bytes
}

/** Camera id of the peers' schema: the index of (rover, name) in CAMERAS, per rover and store camera code. */
export function cameraIds(store: Store): Int16Array[] {
  return ROVER_SLUGS.map((slug) =>
    Int16Array.from(store.photos.camera.dict, (name) => CAMERAS.findIndex((c) => c.rover === slug && c.name === name)),
  )
}

export async function exportCsv(store: Store, dir: string): Promise<CsvFiles> {
  mkdirSync(dir, { recursive: true, mode: 0o755 })
  const p = store.photos
  const camId = cameraIds(store)
  const camera = dictReader(p.camera)
  const nasa = utf8Reader(p.nasa_id)
  const mars = utf8Reader(p.date_taken_mars)
  const sample = dictReader(p.sample_type)
  const imageDir = dictReader(p.image_dir)
  const [small, medium, large, full] = [p.image_small, p.image_medium, p.image_large, p.image_full].map(utf8Reader)
  const title = dictReader(p.title)
  const caption = dictReader(p.caption)
  const credit = dictReader(p.credit)
  const sequence = dictReader(p.sequence)
  const files = { photos: join(dir, 'photos.csv'), locations: join(dir, 'locations.csv'), panoramas: join(dir, 'panoramas.csv') }

  let bytes = await writeRows(files.photos, p.length, (i) => {
    const cam = camId[p.rover[i]][p.camera.codes[i]]
    return [
      p.id[i], p.rover[i], cam < 0 ? '' : cam, camera(i), nasa(i), int(p.sol[i]), day(p.earth_date[i]),
      float(p.date_taken_utc[i]), mars(i), int(p.mars_time_ms[i]), sample(i), int(p.width[i]), int(p.height[i]),
      int(p.site[i]), int(p.drive[i]), float(p.coord_x[i]), float(p.coord_y[i]), float(p.coord_z[i]),
      float(p.mast_azimuth[i]), float(p.mast_elevation[i]), float(p.sclk[i]), imageDir(i), small(i), medium(i),
      large(i), full(i), title(i), caption(i), credit(i),
      float(p.sun_elevation[i]), float(p.sun_azimuth[i]), float(p.solar_longitude[i]),
      float(takenSortKey(p.date_taken_utc[i], p.earth_date[i]) ?? NaN),
      int(p.stereo_partner[i]), sequence(i), float(p.lat[i]), float(p.lon[i]),
    ].join(',')
  })

  const l = store.locations
  bytes += await writeRows(files.locations, l.length, (i) =>
    [
      `${ROVER_SLUGS[l.rover[i]]}_${l.site[i]}_${l.drive[i]}`, l.rover[i], l.site[i], l.drive[i], day(l.first_date[i]),
      day(l.last_date[i]), l.first_sol[i], l.last_sol[i], l.photo_count[i], l.visit_count[i],
      float(l.coord_x[i]), float(l.coord_y[i]), float(l.coord_z[i]),
    ].join(','),
  )

  const n = store.panoramas
  const panCamera = dictReader(n.camera)
  const quality = dictReader(n.quality)
  const [start, end] = [n.mars_time_start, n.mars_time_end].map(utf8Reader)
  bytes += await writeRows(files.panoramas, n.length, (i) =>
    [
      `pano_${ROVER_SLUGS[n.rover[i]]}_${n.sol[i]}_${n.n[i]}`, n.rover[i], n.sol[i], n.n[i], panCamera(i), int(n.site[i]),
      int(n.drive[i]), float(n.coord_x[i]), float(n.coord_y[i]), float(n.coord_z[i]), start(i), end(i),
      n.total_photos[i], float(n.coverage_degrees[i]), float(n.avg_elevation[i]), n.unique_positions[i],
      float(n.avg_position_spacing[i]), quality(i),
      n.photo_ids_values.subarray(n.photo_ids_offsets[i], n.photo_ids_offsets[i + 1]).join(' '),
    ].join(','),
  )
  return { ...files, bytes, rows: { photos: p.length, locations: l.length, panoramas: n.length } }
}

/** INSERT for the rovers table (id = rover code). */
export const ROVERS_INSERT = `INSERT INTO rovers VALUES ${ROVER_SLUGS.map((s, i) => `(${i}, '${s}')`).join(', ')}`

/**
 * The CSV of this store in `dir`, written once per bench run and shared by both peers (the
 * folder is made world-readable: PostgreSQL's server process reads it for COPY).
 */
export async function exportCsvOnce(store: Store, dir: string): Promise<CsvFiles & { reused: boolean }> {
  const marker = join(dir, 'export.json')
  if (existsSync(marker)) {
    const done = JSON.parse(readFileSync(marker, 'utf8')) as CsvFiles & { version: string }
    if (done.version === store.version) return { ...done, reused: true }
  }
  mkdirSync(dir, { recursive: true })
  chmodSync(dir, 0o755)
  const files = await exportCsv(store, dir)
  writeFileSync(marker, JSON.stringify({ ...files, version: store.version }))
  return { ...files, reused: false }
}

/** One line on the export for the report. */
export const csvNote = (c: { ms: number; value: CsvFiles & { reused: boolean } }) =>
  `${(c.value.bytes / 2 ** 20).toFixed(0)} MiB ${c.value.reused ? '(shared export)' : `exported in ${Math.round(c.ms)} ms`}`
