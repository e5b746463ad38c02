import type { RoverSlug } from '../../src/catalog/rovers'
import { roverFromName } from '../normalize/rover-of'
import { parseCount } from '../normalize/parse-tuple'
import { isIsoDate } from '../normalize/utc-time'
import { eachRecord, RecordError, SourceError, type ReadContext } from './source-error'

/**
 * v1 photo manifests (SOURCES.md §2.1): saved responses of `GET /manifests/{rover}`,
 * `{photo_manifest:{name, landing_date, launch_date, status, max_sol, max_date, total_photos,
 * photos:[{sol, earth_date, total_photos, cameras[]}]}}`. Used to cross-check sol → earth_date.
 */
export interface ManifestSol {
  sol: number
  earth_date: string
  total_photos: number
  cameras: string[]
}

export interface RoverManifest {
  rover: RoverSlug
  source: string
  landing_date?: string
  max_sol?: number
  max_date?: string
  total_photos?: number
  sols: ManifestSol[]
}

export function readV1Manifest(doc: unknown, ctx: ReadContext): { records: number; manifest: RoverManifest } {
  const m = (doc as { photo_manifest: Record<string, unknown> }).photo_manifest
  const rover = roverFromName(m.name)
  if (!rover) throw new SourceError(ctx.file, 'file', `manifest of unknown rover ${JSON.stringify(m.name)}`)
  const photos = Array.isArray(m.photos) ? m.photos : []
  if (!Array.isArray(m.photos)) throw new SourceError(ctx.file, 'file', 'photo_manifest.photos is not an array')
  const sols = eachRecord(ctx, photos, (p) => (p as { sol?: unknown })?.sol, (p) => {
    const o = (p ?? {}) as Record<string, unknown>
    const sol = parseCount(o.sol)
    if (sol === undefined) throw new RecordError(o.sol === undefined ? 'missing sol' : `sol ${JSON.stringify(o.sol)} is not a non-negative integer`)
    if (!isIsoDate(o.earth_date)) throw new RecordError(`earth_date ${JSON.stringify(o.earth_date)} is not a YYYY-MM-DD date`)
    const total = parseCount(o.total_photos)
    if (total === undefined) throw new RecordError('missing total_photos')
    const cameras = Array.isArray(o.cameras) ? o.cameras.filter((c): c is string => typeof c === 'string') : []
    return { sol, earth_date: o.earth_date, total_photos: total, cameras }
  })
  return {
    records: photos.length,
    manifest: {
      rover,
      source: ctx.file,
      landing_date: isIsoDate(m.landing_date) ? m.landing_date : undefined,
      max_sol: parseCount(m.max_sol),
      max_date: isIsoDate(m.max_date) ? m.max_date : undefined,
      total_photos: parseCount(m.total_photos),
      sols,
    },
  }
}
