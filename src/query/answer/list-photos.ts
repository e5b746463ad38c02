import { validationError, type ParamError } from '../../http/problems'
import type { Store } from '../../store/store'
import { decodeCursor, encodeCursor, fingerprint } from '../page/cursor'
import { answerSink, type ByteSink } from '../bytes/byte-sink'
import { DATA_OPEN, listEnvelopeTail } from '../render/envelope'
import { Order } from '../order/order'
import { parsePhotoQuery } from '../params/photo-params'
import { writePhotos } from '../render/photo-json'
import { runQuery, type QueryOutcome } from '../page/run-query'
import { distanceM, distancePage } from '../page/distance-page'
import type { SortKey } from '../order/order'

export const PHOTOS_PATH = '/api/v2/photos'

/** The cursor keys of sort=distance (distance-page.ts): a distance in metres, then the id. */
const BY_DISTANCE = [{ field: 'distance', desc: false }] as unknown as SortKey[]

/**
 * `GET /api/v2/photos` as JSON text (meta.timestamp left as TIMESTAMP_SLOT): parse the plan,
 * run it, serialise the page. Page mode skips (page-1)*per_page matches (no overflow at any
 * page: offsets are doubles, and a page past the end is 200 with empty data); cursor mode
 * continues after the cursor's position and ignores `page`. Every response that has more rows
 * carries `pagination.cursor.next`.
 */
export function listPhotos(store: Store, params: URLSearchParams, base: string): string {
  return writeListPhotos(store, params, base).sink.toString()
}

/** The same, also telling how the rows were found (tests). */
export function listPhotosWithPlan(store: Store, params: URLSearchParams, base: string): { text: string; outcome: QueryOutcome } {
  const { sink, outcome } = writeListPhotos(store, params, base)
  return { text: sink.toString(), outcome }
}

function writeListPhotos(store: Store, params: URLSearchParams, base: string): { sink: ByteSink; outcome: QueryOutcome } {
  const q = parsePhotoQuery(params, store)
  const order = new Order(q.sort, store.photos, store.paths)
  const near = q.byDistance ? q.filters.near : undefined
  const keys = near ? BY_DISTANCE : order.keys
  const fp = fingerprint(q.filters, keys)
  const errors: ParamError[] = []
  const after = q.cursor !== undefined ? decodeCursor(q.cursor, { keys }, fp, errors) : undefined
  if (errors.length) throw validationError(errors)

  const { page, perPage } = q.paging
  const offset = after ? 0 : (page - 1) * perPage
  const request = { offset, limit: perPage + 1, after }
  const outcome = near ? distancePage(store, { ...q.filters, near }, request) : runQuery(store, q.filters, order, request)
  const rows = outcome.rows
  const more = rows.length > perPage
  const returned = more ? perPage : rows.length
  const last = rows[returned - 1]
  const next = more ? encodeCursor(fp, near ? [distanceM(store, near, last)] : order.valuesOf(last), store.photos.id[last]) : undefined
  const sink = answerSink()
  sink.text(DATA_OPEN)
  writePhotos(sink, store, rows, q.output, returned)
  sink.text(listEnvelopeTail({
    returned,
    total: outcome.total,
    paging: q.paging,
    base,
    path: PHOTOS_PATH,
    params,
    cursor: after ? { current: q.cursor, next } : next ? { next } : undefined,
  }))
  return { sink, outcome }
}
