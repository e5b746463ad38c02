import type { PhotoRecord } from '../normalize/photo-record'
import { mapCamera } from '../normalize/camera-map'
import { nasaIdFromUrl } from '../normalize/nasa-id'
import { roverFromUrl } from '../normalize/rover-of'
import { countUnmapped, eachRecord, RecordError, type ReadContext } from './source-error'
import { compact, imagesFromUrl, requireString, type PhotoDraft } from './photo-draft'
import { solFromUrl } from './v1-csv'

/**
 * Image URLs listed by v1 camera name (SOURCES.md §2.16): `{"CHEMCAM":[url, …], "MAST":[{"score":…,
 * "url":url}, …], …}`. A list item is a URL, or an object whose `url` is one; anything else in the
 * object (the `score` a project computed itself) is not NASA data and is neither served nor kept
 * in `raw`. Rover and sol come from the URL (path `/sol/NNNNN/`, `msss/NNNNN/`, else the image
 * id), the image id from its file name; no v1 id, no earth_date: the normalize stage dates the
 * photo from its clock count, else from NASA's v1 manifest for the sol.
 */
export function isCameraUrlLists(doc: unknown): boolean {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return false
  const entries = Object.entries(doc as Record<string, unknown>)
  if (entries.length === 0) return false
  return entries.every(([k, v]) => /^[A-Z][A-Z0-9_]{0,39}$/.test(k) && Array.isArray(v) && v.length > 0 && isUrlItem(v[0]))
}

function isUrlItem(v: unknown): boolean {
  if (typeof v === 'string') return /^https?:\/\//.test(v)
  return !!v && typeof v === 'object' && typeof (v as { url?: unknown }).url === 'string'
}

export function readCameraUrlLists(doc: unknown, ctx: ReadContext): { records: number; drafts: PhotoDraft[] } {
  const items: Array<{ camera: string; item: unknown }> = []
  for (const [camera, list] of Object.entries(doc as Record<string, unknown[]>)) {
    for (const item of list) items.push({ camera, item })
  }
  const drafts = eachRecord(ctx, items, () => undefined, ({ camera: name, item }) => {
    const url = requireString(typeof item === 'string' ? item : item && typeof item === 'object' ? (item as { url?: unknown }).url : undefined, 'url')
    const rover = roverFromUrl(url)
    if (!rover) throw new RecordError(`no rover in URL ${url.slice(0, 200)}`)
    const sol = solFromUrl(url)
    if (sol === undefined) throw new RecordError(`no sol in URL ${url.slice(0, 200)}`)
    const camera = mapCamera(rover, name)
    if (!camera) return countUnmapped(ctx, rover, name)
    const { nasaId, version } = nasaIdFromUrl(url)
    const record: PhotoRecord = compact({
      rover,
      camera,
      nasa_id: nasaId,
      sol,
      earth_date: '',
      images: imagesFromUrl(url),
      raw: JSON.stringify({ camera: name, img_src: url }),
      source: ctx.file,
    })
    return { record, richness: 1, version }
  })
  return { records: items.length, drafts }
}
