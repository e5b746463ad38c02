/**
 * What a photo's JSON carries: the attribute selection of `fields` / `field_set`, the image
 * sizes of `image_sizes` / `exclude_images`, and `include` (decisions.md, Envelopes and
 * resources; behaviour.md §8.2-§8.5).
 *
 * Attributes in output order (the interface's Photo table). With neither `fields` nor
 * `field_set` every attribute the photo has is written. `fields` and a comma-list `field_set`
 * take attribute names and the column aliases of behaviour.md §8.3; a preset and `fields`
 * together select the union of both.
 */
export const ATTRIBUTES = [
  'nasa_id', 'sol', 'earth_date', 'date_taken_utc', 'date_taken_mars', 'images', 'dimensions',
  'sample_type', 'title', 'caption', 'credit', 'location', 'telemetry',
  'sun', 'solar_longitude',
] as const
/**
 * Attributes beyond the interface's Photo table (decisions.md, Envelopes and resources): never in
 * the default output nor in `minimal` … `scientific`; `complete` and `fields` by name bring them.
 */
export const EXTRA_ATTRIBUTES = [
  'date_received',
  'added_at',
] as const
export type Attribute = (typeof ATTRIBUTES)[number] | (typeof EXTRA_ATTRIBUTES)[number]

export const A = Object.fromEntries([...ATTRIBUTES, ...EXTRA_ATTRIBUTES].map((a, i) => [a, 1 << i])) as Record<Attribute, number>
/** The interface's attributes: the default output. */
export const ALL_ATTRIBUTES = (1 << ATTRIBUTES.length) - 1
/**
 * Attributes beyond the interface's Photo table: never in the default output nor in `minimal` …
 * `scientific`; they come with `complete` and by name in `fields` (decisions.md, Added 2026-11-28).
 */
export const BEYOND_INTERFACE = A.sun | A.solar_longitude
const EXTRA = EXTRA_ATTRIBUTES.reduce((m, a) => m | A[a], 0)

export const IMAGE_SIZES = ['small', 'medium', 'large', 'full'] as const
export type ImageSize = (typeof IMAGE_SIZES)[number]
export const SIZE = { small: 1, medium: 2, large: 4, full: 8 } as const
export const ALL_SIZES = 15

export interface OutputSpec {
  /** Bitmask of A.*. */
  attrs: number
  /** Bitmask of SIZE.*: sizes images may carry. */
  sizes: number
  /** `minimal` preset: one image, medium else large else full else small. */
  singleImage: boolean
  /** Write location.coordinates (not in `extended`). */
  coordinates: boolean
  /** Write `raw` (the source record; `complete` preset). */
  raw: boolean
  includeRover: boolean
  includeCamera: boolean
}

export const DEFAULT_OUTPUT: OutputSpec = {
  attrs: ALL_ATTRIBUTES & ~BEYOND_INTERFACE, sizes: ALL_SIZES, singleImage: false, coordinates: true, raw: false, includeRover: false, includeCamera: false,
}

export const PRESETS = ['minimal', 'standard', 'extended', 'scientific', 'complete'] as const
export type Preset = (typeof PRESETS)[number]

interface Selection {
  attrs: number
  sizes: number
  singleImage: boolean
  coordinates: boolean
  raw: boolean
}

const STANDARD = A.nasa_id | A.sol | A.earth_date | A.date_taken_utc | A.images | A.sample_type | A.title | A.credit
const EXTENDED = STANDARD | A.date_taken_mars | A.caption | A.dimensions | A.location

export const PRESET_SELECTION: Record<Preset, Selection> = {
  minimal: { attrs: A.sol | A.earth_date | A.images, sizes: 0, singleImage: true, coordinates: false, raw: false },
  standard: { attrs: STANDARD, sizes: ALL_SIZES, singleImage: false, coordinates: false, raw: false },
  extended: { attrs: EXTENDED, sizes: ALL_SIZES, singleImage: false, coordinates: false, raw: false },
  scientific: { attrs: EXTENDED | A.telemetry, sizes: ALL_SIZES, singleImage: false, coordinates: true, raw: false },
  complete: { attrs: ALL_ATTRIBUTES | EXTRA, sizes: ALL_SIZES, singleImage: false, coordinates: true, raw: true },
}

/**
 * Names accepted by `fields` (case-insensitive): the attributes, and the column aliases of
 * behaviour.md §8.3. `img_src_<size>` selects `images` with that size; `img_src` all sizes;
 * `width`/`height` the dimensions; `site`/`drive`/`xyz` the location; `mast_az`/`mast_el` the
 * telemetry; `id` adds nothing (id and type are always written); `created_at` (ingest time)
 * is accepted and writes nothing, since this index keeps no ingest time. `rover` and `camera`
 * add the relationship `include` adds (outputSpec).
 */
export const FIELD_NAMES: Record<string, Partial<Selection>> = {
  ...Object.fromEntries(ATTRIBUTES.map((a) => [a, { attrs: A[a], sizes: a === 'images' ? ALL_SIZES : 0, coordinates: a === 'location' }])),
  ...Object.fromEntries(EXTRA_ATTRIBUTES.map((a) => [a, { attrs: A[a] }])),
  id: {},
  created_at: {},
  img_src: { attrs: A.images, sizes: ALL_SIZES },
  img_src_small: { attrs: A.images, sizes: SIZE.small },
  img_src_medium: { attrs: A.images, sizes: SIZE.medium },
  img_src_large: { attrs: A.images, sizes: SIZE.large },
  img_src_full: { attrs: A.images, sizes: SIZE.full },
  width: { attrs: A.dimensions },
  height: { attrs: A.dimensions },
  site: { attrs: A.location, coordinates: true },
  drive: { attrs: A.location, coordinates: true },
  xyz: { attrs: A.location, coordinates: true },
  mast_az: { attrs: A.telemetry },
  mast_el: { attrs: A.telemetry },
  // The related rover and camera, written as `relationships.rover` / `relationships.camera`
  // exactly as `include` writes them: a sparse fieldset can name them like any attribute.
  rover: {},
  camera: {},
}

export interface OutputRequest {
  preset?: Preset
  fields?: string[]
  imageSizes?: ImageSize[]
  excludeImages?: boolean
  include?: string[]
}

export function outputSpec(req: OutputRequest): OutputSpec {
  let sel: Selection
  if (!req.preset && !req.fields) sel = { ...DEFAULT_OUTPUT }
  else {
    sel = { attrs: 0, sizes: 0, singleImage: false, coordinates: false, raw: false }
    const parts: Array<Partial<Selection>> = []
    if (req.preset) parts.push(PRESET_SELECTION[req.preset])
    for (const f of req.fields ?? []) parts.push(FIELD_NAMES[f])
    let single = false
    let multi = false
    for (const p of parts) {
      sel.attrs |= p.attrs ?? 0
      sel.sizes |= p.sizes ?? 0
      sel.coordinates ||= !!p.coordinates
      sel.raw ||= !!p.raw
      if (p.singleImage) single = true
      else if ((p.attrs ?? 0) & A.images) multi = true
    }
    sel.singleImage = single && !multi
    if (sel.singleImage) sel.sizes = SIZE.medium | SIZE.large | SIZE.full | SIZE.small
  }
  if (req.imageSizes) {
    let mask = 0
    for (const s of req.imageSizes) mask |= SIZE[s]
    sel.sizes &= mask
  }
  if (req.excludeImages) sel.attrs &= ~A.images
  const named = (r: string): boolean => !!req.include?.includes(r) || !!req.fields?.includes(r)
  return { ...sel, includeRover: named('rover'), includeCamera: named('camera') }
}
