import { CAMERAS, findCamera } from '../../catalog/cameras'
import { ROVERS } from '../../catalog/rovers'
import type { DictColumn, PhotoColumns, TextColumn, Utf8Column } from '../../store/schema'
import { A, SIZE, type ImageSize, type OutputSpec } from '../params/photo-fields'

/**
 * The flat columns of an export (Arrow and CSV), following the photo's JSON (interface "Photo")
 * attribute by attribute in its order: `id`, the photo's `rover` (slug) and `camera`
 * (abbreviation) on every export whatever the fields (a data user never has to join them back
 * from the ids), then each selected attribute, nested members
 * flattened with "." (`dimensions.width`, `location.coordinates.x`, `images.full`), then the
 * included relationships (`rover.name`, `camera.full_name`). A value the photo's JSON omits is
 * null (Arrow) or an empty field (CSV). Each column says where its values come from in the
 * column store, so writers read the snapshot directly.
 */
export type ExportColumn =
  | { name: string; kind: 'int32' | 'date'; values: Int32Array }
  /** `group`: the value is present only when every column of the group is finite (coordinates come as a whole). */
  | { name: string; kind: 'f64' | 'timestamp'; values: Float64Array; group?: Float64Array[] }
  | { name: string; kind: 'f32'; values: Float32Array }
  | { name: string; kind: 'utf8'; col: TextColumn }
  | { name: string; kind: 'dict'; col: DictColumn }
  /** Codes into `dict` made per row from the rover (and camera) of the photo. */
  | { name: string; kind: 'rover'; dict: string[] }
  | { name: string; kind: 'camera-name'; dict: string[]; codeOf: (rover: number, camera: number) => number }
  | { name: string; kind: 'image'; size: ImageSize; col: Utf8Column; dir: DictColumn; single: boolean; sizes: number }

export const PERSEVERANCE = ROVERS.findIndex((r) => r.slug === 'perseverance')

export function exportColumns(p: PhotoColumns, out: OutputSpec): ExportColumn[] {
  const cols: ExportColumn[] = [
    { name: 'id', kind: 'int32', values: p.id },
    { name: 'rover', kind: 'rover', dict: ROVERS.map((r) => r.slug) },
    { name: 'camera', kind: 'dict', col: p.camera },
  ]
  const a = out.attrs
  if (a & A.nasa_id) cols.push({ name: 'nasa_id', kind: 'utf8', col: p.nasa_id })
  if (a & A.sol) cols.push({ name: 'sol', kind: 'int32', values: p.sol })
  if (a & A.earth_date) cols.push({ name: 'earth_date', kind: 'date', values: p.earth_date })
  if (a & A.date_taken_utc) cols.push({ name: 'date_taken_utc', kind: 'timestamp', values: p.date_taken_utc })
  if (a & A.date_taken_mars) cols.push({ name: 'date_taken_mars', kind: 'utf8', col: p.date_taken_mars })
  if (a & A.images) {
    for (const size of ['small', 'medium', 'large', 'full'] as const) {
      if (!(out.sizes & SIZE[size])) continue
      const col = { small: p.image_small, medium: p.image_medium, large: p.image_large, full: p.image_full }[size]
      cols.push({ name: `images.${size}`, kind: 'image', size, col, dir: p.image_dir, single: out.singleImage, sizes: out.sizes })
    }
  }
  if (a & A.dimensions) cols.push({ name: 'dimensions.width', kind: 'int32', values: p.width }, { name: 'dimensions.height', kind: 'int32', values: p.height })
  if (a & A.sample_type) cols.push({ name: 'sample_type', kind: 'dict', col: p.sample_type })
  if (a & A.title) cols.push({ name: 'title', kind: 'dict', col: p.title })
  if (a & A.caption) cols.push({ name: 'caption', kind: 'dict', col: p.caption })
  if (a & A.credit) cols.push({ name: 'credit', kind: 'dict', col: p.credit })
  if (a & A.location) {
    cols.push({ name: 'location.site', kind: 'int32', values: p.site }, { name: 'location.drive', kind: 'int32', values: p.drive })
    const group = [p.coord_x, p.coord_y, p.coord_z]
    if (out.coordinates) for (const k of ['x', 'y', 'z'] as const) cols.push({ name: `location.coordinates.${k}`, kind: 'f64', values: p[`coord_${k}`], group })
  }
  if (a & A.telemetry) cols.push({ name: 'telemetry.mast_azimuth', kind: 'f32', values: p.mast_azimuth }, { name: 'telemetry.mast_elevation', kind: 'f32', values: p.mast_elevation })
  if (a & A.sun) cols.push({ name: 'sun.elevation', kind: 'f32', values: p.sun_elevation }, { name: 'sun.azimuth', kind: 'f32', values: p.sun_azimuth })
  if (a & A.solar_longitude) cols.push({ name: 'solar_longitude', kind: 'f32', values: p.solar_longitude })
  if (a & A.date_received) cols.push({ name: 'date_received', kind: 'timestamp', values: p.date_received })
  if (a & A.added_at && p.added_at) cols.push({ name: 'added_at', kind: 'timestamp', values: p.added_at })
  if (out.raw) cols.push({ name: 'raw', kind: 'utf8', col: p.raw })
  // The other eye of a stereo pair (absent: -1, empty), as relationships.stereo.id in JSON.
  cols.push({ name: 'stereo_partner_id', kind: 'int32', values: p.stereo_partner })
  if (out.includeRover) {
    cols.push({ name: 'rover.id', kind: 'rover', dict: ROVERS.map((r) => r.slug) })
    cols.push({ name: 'rover.name', kind: 'rover', dict: ROVERS.map((r) => r.name) })
    cols.push({ name: 'rover.status', kind: 'rover', dict: ROVERS.map((r) => r.status) })
  }
  if (out.includeCamera) {
    cols.push({ name: 'camera.id', kind: 'dict', col: p.camera })
    cols.push(cameraFullName(p))
  }
  return cols
}

/**
 * `camera.full_name`: the catalogue's full name of (rover, camera abbreviation); "" (absent) for a
 * camera it does not list. The dictionary is every full name the catalogue knows, fixed before
 * the first row (an Arrow stream sends each dictionary once).
 */
function cameraFullName(p: PhotoColumns): ExportColumn {
  const dict = ['', ...new Set(CAMERAS.map((c) => c.full_name))]
  const codes = new Map<number, number>()
  return {
    name: 'camera.full_name',
    kind: 'camera-name',
    dict,
    codeOf(rover, camera) {
      const key = rover * 65536 + camera
      let c = codes.get(key)
      if (c === undefined) {
        const facts = ROVERS[rover] ? findCamera(ROVERS[rover]!.slug, p.camera.dict[camera] ?? '') : undefined
        c = facts ? dict.indexOf(facts.full_name) : 0
        codes.set(key, c)
      }
      return c
    },
  }
}

/** Index of each size in IMAGE_COLUMNS order (small, medium, large, full). */
export const SIZE_INDEX = { small: 0, medium: 1, large: 2, full: 3 } as const

/**
 * The one image a `minimal` photo carries (decisions.md, Clarifications): medium, else large,
 * else full, else small, among the sizes `allowed` for its rover; as a SIZE_INDEX, -1 for none.
 */
export function chosenImage(p: PhotoColumns, row: number, allowed: number): number {
  if (allowed & SIZE.medium && p.image_medium.offsets[row + 1]! > p.image_medium.offsets[row]!) return 1
  if (allowed & SIZE.large && p.image_large.offsets[row + 1]! > p.image_large.offsets[row]!) return 2
  if (allowed & SIZE.full && p.image_full.offsets[row + 1]! > p.image_full.offsets[row]!) return 3
  if (allowed & SIZE.small && p.image_small.offsets[row + 1]! > p.image_small.offsets[row]!) return 0
  return -1
}

/**
 * Where the file name an image column holds for `row` starts in the column's bytes (it ends at
 * the next offset), or -1 when the photo's JSON has no such image: only Perseverance carries
 * sizes other than full; `minimal` keeps the one image chosenImage picks (photo-json.ts writes
 * the same).
 */
export function imageStart(c: Extract<ExportColumn, { kind: 'image' }>, rover: number, row: number, p: PhotoColumns): number {
  const allowed = rover === PERSEVERANCE ? c.sizes : c.sizes & SIZE.full
  if (!(allowed & SIZE[c.size])) return -1
  if (c.single && chosenImage(p, row, allowed) !== SIZE_INDEX[c.size]) return -1
  const a = c.col.offsets[row]!
  return a === c.col.offsets[row + 1]! ? -1 : a
}
