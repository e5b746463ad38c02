import type { Store } from '../../store/store'
import type { PanoramaColumns } from '../../store/schema'
import { ROVER_SLUGS, roverCode } from '../../catalog/rovers'
import { notFound } from '../../http/problems'
import { answerSink, type ByteSink } from '../bytes/byte-sink'
import { DATA_OPEN, listEnvelopeTail, singleEnvelopeTail } from '../render/envelope'
import { originFragment, panoramaTable, writePanorama } from '../render/panorama-json'
import { lowerBound, pageRows, pageRowsAtLeast, roverRanges } from '../page/table-ranges'
import { minPhotosParam, readDerivedListParams } from '../params/derived-list-params'

/**
 * GET /api/v2/panoramas and /panoramas/{id} over the panorama table the index builder detected
 * (index-builder/derive/panoramas.ts; behaviour.md §15; decisions.md, Other endpoints).
 *
 * - Every panorama of the selected rovers is listed; there is no default window of the last
 *   500 sols (behaviour.md §15.1 marks that as a BUG: it hid every Perseverance panorama).
 * - `sol_min`/`sol_max` bound the panorama's sol, inclusive; `min_photos` bounds total_photos.
 * - Order: rover code, sol, n (the table's order); ids `pano_{slug}_{sol}_{n}` are numbered per
 *   (rover, sol), so every id a list returns resolves by id to the same record.
 * - Record: the fields of §15.3 plus `photo_ids` (decisions.md: the record lists its photos),
 *   in capture order. The Anchor's `links.download_set` pointed at an endpoint that does not
 *   exist; instead `links.photos` is the photo list query for the panorama's rover, sol,
 *   camera, site and drive (it can also hold photos of other sequences taken there that sol;
 *   `photo_ids` is exact and can be fetched with POST /api/v2/photos/batch).
 */
export const PANORAMA_MIN_PHOTOS = minPhotosParam('Minimum number of photos in the panorama (total_photos), inclusive. 0 or absent: no bound.')

export const PANORAMAS_PATH = '/api/v2/panoramas'

export function listPanoramas(store: Store, params: URLSearchParams, base: string): string {
  return writeListPanoramas(store, params, base).toString()
}

function writeListPanoramas(store: Store, params: URLSearchParams, base: string): ByteSink {
  const q = readDerivedListParams(params, PANORAMA_MIN_PHOTOS)
  const pano = store.panoramas
  const starts = roverRanges(pano.rover, pano.length)
  const ranges: Array<[number, number]> = []
  for (const r of q.roverCodes) {
    // sol ascends within a rover: the sol window is one contiguous range
    const lo = q.solMin === undefined ? starts[r]! : lowerBound(pano.sol, starts[r]!, starts[r + 1]!, q.solMin)
    const hi = q.solMax === undefined ? starts[r + 1]! : lowerBound(pano.sol, lo, starts[r + 1]!, q.solMax + 1)
    if (hi > lo) ranges.push([lo, hi])
  }
  const { page, perPage } = q.paging
  const offset = (page - 1) * perPage
  const { total, rows } = q.minPhotos === undefined
    ? pageRows(ranges, [], offset, perPage)
    : pageRowsAtLeast(ranges, pano.total_photos, q.minPhotos, offset, perPage)
  const sink = answerSink()
  const origin = originFragment(base)
  const table = panoramaTable(pano)
  sink.text(DATA_OPEN + '[')
  for (let i = 0; i < rows.length; i++) {
    if (i > 0) sink.byte(0x2c)
    writePanorama(sink, table, rows[i]!, origin)
  }
  sink.byte(0x5d)
  sink.text(listEnvelopeTail({ returned: rows.length, total, paging: q.paging, base, path: PANORAMAS_PATH, params }))
  return sink
}

/** GET /panoramas/{id}: `pano_<rover_slug>_<sol>_<n>` (case-insensitive, numbers in plain decimal); else 404. */
export function getPanorama(store: Store, id: string, base: string): string {
  const row = findPanorama(store, id)
  if (row < 0) throw notFound(`No panorama has the id "${id.slice(0, 80)}". Panorama ids look like pano_curiosity_1000_1 (rover, sol, number).`)
  const pano = store.panoramas
  const sink = answerSink()
  sink.text(DATA_OPEN)
  writePanorama(sink, panoramaTable(pano), row, originFragment(base))
  sink.text(singleEnvelopeTail(`${base}${PANORAMAS_PATH}/${panoramaId(pano, row)}`))
  return sink.toString()
}

/** Row of a panorama id, or -1: binary search of (rover, sol), then n counts from 1 within it. */
export function findPanorama(store: Store, id: string): number {
  const m = /^pano_([A-Za-z]{1,20})_(0|[1-9]\d{0,9})_([1-9]\d{0,9})$/i.exec(id)
  if (!m) return -1
  const r = roverCode(m[1]!.toLowerCase())
  const sol = Number(m[2])
  const n = Number(m[3])
  if (r < 0) return -1
  const pano = store.panoramas
  const starts = roverRanges(pano.rover, pano.length)
  const first = lowerBound(pano.sol, starts[r]!, starts[r + 1]!, sol)
  const row = first + n - 1
  return row < starts[r + 1]! && pano.sol[row] === sol && pano.n[row] === n ? row : -1
}

export function panoramaId(pano: PanoramaColumns, row: number): string {
  return `pano_${ROVER_SLUGS[pano.rover[row]!]}_${pano.sol[row]}_${pano.n[row]}`
}
