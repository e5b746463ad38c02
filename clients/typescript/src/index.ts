/**
 * The typed client of the Mars rover photo query API: openapi-fetch over the types
 * openapi-typescript generates from the served OpenAPI document (./schema.ts), and a paging
 * helper that walks the keyset cursors (`pagination.cursor.next`) so a caller gets every matching
 * photo exactly once, also when the index is rebuilt between pages.
 *
 * Keep the key on a server: an API key must never ship in code that runs in a browser.
 */
import createClient, { type Client } from 'openapi-fetch'
import type { components, operations, paths } from './schema'

export type { components, operations, paths }

export type MarsClient = Client<paths>

/** The query of GET /api/v2/photos, without the two paging parameters the helper sets. */
export type PhotoQuery = Omit<NonNullable<operations['getPhotos']['parameters']['query']>, 'cursor' | 'page'>

type PhotoPage = operations['getPhotos']['responses'][200]['content']['application/json']

/** One photo as a list answers it. */
export type Photo = PhotoPage['data'][number]

/** An answer that was not a 2xx: its status and the problem document (RFC 9457) the API sent. */
export class MarsApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: unknown,
  ) {
    const p = problem as { title?: string; detail?: string } | undefined
    super(`${status} ${p?.title ?? 'error'}${p?.detail ? `: ${p.detail}` : ''}`)
    this.name = 'MarsApiError'
  }
}

export interface MarsClientOptions {
  /** The service's origin, e.g. `https://mars-api.example`. */
  baseUrl: string
  /** Sent as `X-API-Key`. */
  apiKey: string
  /** A fetch to use instead of the global one (tests, proxies, retries). */
  fetch?: (request: Request) => Promise<Response>
}

export function marsClient(o: MarsClientOptions): MarsClient {
  return createClient<paths>({ baseUrl: o.baseUrl, headers: { 'X-API-Key': o.apiKey }, ...(o.fetch ? { fetch: o.fetch } : {}) })
}

/**
 * Every page of a photo query, in order: the first page, then each page after the cursor the
 * previous one carried, until a page carries none (the last). `per_page` defaults to 100, the
 * largest page. A failed page throws MarsApiError.
 */
export async function* photoPages(client: MarsClient, query: PhotoQuery = {}): AsyncGenerator<PhotoPage, void, undefined> {
  let cursor: string | undefined
  do {
    const { data, error, response } = await client.GET('/api/v2/photos', { params: { query: { per_page: 100, ...query, ...(cursor === undefined ? {} : { cursor }) } } })
    if (data === undefined) throw new MarsApiError(response.status, error)
    yield data
    cursor = data.pagination.cursor?.next
  } while (cursor !== undefined)
}

/** Every photo of a query, each once, in the query's order, fetched a page at a time as the caller reads. */
export async function* walkPhotos(client: MarsClient, query: PhotoQuery = {}): AsyncGenerator<Photo, void, undefined> {
  for await (const page of photoPages(client, query)) yield* page.data
}
