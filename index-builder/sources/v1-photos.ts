import type { PhotoRecord } from '../normalize/photo-record'
import { mapCamera } from '../normalize/camera-map'
import { nasaIdFromUrl } from '../normalize/nasa-id'
import { roverFromName, roverFromUrl } from '../normalize/rover-of'
import { countUnmapped, eachRecord, RecordError, type ReadContext } from './source-error'
import { compact, imagesFromUrl, optionalId, requireEarthDate, requireSol, requireString, type PhotoDraft } from './photo-draft'

/**
 * Mars Rover Photos API v1 records (SOURCES.md §4.4): `{photos:[...]}` or a bare array of
 * `{id, sol, camera{name,…}, img_src, earth_date, rover{name,…}}`. Everything else about the photo is
 * derived later (derive-fields.ts). v1 gives no sample type, title, caption, credit or dimensions.
 */
export function readV1Photos(doc: unknown, ctx: ReadContext): { records: number; drafts: PhotoDraft[] } {
  const list = Array.isArray(doc) ? doc : (doc as { photos: unknown[] }).photos
  const drafts = eachRecord(ctx, list, (p) => (p as { id?: unknown })?.id, (p) => {
    if (!p || typeof p !== 'object' || Array.isArray(p)) throw new RecordError('not an object')
    const o = p as Record<string, unknown>
    const camera = o.camera as Record<string, unknown> | undefined
    const roverBlock = o.rover as Record<string, unknown> | undefined
    return v1Draft(
      { id: o.id, sol: o.sol, camera: camera?.name, img_src: o.img_src, earth_date: o.earth_date, rover: roverBlock?.name },
      JSON.stringify(p),
      ctx,
    )
  })
  return { records: list.length, drafts }
}

/** The fields of a v1 record, however the file spells them (JSON objects, CSV columns). */
export interface V1Fields {
  id: unknown
  sol: unknown
  camera: unknown
  img_src: unknown
  earth_date: unknown
  rover: unknown
  /** Stated image size (tables that measured it); absent in v1 JSON. */
  width?: unknown
  height?: unknown
}

export function v1Draft(f: V1Fields, raw: string, ctx: ReadContext): PhotoDraft | undefined {
  const imgSrc = requireString(f.img_src, 'img_src')
  const rover = roverFromName(f.rover) ?? (f.rover === undefined ? roverFromUrl(imgSrc) : undefined)
  if (!rover) throw new RecordError(f.rover === undefined ? `no rover and none in img_src ${imgSrc}` : `unknown rover ${JSON.stringify(f.rover)}`)
  const id = optionalId(f.id)
  const sol = requireSol(f.sol)
  const earthDate = requireEarthDate(f.earth_date)
  const instrument = requireString(f.camera, 'camera name')
  const camera = mapCamera(rover, instrument)
  if (!camera) return countUnmapped(ctx, rover, instrument)
  const { nasaId, version } = nasaIdFromUrl(imgSrc)
  const width = optionalSize(f.width, 'width')
  const height = optionalSize(f.height, 'height')
  const record: PhotoRecord = compact({
    id,
    rover,
    camera,
    nasa_id: nasaId,
    sol,
    earth_date: earthDate,
    images: imagesFromUrl(imgSrc),
    width,
    height,
    raw,
    source: ctx.file,
  })
  return { record, richness: 1, version }
}

function optionalSize(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null || value === '' || value === 'NA') return undefined
  const n = typeof value === 'string' && /^\d{1,6}$/.test(value.trim()) ? Number(value) : value
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) throw new RecordError(`${field} ${JSON.stringify(value).slice(0, 40)} is not a positive integer`)
  return n
}
