import { Type } from '@sinclair/typebox'
import type { PluginDeps } from '../../src/app-deps'
import { atomFeed, ATOM_MEDIA_TYPE, type FeedHead } from '../../src/feeds/atom-feed'
import { FEED_ENTRIES, feedPhotos, feedUpdated } from '../../src/feeds/feed-entries'
import { jsonFeed, JSON_FEED_MEDIA_TYPE } from '../../src/feeds/json-feed'
import { link, origin } from '../../src/http/links'
import { route, routesPlugin } from '../../src/http/route'
import { isCredentialParam } from '../../src/http/request-key'
import { PHOTOS_PATH } from '../../src/query/answer/list-photos'
import { PHOTO_PARAMS, querySchema } from '../../src/query/params/photo-params'

/**
 * Feeds of new photos (docs/follow-new-photos.md): `feed.atom` (RFC 4287) and `feed.json` (JSON
 * Feed 1.1) for any photo filters, the newest `added_at` first. Keyed like every route, and also
 * by `feed_token=` (a token the dashboard makes, standing for the key: feed readers cannot send
 * headers, and a key must never sit in a URL others see). The token is counted against its key;
 * links and the feeds' own URLs never carry it back. ETag and If-None-Match come from
 * plugins/etag like every keyed GET; Last-Modified / If-Modified-Since are answered here.
 */
export const FEED_ATOM_PATH = `${PHOTOS_PATH}/feed.atom`
export const FEED_JSON_PATH = `${PHOTOS_PATH}/feed.json`

/** What a feed does not take from the list: its order, paging and output are the feed's own. */
const NOT_FOR_FEEDS = new Set(['sort', 'fields', 'field_set', 'include', 'page', 'per_page', 'cursor', 'image_sizes', 'exclude_images'])
const FEED_TOKEN = {
  name: 'feed_token',
  schema: Type.String({ pattern: '^mv_feed_[0-9a-f]{40}$', description: 'Instead of X-API-Key (feed readers cannot send headers): the feed token shown in the dashboard. It stands for your key, is counted against it, and ends when the key is regenerated or revoked.' }),
  parse: (raw: string) => raw,
}
export const FEED_QUERY_SCHEMA = querySchema([...PHOTO_PARAMS.filter((p) => !NOT_FOR_FEEDS.has(p.name)), FEED_TOKEN])

export function feedsPlugin(deps: PluginDeps) {
  const answer = (request: Request, kind: 'atom' | 'json'): Response => {
    const store = deps.stores.forRequest(request)
    const url = new URL(request.url)
    const params = url.searchParams
    const photos = feedPhotos(store, params)
    const base = origin(request, deps.config)
    const filters = [...params].filter(([k]) => !isCredentialParam(k)).map(([k, v]) => `${k}=${v}`)
    const updated = feedUpdated(photos, store)
    const head: FeedHead = {
      title: `New Mars rover photos${filters.length ? ` (${filters.join(', ')})` : ''}`,
      self: link(base, kind === 'atom' ? FEED_ATOM_PATH : FEED_JSON_PATH, params),
      list: link(base, PHOTOS_PATH, params, { sort: '-added_at' }),
      photoBase: `${base}${PHOTOS_PATH}`,
      updated,
    }
    // HTTP dates have whole seconds (RFC 9110 §5.6.7): compared at that resolution.
    const lastModified = new Date(Math.floor(updated / 1000) * 1000).toUTCString()
    const since = request.headers.get('if-modified-since')
    // RFC 9110 §13.1.3: If-Modified-Since only without If-None-Match (plugins/etag answers that).
    if (since !== null && request.headers.get('if-none-match') === null) {
      const t = Date.parse(since)
      if (Number.isFinite(t) && Math.floor(updated / 1000) * 1000 <= t) return new Response(null, { status: 304, headers: { 'last-modified': lastModified } })
    }
    const body = kind === 'atom' ? atomFeed(head, photos) : jsonFeed(head, photos)
    const type = kind === 'atom' ? ATOM_MEDIA_TYPE : JSON_FEED_MEDIA_TYPE
    return new Response(body, { headers: { 'content-type': `${type}; charset=utf-8`, 'last-modified': lastModified, 'x-content-type-options': 'nosniff' } })
  }
  const common = {
    method: 'GET' as const,
    query: FEED_QUERY_SCHEMA,
    feedToken: true,
    tags: ['photos'],
  }
  const description = (what: string) =>
    `${what} of the ${FEED_ENTRIES} photos matching the photo filters that this service published last (newest added_at first, then id). ` +
    'Each entry: the photo\'s title, its image, its page on the API as id and link (stable across rebuilds). Send X-API-Key, or feed_token (from the dashboard) where a reader cannot send headers. ' +
    'ETag/If-None-Match and Last-Modified/If-Modified-Since make an unchanged feed a 304. Not an object with data: the body is the feed format itself.'
  return routesPlugin(deps, 'feeds', 'photos', [
    route({
      ...common,
      path: FEED_ATOM_PATH,
      summary: 'Feed of new photos (Atom)',
      description: description('An Atom feed (RFC 4287)'),
      responses: { 200: { description: 'Atom feed', mediaType: ATOM_MEDIA_TYPE, schema: Type.String() }, 304: { description: 'Not modified' }, 400: { description: 'Invalid parameters (each one named)' }, 401: { description: 'No key, or an invalid key or feed token' } },
      handle: ({ request }) => answer(request, 'atom'),
    }),
    route({
      ...common,
      path: FEED_JSON_PATH,
      summary: 'Feed of new photos (JSON Feed)',
      description: description('A JSON Feed 1.1'),
      responses: { 200: { description: 'JSON Feed 1.1', mediaType: JSON_FEED_MEDIA_TYPE, schema: Type.String() }, 304: { description: 'Not modified' }, 400: { description: 'Invalid parameters (each one named)' }, 401: { description: 'No key, or an invalid key or feed token' } },
      handle: ({ request }) => answer(request, 'json'),
    }),
  ])
}
