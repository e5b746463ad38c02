import { notFound, validationError, type ParamError } from '../../http/problems'
import type { Store } from '../../store/store'
import { answerSink, type ByteSink } from '../bytes/byte-sink'
import { DATA_OPEN, singleEnvelopeTail } from '../render/envelope'
import { echo } from '../params/param-parsers'
import { photoOutputOf } from '../params/photo-params'
import { writePhoto } from '../render/photo-json'
import { PHOTOS_PATH } from './list-photos'

/**
 * `GET /api/v2/photos/{id}` (behaviour.md §9): the id is an int32 (anything else: 400, parameter
 * `id`); the whole list validator runs on the query, whose output parameters (fields,
 * field_set, include, image_sizes, exclude_images) shape the photo; filters do not apply.
 * Unknown id: 404. Envelope `{data, links: {self}}`.
 */
export function getPhoto(store: Store, id: string, params: URLSearchParams, base: string): string {
  return writeGetPhoto(store, id, params, base).toString()
}

function writeGetPhoto(store: Store, id: string, params: URLSearchParams, base: string): ByteSink {
  const errors: ParamError[] = []
  const n = parsePathId(id, errors)
  const output = photoOutputOf(params, store, errors)
  if (n === undefined) throw validationError(errors)
  const row = store.paths.rowOfId(n)
  if (row < 0) throw notFound(`No photo has id ${n}.`)
  const sink = answerSink()
  sink.text(DATA_OPEN)
  writePhoto(sink, store, row, output)
  sink.text(singleEnvelopeTail(`${base}${PHOTOS_PATH}/${n}`))
  return sink
}

export function parsePathId(raw: string | null | undefined, errors: ParamError[]): number | undefined {
  // The router hands over null for a path segment that does not percent-decode.
  if (typeof raw !== 'string') {
    errors.push({ parameter: 'id', message: 'must be an integer photo id (int32); the path segment is not valid percent-encoding' })
    return undefined
  }
  const t = raw.trim()
  const n = /^[+-]?\d{1,12}$/.test(t) ? Number(t) : NaN
  if (!Number.isInteger(n) || n < -(2 ** 31) || n > 2 ** 31 - 1) {
    errors.push({ parameter: 'id', message: `must be an integer photo id (int32), got "${echo(raw)}"` })
    return undefined
  }
  return n
}
