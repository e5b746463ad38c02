import type { PhotoRecord } from '../normalize/photo-record'
import { mapCamera } from '../normalize/camera-map'
import { nasaIdFromUrl } from '../normalize/nasa-id'
import { canonicalSampleType } from '../normalize/sample-type'
import { parseCount, parseNumber } from '../normalize/parse-tuple'
import { roverFromUrl } from '../normalize/rover-of'
import { parseUtc } from '../normalize/utc-time'
import { countUnmapped, eachRecord, RecordError, type ReadContext } from './source-error'
import { compact, imagesFromUrl, optionalText, requireSol, requireString, type PhotoDraft } from './photo-draft'
import { dimensions, xyz } from './rich-fields'

/**
 * A raw-feed record as normalised by mars-raw-utils (SOURCES.md §2.7): one flat object per file,
 * `{link, imageid, sol, instrument, date_taken_utc, date_taken_mars, sclk, site, drive, xyz, mast_az,
 * mast_el, dimension, subframe_rect, scale_factor, sample_type, caption, credit, …}`. No title.
 * nasa_id is `imageid`; the id derived from `link` must agree (reported otherwise).
 */
export function readMruRecord(doc: unknown, ctx: ReadContext, idMismatch: (a: string, b: string) => void): { records: number; drafts: PhotoDraft[] } {
  const drafts = eachRecord(ctx, [doc], (o) => (o as { imageid?: unknown }).imageid, (o) => {
    const r = o as Record<string, unknown>
    const link = requireString(r.link, 'link')
    const rover = roverFromUrl(link)
    if (!rover) throw new RecordError(`no rover in link ${link}`)
    const imageid = requireString(r.imageid, 'imageid')
    const fromLink = nasaIdFromUrl(link)
    if (fromLink.nasaId !== imageid) idMismatch(imageid, fromLink.nasaId)
    const sol = requireSol(r.sol)
    const instrument = requireString(r.instrument, 'instrument')
    const camera = mapCamera(rover, instrument)
    if (!camera) return countUnmapped(ctx, rover, instrument)
    const utc = parseUtc(r.date_taken_utc)
    if (utc === undefined) throw new RecordError(r.date_taken_utc === undefined ? 'missing date_taken_utc' : `date_taken_utc ${JSON.stringify(r.date_taken_utc)} is not an ISO time`)
    const record: PhotoRecord = compact({
      rover,
      camera,
      nasa_id: imageid,
      sol,
      earth_date: '',
      date_taken_utc: utc,
      date_taken_mars: optionalText(r.date_taken_mars),
      sample_type: canonicalSampleType(r.sample_type),
      ...dimensions(r.dimension, r.subframe_rect, r.scale_factor),
      site: parseCount(r.site),
      drive: parseCount(r.drive),
      xyz: xyz(r.xyz),
      mast_azimuth: parseNumber(r.mast_az),
      mast_elevation: parseNumber(r.mast_el),
      sclk: parseNumber(r.sclk),
      date_received: parseUtc(r.date_received),
      images: imagesFromUrl(link),
      caption: optionalText(r.caption),
      credit: optionalText(r.credit),
      raw: JSON.stringify(r),
      source: ctx.file,
    })
    return { record, richness: 2, version: fromLink.version }
  })
  return { records: 1, drafts }
}
