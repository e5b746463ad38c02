import { splitProductVersion } from '../../src/catalog/nasa-id-form'
import type { PhotoRecord } from '../normalize/photo-record'
import { mapCamera } from '../normalize/camera-map'
import { nasaIdFromUrl } from '../normalize/nasa-id'
import { canonicalSampleType } from '../normalize/sample-type'
import { parseCount, parseNumber } from '../normalize/parse-tuple'
import { parseUtc } from '../normalize/utc-time'
import { countUnmapped, eachRecord, RecordError, type ReadContext } from './source-error'
import { compact, optionalText, requireSol, requireString, type PhotoDraft } from './photo-draft'
import { dimensions, xyz } from './rich-fields'

/**
 * A page of the Perseverance raw-image feed as saved from
 * `mars.nasa.gov/rss/api/?feed=raw_images&category=mars2020&feedtype=json` (SOURCES.md §4.1):
 * `{images:[…], total_images, page, …}`. Per image: imageid, sol, title, caption, credit,
 * date_taken_utc (naive ISO, UTC), date_taken_mars, sample_type, site, drive (a string),
 * camera{instrument,…}, image_files{small, medium, large, full_res},
 * extended{mastAz, mastEl, sclk, scaleFactor, xyz, subframeRect, dimension} (strings).
 */
export function readM2020RawImages(doc: unknown, ctx: ReadContext, idMismatch: (a: string, b: string) => void): { records: number; drafts: PhotoDraft[] } {
  const list = (doc as { images: unknown[] }).images
  const drafts = eachRecord(ctx, list, (o) => (o as { imageid?: unknown })?.imageid, (o, item) => {
    if (!o || typeof o !== 'object') throw new RecordError('not an object')
    const r = o as Record<string, unknown>
    const cam = (r.camera ?? {}) as Record<string, unknown>
    const files = (r.image_files ?? {}) as Record<string, unknown>
    const ext = (r.extended ?? {}) as Record<string, unknown>
    const imageid = requireString(r.imageid, 'imageid')
    // Served in the one documented form (src/catalog/nasa-id-form.ts); the id as stated keeps the photo's number.
    const nasaId = splitProductVersion(imageid).id
    const sol = requireSol(r.sol)
    const instrument = requireString(cam.instrument, 'camera.instrument')
    const camera = mapCamera('perseverance', instrument)
    if (!camera) return countUnmapped(ctx, 'perseverance', instrument)
    const images = compact({
      small: optionalText(files.small),
      medium: optionalText(files.medium),
      large: optionalText(files.large),
      full: optionalText(files.full_res),
    })
    const anyUrl = images.full ?? images.large ?? images.medium ?? images.small
    const fromUrl = anyUrl ? nasaIdFromUrl(anyUrl) : { nasaId, version: 1 }
    if (fromUrl.nasaId !== nasaId) idMismatch(imageid, fromUrl.nasaId)
    const utc = parseUtc(r.date_taken_utc)
    if (r.date_taken_utc !== undefined && r.date_taken_utc !== null && utc === undefined) throw new RecordError(`date_taken_utc ${JSON.stringify(r.date_taken_utc)} is not an ISO time`)
    const sclk = parseNumber(ext.sclk)
    if (utc === undefined && sclk === undefined) throw new RecordError('missing date_taken_utc and sclk: no capture time')
    const record: PhotoRecord = compact({
      rover: 'perseverance' as const,
      camera,
      nasa_id: nasaId,
      id_key: nasaId !== imageid ? imageid : undefined,
      sol,
      earth_date: '',
      date_taken_utc: utc,
      date_taken_mars: optionalText(r.date_taken_mars),
      sample_type: canonicalSampleType(r.sample_type),
      ...dimensions(ext.dimension, ext.subframeRect, ext.scaleFactor),
      site: parseCount(r.site),
      drive: parseCount(r.drive),
      xyz: xyz(ext.xyz),
      mast_azimuth: parseNumber(ext.mastAz),
      mast_elevation: parseNumber(ext.mastEl),
      sclk,
      date_received: parseUtc(r.date_received),
      images,
      title: optionalText(r.title),
      caption: optionalText(r.caption),
      credit: optionalText(r.credit),
      raw: JSON.stringify(r),
      source: ctx.file,
    })
    return { record, richness: 2, version: fromUrl.version, item }
  })
  return { records: list.length, drafts }
}
