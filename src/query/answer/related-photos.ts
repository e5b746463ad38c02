import { notFound, validationError, type ParamError } from '../../http/problems'
import type { Store } from '../../store/store'
import { answerSink } from '../bytes/byte-sink'
import { DATA_OPEN } from '../render/envelope'
import { distanceM, distancePage } from '../page/distance-page'
import { parsePathId } from './get-photo'
import { PHOTOS_PATH } from './list-photos'
import { Order, type SortKey } from '../order/order'
import { firstValues, numberParam, readParam, type ParamSpec } from '../params/param-parsers'
import { PHOTO_PARAMS, parsePhotoQuery, querySchema } from '../params/photo-params'
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

const OUTPUT_NAMES = ['fields', 'field_set', 'include', 'image_sizes', 'exclude_images']
const RADIUS = numberParam('radius_m', 1, 5000, `Nearby photos of other sols: taken within this many metres of this photo's position (great circle), 1 to 5000, default ${NEARBY_DEFAULT_M}.`)

/** The query parameters of the route: the list's output parameters and radius_m. */
export const RELATED_PARAMS: ParamSpec<unknown>[] = [...PHOTO_PARAMS.filter((s) => OUTPUT_NAMES.includes(s.name)), RADIUS as ParamSpec<unknown>]
export const RELATED_QUERY_SCHEMA = querySchema(RELATED_PARAMS)

const EXPOSURE_ORDER: SortKey[] = [{ field: 'date_taken_utc', desc: false }]

export function relatedPhotos(store: Store, rawId: string, params: URLSearchParams, base: string): string {
  const errors: ParamError[] = []
  const id = parsePathId(rawId, errors)
  const radius = readParam(firstValues(params), RADIUS, errors) ?? NEARBY_DEFAULT_M
  const output = new URLSearchParams()
  for (const [k, v] of params) if (OUTPUT_NAMES.includes(k)) output.append(k, v)
  const q = parsePhotoQuery(output, store, errors)
  if (id === undefined || errors.length) throw validationError(errors)
  const row = store.paths.rowOfId(id)
  if (row < 0) throw notFound(`No photo has id ${id}.`)
  const p = store.photos

  const sink = answerSink()
  sink.text(DATA_OPEN)
  writePhoto(sink, store, row, q.output)
  sink.text(',"related":{"stereo":')
  const partner = p.stereo_partner[row]!
  const partnerRow = partner >= 0 ? store.paths.rowOfId(partner) : -1
  if (partnerRow >= 0) writePhoto(sink, store, partnerRow, q.output)
  else sink.text('null')

  sink.text(',"sequence":')
  const sequence = p.sequence.dict[p.sequence.codes[row]!] ?? ''
  if (sequence !== '') {
    const found = runQuery(store, { sequence }, new Order(EXPOSURE_ORDER, p, store.paths), { offset: 0, limit: SEQUENCE_PHOTOS })
    sink.text(`{"id":${JSON.stringify(sequence)},"size":${found.total},"photos":`)
    writeList(sink, store, found.rows, q.output)
    sink.text(`,"links":{"photos":${JSON.stringify(`${base}${PHOTOS_PATH}?sequence=${encodeURIComponent(sequence)}`)}}}`)
  } else sink.text('null')

  sink.text(',"nearby":')
  if (!Number.isNaN(p.lat[row]!)) {
    const near = { lat: p.lat[row]!, lon: p.lon[row]!, radiusM: radius }
    const sol = p.sol[row]!
    const within = distancePage(store, { near }, { offset: 0, limit: Number.MAX_SAFE_INTEGER })
    const others = Array.from(within.rows).filter((r) => p.sol[r] !== sol)
    sink.text(`{"radius_m":`)
    writeDouble(sink, radius)
    sink.text(`,"total":${others.length},"photos":[`)
    others.slice(0, NEARBY_PHOTOS).forEach((r, i) => {
      if (i > 0) sink.byte(0x2c)
      sink.text('{"distance_m":')
      writeDouble(sink, Math.round(distanceM(store, near, r) * 1000) / 1000)
      sink.text(',"photo":')
      writePhoto(sink, store, r, q.output)
      sink.byte(0x7d)
    })
    sink.text(`],"links":{"photos":${JSON.stringify(`${base}${PHOTOS_PATH}?near_photo=${id}&radius_m=${radius}&sort=distance`)}}}`)
  } else sink.text('null')
  sink.text(`},"links":{"self":${JSON.stringify(`${base}${PHOTOS_PATH}/${id}/related`)}}}`)
  return sink.toString()
}

function writeList(sink: ReturnType<typeof answerSink>, store: Store, rows: Int32Array, output: ReturnType<typeof parsePhotoQuery>['output']): void {
  sink.byte(0x5b)
  rows.forEach((r, i) => {
    if (i > 0) sink.byte(0x2c)
    writePhoto(sink, store, r, output)
  })
  sink.byte(0x5d)
}
