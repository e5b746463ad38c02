import { validationError, type ParamError } from '../../http/problems'
import type { Store } from '../../store/store'
import { answerSink, type ByteSink } from '../bytes/byte-sink'
import { DATA_OPEN, TIMESTAMP_SLOT } from '../render/envelope'
import { photoOutputOf } from '../params/photo-params'
import { writePhotos } from '../render/photo-json'

export const BATCH_PATH = '/api/v2/photos/batch'
export const MAX_BATCH_IDS = 100

/**
 * `POST /api/v2/photos/batch` with `{"ids": [...]}` (decisions.md, Other endpoints): 1 to 100
 * int32 ids, else 400 naming the problem (parameter `ids`, or `body`). Photos in request order;
 * a repeated id is returned once (at its first position); unknown ids are skipped and listed.
 * meta: total_count = returned_count = ids_found (photos returned), ids_requested (distinct ids
 * asked for), ids_missing (the unknown ids, in request order). The output parameters of the
 * query string (fields, field_set, include, image_sizes, exclude_images) apply; the whole photo
 * validator runs on it, as on GET /photos/{id}.
 */
export function batchPhotos(store: Store, body: unknown, params: URLSearchParams, base: string): string {
  return writeBatch(store, body, params, base).toString()
}

function writeBatch(store: Store, body: unknown, params: URLSearchParams, base: string): ByteSink {
  const errors: ParamError[] = []
  const ids = parseIds(body, errors)
  const output = photoOutputOf(params, store, errors)
  const missing: number[] = []
  // The rows found, in request order, written as one photo array (the snapshot's fragments looked up once).
  const rows = new Int32Array(ids!.length)
  store.paths.idDirectory().rowsOf(ids!, rows)
  let found = 0
  for (let i = 0; i < ids!.length; i++) {
    if (rows[i] < 0) missing.push(ids![i])
    else rows[found++] = rows[i]
  }
  const sink = answerSink()
  sink.text(DATA_OPEN)
  writePhotos(sink, store, rows, output, found)
  const meta = `"total_count":${found},"returned_count":${found},"ids_requested":${ids!.length},"ids_found":${found},"ids_missing":${JSON.stringify(missing)},"timestamp":${TIMESTAMP_SLOT}`
  sink.text(`,"meta":{${meta}},"links":{"self":${JSON.stringify(base + BATCH_PATH)}}}`)
  return sink
}

/** Distinct ids in request order, or undefined with an error. */
export function parseIds(body: unknown, errors: ParamError[]): number[] | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    errors.push({ parameter: 'body', message: 'must be a JSON object {"ids": [...]}' })
    return undefined
  }
  const ids = (body as { ids?: unknown }).ids
  if (ids === undefined) {
    errors.push({ parameter: 'ids', message: 'is required: an array of 1 to 100 integer photo ids' })
    return undefined
  }
  if (!Array.isArray(ids)) {
    errors.push({ parameter: 'ids', message: 'must be an array of 1 to 100 integer photo ids' })
    return undefined
  }
  if (ids.length === 0 || ids.length > MAX_BATCH_IDS) {
    errors.push({ parameter: 'ids', message: `must hold 1 to ${MAX_BATCH_IDS} ids, got ${ids.length}` })
    return undefined
  }
  const bad = ids.findIndex((v) => typeof v !== 'number' || !Number.isInteger(v) || v < -(2 ** 31) || v > 2 ** 31 - 1)
  if (bad >= 0) {
    errors.push({ parameter: 'ids', message: `item ${bad} must be an integer photo id (int32), got ${String(JSON.stringify(ids[bad])).slice(0, 40)}` })
    return undefined
  }
  return distinct(ids as number[])
}

/**
 * The ids without repeats, first occurrence kept: an open-addressing table of 256 slots for at
 * most MAX_BATCH_IDS ids (under half full, so probes stay short), cleared per call. A Set costs
 * several times more per batch, and the ids are checked int32s, so they are their own keys.
 */
const SEEN_BITS = 8
const SEEN_SLOTS = 1 << SEEN_BITS
const seenIds = new Int32Array(SEEN_SLOTS)
const seenUsed = new Uint8Array(SEEN_SLOTS)

function distinct(ids: number[]): number[] {
  seenUsed.fill(0)
  const out: number[] = []
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]
    let s = Math.imul(id, 0x9e3779b1) >>> (32 - SEEN_BITS)
    while (seenUsed[s] === 1 && seenIds[s] !== id) s = (s + 1) & (SEEN_SLOTS - 1)
    if (seenUsed[s] === 1) continue
    seenUsed[s] = 1
    seenIds[s] = id
    out.push(id)
  }
  return out
}

