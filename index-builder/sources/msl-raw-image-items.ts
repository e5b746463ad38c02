import type { PhotoRecord } from '../normalize/photo-record'
import { mapCamera } from '../normalize/camera-map'
import { nasaIdFromUrl } from '../normalize/nasa-id'
import { canonicalSampleType } from '../normalize/sample-type'
import { parseCount, parseNumber } from '../normalize/parse-tuple'
import { parseUtc } from '../normalize/utc-time'
import { countUnmapped, eachRecord, RecordError, type ReadContext } from './source-error'
import { compact, optionalText, requireSol, type PhotoDraft } from './photo-draft'
import { dimensions, xyz } from './rich-fields'

/**
 * A page of the Curiosity raw-image API as saved from `mars.nasa.gov/api/v1/raw_image_items/`
 * (SOURCES.md §4.2): `{items:[…], more, total, page, per_page}`. Per item: id (NASA internal),
 * imageid, sol, instrument (NAV_LEFT_B, MAST_LEFT, CHEMCAM_RMI, …), url/https_url, site, drive, xyz,
 * spacecraft_clock, subframe_rect "(x,y,w,h)", scale_factor, date_taken, title, description,
 * image_credit, extended{lmst, mast_az, mast_el, sample_type (lower-case), …}.
 * nasa_id is `imageid` (else the stem of the URL); the Curiosity LMST is `extended.lmst`.
 */
export function readMslRawImageItems(doc: unknown, ctx: ReadContext, idMismatch: (a: string, b: string) => void): { records: number; drafts: PhotoDraft[] } {
  const list = (doc as { items: unknown[] }).items
  const drafts = eachRecord(ctx, list, (o) => (o as { imageid?: unknown; id?: unknown })?.imageid ?? (o as { id?: unknown })?.id, (o, item) => {
    if (!o || typeof o !== 'object') throw new RecordError('not an object')
    const r = o as Record<string, unknown>
    const ext = (r.extended ?? {}) as Record<string, unknown>
    const url = optionalText(r.https_url) ?? optionalText(r.url)
    const fromUrl = url ? nasaIdFromUrl(url) : undefined
    const imageid = optionalText(r.imageid)?.trim() ?? fromUrl?.nasaId
    if (!imageid) throw new RecordError('missing imageid and url')
    if (fromUrl && optionalText(r.imageid) && fromUrl.nasaId !== imageid) idMismatch(imageid, fromUrl.nasaId)
    const sol = requireSol(r.sol)
    const instrument = optionalText(r.instrument)
    if (!instrument) throw new RecordError('missing instrument')
    const camera = mapCamera('curiosity', instrument)
    if (!camera) return countUnmapped(ctx, 'curiosity', instrument)
    const utc = parseUtc(r.date_taken)
    if (r.date_taken !== undefined && r.date_taken !== null && utc === undefined) throw new RecordError(`date_taken ${JSON.stringify(r.date_taken)} is not an ISO time`)
    const sclk = parseNumber(r.spacecraft_clock)
    if (utc === undefined && sclk === undefined) throw new RecordError('missing date_taken and spacecraft_clock: no capture time')
    const lmst = optionalText(ext.lmst)
    const record: PhotoRecord = compact({
      rover: 'curiosity' as const,
      camera,
      nasa_id: imageid,
      sol,
      earth_date: '',
      date_taken_utc: utc,
      date_taken_mars: lmst,
      sample_type: canonicalSampleType(ext.sample_type),
      ...dimensions(undefined, r.subframe_rect, r.scale_factor),
      site: parseCount(r.site),
      drive: parseCount(r.drive),
      xyz: xyz(r.xyz),
      mast_azimuth: parseNumber(ext.mast_az),
      mast_elevation: parseNumber(ext.mast_el),
      sclk,
      date_received: parseUtc(r.date_received),
      images: url ? { full: url } : {},
      title: optionalText(r.title),
      caption: optionalText(r.description),
      credit: optionalText(r.image_credit),
      raw: JSON.stringify(r),
      source: ctx.file,
    })
    return { record, richness: 2, version: fromUrl?.version ?? 1, item }
  })
  return { records: list.length, drafts }
}
