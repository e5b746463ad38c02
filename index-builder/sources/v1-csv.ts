import { nasaIdFromUrl } from '../normalize/nasa-id'
import { parseImageId } from '../normalize/parse-image-id'
import { roverFromUrl } from '../normalize/rover-of'
import { columnIndex, type Table } from './delimited-text'
import { eachRecord, RecordError, SourceError, type ReadContext } from './source-error'
import type { PhotoDraft } from './photo-draft'
import { v1Draft } from './v1-photos'

/**
 * v1 records flattened to CSV (SOURCES.md §2.6, GuiihDantas): `id,earth_date,camera_name,img_src`,
 * optionally `sol`, `rover`, and `width`/`height` measured from the image (SOURCES.md §2.11, where
 * `camera` is the v1 full name). Without a sol column the sol is read from the URL path (`/sol/01282/`),
 * else from the image id (`NLG_1282_…`); without a rover column the rover comes from the URL family.
 * `raw` keeps the row as a JSON object of the header's columns (values as written).
 */
export function readV1Csv(t: Table, ctx: ReadContext): { records: number; drafts: PhotoDraft[] } {
  const col = {
    id: columnIndex(t.header, 'id'),
    earth: columnIndex(t.header, 'earth_date'),
    camera: columnIndex(t.header, 'camera_name', 'camera'),
    img: columnIndex(t.header, 'img_src'),
    sol: columnIndex(t.header, 'sol'),
    rover: columnIndex(t.header, 'rover', 'rover_name'),
    width: columnIndex(t.header, 'width'),
    height: columnIndex(t.header, 'height'),
  }
  if (col.img < 0 || col.camera < 0 || col.earth < 0) throw new SourceError(ctx.file, 'file', 'CSV header lacks img_src, camera_name or earth_date')
  const drafts = eachRecord(ctx, t.rows, (r) => (col.id >= 0 ? r[col.id] : undefined), (r) => {
    if (r.length !== t.header.length) throw new RecordError(`has ${r.length} fields, the header ${t.header.length}`)
    const img = r[col.img] ?? ''
    const rawObj: Record<string, string> = {}
    t.header.forEach((h, i) => (rawObj[h] = r[i]!))
    return v1Draft(
      {
        id: col.id >= 0 ? r[col.id] : undefined,
        sol: col.sol >= 0 ? r[col.sol] : solFromUrl(img),
        camera: r[col.camera],
        img_src: img,
        earth_date: r[col.earth],
        rover: col.rover >= 0 ? r[col.rover] : undefined,
        width: col.width >= 0 ? r[col.width] : undefined,
        height: col.height >= 0 ? r[col.height] : undefined,
      },
      JSON.stringify(rawObj),
      ctx,
    )
  })
  return { records: t.rows.length, drafts }
}

/** The sol in an image URL: the `/sol/NNNNN/` path segment, else the sol field of the image id. */
export function solFromUrl(url: string): number | undefined {
  const m = /\/sol\/(\d{1,5})\//.exec(url)
  if (m) return Number(m[1])
  const rover = roverFromUrl(url)
  if (!rover) return undefined
  return parseImageId(rover, nasaIdFromUrl(url).nasaId).sol
}
