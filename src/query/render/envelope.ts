import { link, linkCarries } from '../../http/links'
import { MAX_PER_PAGE, type Paging } from '../params/param-parsers'
import { noteAnswerBytes } from '../bytes/garbage-pacer'

/**
 * The list envelope (interface "Response envelopes"; decisions.md, Envelopes and pagination):
 * `{data, meta, pagination, links}` with absolute links that keep every parameter of the
 * request, `next` omitted on the last page, `prev` omitted on the first. Built as JSON text
 * around an already-serialised `data` array so no object tree is made for the rows.
 *
 * `meta.timestamp` is the time of the response: the response cache stores the text with the
 * TIMESTAMP_SLOT marker and fills it per response (fillTimestamp).
 */
export const TIMESTAMP_SLOT = '"@@timestamp@@"'

export function fillTimestamp(text: string, now: Date = new Date()): string {
  const i = text.indexOf(TIMESTAMP_SLOT)
  // The filled text is a new copy of the whole answer (garbage-pacer.ts).
  if (i >= 0) noteAnswerBytes(text.length)
  return i < 0 ? text : text.slice(0, i) + '"' + now.toISOString() + '"' + text.slice(i + TIMESTAMP_SLOT.length)
}

export interface ListEnvelopeInput extends ListEnvelopeTail {
  /** JSON text of the data array, e.g. "[{...},{...}]". */
  dataJson: string
}

/** What follows the data array (for answers whose data is written as bytes: listEnvelopeTail). */
export interface ListEnvelopeTail {
  returned: number
  total: number
  paging: Paging
  base: string
  path: string
  params: URLSearchParams
  /** Extra meta members as JSON text without braces, e.g. '"ids_requested":3'. */
  extraMeta?: string
  /** Extra pagination members as JSON text without braces, e.g. '"cursor":{"next":"..."}'. */
  extraPagination?: string
  /** Override of the `next` link (cursor walks). */
  nextLink?: string
  /**
   * Keyset cursors (decisions.md, Sorting and pagination): `next` is written as
   * `pagination.cursor.next`. With `current` (the request carried a cursor) the envelope is in
   * cursor mode: `page` is ignored, so `pagination.page` and `prev` are left out, `first`/`last`
   * drop the cursor, and `next` carries the next cursor (no `page`).
   */
  cursor?: { current?: string; next?: string }
}

export function listEnvelope(e: ListEnvelopeInput): string {
  return DATA_OPEN + e.dataJson + listEnvelopeTail(e)
}

/** The envelope's text before the data array. */
export const DATA_OPEN = '{"data":'

/** The envelope's text after the data array: `,"meta":{...},"pagination":{...},"links":{...}}`. */
export function listEnvelopeTail(e: ListEnvelopeTail): string {
  const { page, perPage } = e.paging
  const totalPages = Math.ceil(e.total / perPage)
  const cursorMode = e.cursor?.current !== undefined
  // first, last, next and prev differ only in `page`: the other parameters are serialised once.
  const at = pageLinks(e.base, e.path, e.params, cursorMode, perPage)
  // decisions.md, links: page mode: every link, self included, carries `page`; cursor mode: they carry the cursor and no page.
  // The request's own parameters in its order; `page` is added when the request left it out.
  const self = cursorMode ? link(e.base, e.path, e.params, { page: undefined }) : e.params.has('page') ? link(e.base, e.path, e.params) : link(e.base, e.path, e.params, { page })
  const links: string[] = [`"self":${JSON.stringify(self)}`, `"first":${JSON.stringify(at(1))}`, `"last":${JSON.stringify(at(Math.max(1, totalPages)))}`]
  const next = cursorMode
    ? e.nextLink ?? (e.cursor?.next ? link(e.base, e.path, e.params, { page: undefined, cursor: e.cursor.next }) : undefined)
    : e.nextLink ?? (page < totalPages ? at(page + 1) : undefined)
  if (next) links.push(`"next":${JSON.stringify(next)}`)
  if (!cursorMode && page > 1 && page <= totalPages + 1) links.push(`"prev":${JSON.stringify(at(Math.min(page - 1, Math.max(1, totalPages))))}`)
  const meta = `"total_count":${e.total},"returned_count":${e.returned}${e.extraMeta ? ',' + e.extraMeta : ''},"timestamp":${TIMESTAMP_SLOT}`
  const cursor: string[] = []
  if (e.cursor?.current !== undefined) cursor.push(`"current":${JSON.stringify(e.cursor.current)}`)
  if (e.cursor?.next !== undefined) cursor.push(`"next":${JSON.stringify(e.cursor.next)}`)
  const pageMember = cursorMode ? '' : `"page":${page},`
  const pagination = `${pageMember}"per_page":${perPage},"total_pages":${totalPages}${cursor.length ? `,"cursor":{${cursor.join(',')}}` : ''}${e.extraPagination ? ',' + e.extraPagination : ''}`
  return `,"meta":{${meta}},"pagination":{${pagination}},"links":{${links.join(',')}}}`
}

/**
 * A list that always fits on one page (rovers, cameras): every item, page 1 of 1 at per_page 100, with the same
 * envelope as the paged lists (meta.total_count on every list, decisions.md).
 */
export function wholeListEnvelope(items: string[], base: string, path: string, params: URLSearchParams): string {
  return listEnvelope({ dataJson: `[${items.join(',')}]`, returned: items.length, total: items.length, paging: { page: 1, perPage: MAX_PER_PAGE }, base, path, params })
}

/**
 * link(base, path, params, {cursor: undefined (cursor mode only), page: p, per_page}) as a
 * function of p: the kept parameters (in request order, without api_key, page, per_page and in
 * cursor mode cursor; like link(), never a credential) are serialised once, and `page` and `per_page` follow them, as link()
 * appends the parameters it sets.
 */
function pageLinks(base: string, path: string, params: URLSearchParams, cursorMode: boolean, perPage: number): (page: number) => string {
  const kept = new URLSearchParams()
  for (const [k, v] of params) if (k !== 'page' && k !== 'per_page' && !(cursorMode && k === 'cursor') && linkCarries(k)) kept.append(k, v)
  const head = `${base}${path}?${kept.size > 0 ? kept.toString() + '&' : ''}page=`
  const tail = `&per_page=${perPage}`
  return (page) => head + page + tail
}

/** A single resource: `{data, links: {self}}` (decisions.md). */
export function singleEnvelope(dataJson: string, self: string): string {
  return DATA_OPEN + dataJson + singleEnvelopeTail(self)
}

/** The single envelope's text after the data. */
export function singleEnvelopeTail(self: string): string {
  return `,"links":{"self":${JSON.stringify(self)}}}`
}
