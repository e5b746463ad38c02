import { Type } from '@sinclair/typebox'
import type { PluginDeps } from '../../src/app-deps'
import { route, routesPlugin } from '../../src/http/route'
import { JsonBody } from '../../src/http/json-body'
import { cachedAnswer } from '../../src/http/cached-answer'
import { origin } from '../../src/http/links'
import type { Store } from '../../src/store/store'
import { batchPhotos, getPhoto, listPhotos, photoStats, fillTimestamp, responseCacheFor } from '../../src/query'
import { BATCH_PATH, MAX_BATCH_IDS, parseIds } from '../../src/query/answer/batch-photos'
import { PHOTOS_PATH } from '../../src/query/answer/list-photos'
import { PHOTO_QUERY_SCHEMA } from '../../src/query/params/photo-params'
import { RELATED_PATH, RELATED_QUERY_SCHEMA, relatedPhotos } from '../../src/query/answer/related-photos'
import { STATS_PATH, STATS_QUERY_SCHEMA } from '../../src/query/stats/stats-params'
import { readJsonBody } from './read-json-body'
import { PhotoBatchSchema, PhotoListSchema, PhotoOneSchema, PhotoRelatedSchema, PhotoStatsSchema } from '../../src/resources/photo-schemas'

/**
 * The photo endpoints (interface "Photos"): list, statistics, batch and by id. Thin: the logic
 * is the query engine in src/query; this plugin pins the snapshot of the request, keeps hot
 * answers serialised in the response cache (index version + origin + canonical request key),
 * and fills meta.timestamp per response. Errors are thrown as ProblemError and rendered by
 * plugins/errors.
 */
export function photosPlugin(deps: PluginDeps) {
  const cache = responseCacheFor(deps.config)
  deps.stores.onSwap(() => cache.clear())

  const answer = cachedAnswer(deps)

  return routesPlugin(deps, 'photos', 'photos', [
    route({
      method: 'GET',
      path: PHOTOS_PATH,
      summary: 'Search photos',
      description:
        'Filters combine with AND; ranges are inclusive. Sort by any listed field (prefix - for descending); absent values sort last in both ' +
        'directions and id ascending is always the final tie-breaker. per_page above 100 is served as 100; a page past the end is 200 with ' +
        'empty data. Every page that has more rows carries pagination.cursor.next: pass it as `cursor` to continue after that page with ' +
        'keyset pagination (stable across index rebuilds; `page` is then ignored). A parameter name this operation does not take is a 400 naming it (with the closest name it takes).',
      query: PHOTO_QUERY_SCHEMA,
      responses: { 200: { description: 'Photo list envelope', schema: PhotoListSchema }, 400: { description: 'Invalid parameters (each one named)' } },
      render: (store, query, base) => listPhotos(store, query, base),
    }),
    route({
      method: 'GET',
      path: STATS_PATH,
      summary: 'Photo statistics',
      description:
        'Counts of the photos matching every photo filter, grouped by camera (default; camera name), rover (slug, with avg_per_sol) or sol ' +
        '(ascending, with the earliest earth_date). percentage to one decimal; period = earliest and latest earth_date of the matches.',
      query: STATS_QUERY_SCHEMA,
      responses: { 200: { description: 'Statistics envelope', schema: PhotoStatsSchema }, 400: { description: 'Invalid parameters' } },
      render: (store, query, base) => photoStats(store, query, base),
    }),
    route({
      method: 'GET',
      path: `${PHOTOS_PATH}/:id`,
      summary: 'One photo',
      description: 'The output parameters of the list (fields, field_set, include, image_sizes, exclude_images) apply; the whole query is validated as on the list.',
      params: Type.Object({ id: Type.Integer({ format: 'int32', description: 'Photo id' }) }),
      query: PHOTO_QUERY_SCHEMA,
      responses: { 200: { description: 'Single photo envelope', schema: PhotoOneSchema }, 400: { description: 'id is not an int32, or invalid query' }, 404: { description: 'No photo has this id' } },
      // The raw params.id: getPhoto tells a segment that is not valid percent-encoding (null) from a bad id.
      // `=> new JsonBody(...)`: Elysia reads it as synchronous (src/http/sync-hook.ts).
      handle: ({ request, params }) => new JsonBody(answer(request, byId(params.id))),
    }),
    route({
      method: 'GET',
      path: RELATED_PATH,
      summary: 'Photos related to one photo',
      description:
        'The other eye of its stereo pair, its observation sequence (the first photos in exposure order, the size, and the link to all of them) and ' +
        'the nearest photos taken on other sols within radius_m metres of where it was taken (default 50), nearest first with distance_m. ' +
        'A part the photo does not have is null. The list\'s output parameters (fields, field_set, include, image_sizes, exclude_images) shape every photo.',
      params: Type.Object({ id: Type.Integer({ format: 'int32', description: 'Photo id' }) }),
      query: RELATED_QUERY_SCHEMA,
      responses: { 200: { description: 'The photo and its related photos', schema: PhotoRelatedSchema }, 400: { description: 'id is not an int32, or invalid query' }, 404: { description: 'No photo has this id' } },
      answer: (store, q, base, id) => relatedPhotos(store, id, q, base),
      // The raw params.id, as for one photo: a segment that is not valid percent-encoding (null) is told from a bad id.
      handle: ({ request, params }) => new JsonBody(answer(request, related(params.id))),
    }),
    route({
      method: 'POST',
      path: BATCH_PATH,
      summary: 'Several photos by id',
      description:
        `Body {"ids": [...]}: 1 to ${MAX_BATCH_IDS} int32 ids. Photos come in request order, a repeated id once, unknown ids skipped and listed in ` +
        'meta.ids_missing. The output parameters of the query string apply. Content-Type must be JSON (else 415).',
      query: PHOTO_QUERY_SCHEMA,
      body: Type.Object({ ids: Type.Array(Type.Integer({ format: 'int32' }), { minItems: 1, maxItems: MAX_BATCH_IDS }) }),
      responses: { 200: { description: 'Photo list', schema: PhotoBatchSchema }, 400: { description: 'Bad body or query' }, 408: { description: 'Body too slow' }, 413: { description: 'Body too large' }, 415: { description: 'Body is not JSON' } },
      hook: { parse: 'none' },
      answer: (store, q, base, _id, body) => batchPhotos(store, body, q, base),
      handle: async ({ request }) => {
        const body = await readJsonBody(request, deps.config.maxBodyBytes, (deps.config.bodyTimeoutS ?? 10) * 1000)
        // The cache key holds the distinct ids in request order; a bad body is answered uncached.
        const ids = parseIds(body, [])
        if (!ids) {
          const store = deps.stores.forRequest(request)
          const url = new URL(request.url)
          return new JsonBody(fillTimestamp(batchPhotos(store, body, url.searchParams, origin(request, deps.config))))
        }
        return new JsonBody(answer(request, (store, q, base) => batchPhotos(store, body, q, base), ' ids=' + ids.join(',')))
      },
    }),
  ])
}

function related(id: string) {
  return (store: Store, q: URLSearchParams, base: string) => relatedPhotos(store, id, q, base)
}

function byId(id: string) {
  return (store: Store, q: URLSearchParams, base: string) => getPhoto(store, id, q, base)
}
