import { notFound, validationError, type ParamError } from '../../http/problems'
import type { Store } from '../../store/store'
import { answerSink } from '../bytes/byte-sink'
import { DATA_OPEN } from '../render/envelope'
import { distanceM, distancePage } from '../page/distance-page'
import { parsePathId } from './get-photo'
import { PHOTOS_PATH } from './list-photos'
import { Order, type SortKey } from '../order/order'
import { firstValues, numberParam, readParam, type ParamSpec } from '../params/param-parsers'
import { OUTPUT_PARAMS, parsePhotoOutput, querySchema } from '../params/photo-params'
import type { OutputSpec } from '../params/photo-fields'
import type { NearCircle, PhotoFilters } from '../scan/filters'
import { writePhoto } from '../render/photo-json'
import { runQuery } from '../page/run-query'
import { writeDouble } from '../bytes/float32-text'

/**
 * `GET /api/v2/photos/{id}/related`: in one answer, what belongs with a photo — the other eye
 * of its stereo pair, its observation sequence (the first SEQUENCE_PHOTOS photos in exposure
 * order, with the link to all of them) and the nearest photos taken on other sols within
 * radius_m of where it was taken (default 50 m), nearest first. Each photo is written as the
 * list writes it, shaped by the list's output parameters; a part the photo does not have is null.
 */
export const RELATED_PATH = `${PHOTOS_PATH}/:id/related`

export const SEQUENCE_PHOTOS = 25
export const NEARBY_PHOTOS = 10
export const NEARBY_DEFAULT_M = 50

const RADIUS = numberParam('radius_m', 1, 5000, `Nearby photos of other sols: taken within this many metres of this photo's position (great circle), 1 to 5000, default ${NEARBY_DEFAULT_M}.`)

/** The query parameters of the route: the list's output parameters and radius_m. */
export const RELATED_PARAMS: ParamSpec<unknown>[] = [...OUTPUT_PARAMS, RADIUS as ParamSpec<unknown>]
export const RELATED_QUERY_SCHEMA = querySchema(RELATED_PARAMS)

const EXPOSURE_ORDER: SortKey[] = [{ field: 'date_taken_utc', desc: false }]

export function relatedPhotos(store: Store, rawId: string, params: URLSearchParams, base: string): string {
  const errors: ParamError[] = []
  const id = parsePathId(rawId, errors)
  // One read of the query: each of the route's parameters once (the route's schema admitted only them).
  const query = firstValues(params)
  const output = parsePhotoOutput(query, errors)
  const radius = readParam(query, RADIUS, errors) ?? NEARBY_DEFAULT_M
  if (id === undefined || errors.length) throw validationError(errors)
  const row = store.paths.rowOfId(id)
  if (row < 0) throw notFound(`No photo has id ${id}.`)
  const p = store.photos

  const sink = answerSink()
  sink.text(DATA_OPEN)
  writePhoto(sink, store, row, output)
  sink.text(',"related":{"stereo":')
  const partner = p.stereo_partner[row]!
  const partnerRow = partner >= 0 ? store.paths.rowOfId(partner) : -1
  if (partnerRow >= 0) writePhoto(sink, store, partnerRow, output)
  else sink.text('null')

  sink.text(',"sequence":')
  const sequence = p.sequence.dict[p.sequence.codes[row]!] ?? ''
  if (sequence !== '') {
    const found = runQuery(store, { sequence }, new Order(EXPOSURE_ORDER, p, store.paths), { offset: 0, limit: SEQUENCE_PHOTOS })
    sink.text(`{"id":${JSON.stringify(sequence)},"size":${found.total},"photos":`)
    writeList(sink, store, found.rows, output)
    sink.text(`,"links":{"photos":${JSON.stringify(`${base}${PHOTOS_PATH}?sequence=${encodeURIComponent(sequence)}`)}}}`)
  } else sink.text('null')

  sink.text(',"nearby":')
  if (!Number.isNaN(p.lat[row]!)) {
    // The photos of other sols, nearest first: the list's own filters (the circle and exclude_sol),
    // so only the page is ordered and the link below answers exactly the set counted.
    const near = { lat: p.lat[row]!, lon: p.lon[row]!, radiusM: radius }
    const sol = p.sol[row]!
    const filters: PhotoFilters & { near: NearCircle } = sol >= 0 ? { near, excludeSol: sol } : { near }
    const nearest = distancePage(store, filters, { offset: 0, limit: NEARBY_PHOTOS })
    sink.text(`{"radius_m":`)
    writeDouble(sink, radius)
    sink.text(`,"total":${nearest.total},"photos":[`)
    nearest.rows.forEach((r, i) => {
      if (i > 0) sink.byte(0x2c)
      sink.text('{"distance_m":')
      writeDouble(sink, Math.round(distanceM(store, near, r) * 1000) / 1000)
      sink.text(',"photo":')
      writePhoto(sink, store, r, output)
      sink.byte(0x7d)
    })
    const others = sol >= 0 ? `&exclude_sol=${sol}` : ''
    sink.text(`],"links":{"photos":${JSON.stringify(`${base}${PHOTOS_PATH}?near_photo=${id}&radius_m=${radius}${others}&sort=distance`)}}}`)
  } else sink.text('null')
  sink.text(`},"links":{"self":${JSON.stringify(`${base}${PHOTOS_PATH}/${id}/related`)}}}`)
  return sink.toString()
}

function writeList(sink: ReturnType<typeof answerSink>, store: Store, rows: Int32Array, output: OutputSpec): void {
  sink.byte(0x5b)
  rows.forEach((r, i) => {
    if (i > 0) sink.byte(0x2c)
    writePhoto(sink, store, r, output)
  })
  sink.byte(0x5d)
}
