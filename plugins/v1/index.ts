import { Type, type TObject, type TSchema } from '@sinclair/typebox'
import type { PluginDeps } from '../../src/app-deps'
import { route, routesPlugin, type Route } from '../../src/http/route'
import { V1_PREFIXES } from '../../src/v1/v1-paths'
import { MAX_UNPAGED, V1_PER_PAGE, v1Photos, v1UnpagedCount } from '../../src/v1/v1-photos'
import { cachedAnswer } from '../../src/http/cached-answer'
import { JsonBody } from '../../src/http/json-body'
import { pathParam } from '../../src/http/path-param'
import { contextOf } from '../../src/http/request-context'
import { effectiveLimits, rateLimitHeaders } from '../../src/limits/limit-rules'
import { ROWS_PER_CALL } from '../../src/query/export/export-plan'
import type { Store } from '../../src/store/store'
import { chargeExport, type ChargeWording } from '../../src/limits/charge-export'
import { v1Manifest, v1PhotoById, v1RoverByName, v1RoverList } from '../../src/v1/v1-resources'
import { V1_RESPONSES } from '../../src/v1/v1-schemas'

export const V1_TAG = 'v1 (compatibility)'

const NAME = Type.Object({ name: Type.String({ description: 'Rover name, any case: curiosity, opportunity, perseverance, spirit.' }) })
const KEY = { api_key: Type.Optional(Type.String({ description: 'Your API key, as v1 clients send it (the X-API-Key header works too). Never echoed or logged.' })) }
const FILTERS = {
  camera: Type.Optional(Type.String({ description: "One of the rover's camera names, any case (400 for another name)." })),
  page: Type.Optional(Type.Integer({ minimum: 1, description: `${V1_PER_PAGE} photos a page. Without it: every photo of the day (400 above ${MAX_UNPAGED.toLocaleString('en')}, asking for page).` })),
}
const PHOTOS_QUERY = Type.Object({
  sol: Type.Optional(Type.Integer({ minimum: 0, description: 'Martian sol (required unless earth_date is given; wins when both are).' })),
  earth_date: Type.Optional(Type.String({ description: 'Earth date YYYY-MM-DD (zero padding optional).' })),
  ...FILTERS,
  ...KEY,
})
const LATEST_QUERY = Type.Object({ ...FILTERS, ...KEY })

/**
 * The v1 compatibility layer (the archived NASA Mars Rover Photos API), under every prefix of
 * src/v1/v1-paths.ts: thin; answers are rendered by src/v1 from the same snapshot, engine,
 * response cache and ETags as v2. Keys: X-API-Key or, on these paths only, `api_key=`
 * (plugins/auth, src/v1/v1-key.ts); limits, counting and headers as v2. Each route is declared
 * at the first prefix and served at the others as hidden aliases, under its own tag: the OpenAPI
 * document shows it once. A photos answer without `page` (a whole day, up to 10,000 photos) is
 * charged like an export of the same rows: one call per started 1,000 photos, 429 stating the
 * cost when fewer are left.
 */
export function v1Plugin(deps: PluginDeps) {
  const answer = cachedAnswer(deps)
  const clock = deps.clock ?? Date.now
  const wording: ChargeWording = { what: 'this v1 answer (a whole day, no page)', fewer: `Ask for the day ${V1_PER_PAGE} photos at a time with page=1, 2, …`, costHeader: 'x-request-cost' }
  /**
   * The day's answer, charged first when it is unpaged and costs more than the one call the
   * rate limit counted at admission (HEAD is not: it sends no photos, as an export's HEAD).
   */
  const dayAnswer = (request: Request, name: string, latest: boolean): JsonBody | Promise<JsonBody> => {
    const render = (store: Store, q: URLSearchParams) => v1Photos(store, name, q, latest)
    const record = contextOf(request).key
    if (record === undefined || request.method === 'HEAD') return new JsonBody(answer(request, render))
    const store = deps.stores.forRequest(request)
    const rows = v1UnpagedCount(store, name, new URL(request.url).searchParams, latest)
    const cost = Math.ceil(rows / ROWS_PER_CALL)
    if (cost <= 1) return new JsonBody(answer(request, render))
    return (async () => {
      const now = clock()
      const limits = effectiveLimits(record, deps.config)
      const { hourCount, dayCount, refusal } = await chargeExport(deps.limits, record.id, limits, cost, rows, now, wording)
      const ctx = contextOf(request)
      ctx.addHeaders('always', rateLimitHeaders(limits, hourCount, now, dayCount))
      if (refusal) throw refusal
      ctx.addHeaders('success', { 'x-request-charged': String(cost) })
      return new JsonBody(answer(request, render))
    })()
  }
  // `=> dayAnswer(...)`: Elysia reads these as synchronous (src/http/sync-hook.ts); the answer is a promise only when charged.
  const day = (latest: boolean) => ({ handle: ({ request, params }: { request: Request; params: Record<string, string> }) => dayAnswer(request, pathParam(params.name), latest) })
  deps.routes.describeTag(
    V1_TAG,
    'Drop-in replacement for the archived NASA Mars Rover Photos API v1: every path is served under both `/api/v1` and ' +
      '`/mars-photos/api/v1`, success bodies in v1\'s exact shapes, key as `api_key=` or `X-API-Key` (same keys, limits, ' +
      'counting and headers as v2; v2 itself reads only the header), except that a photos answer without `page` (a whole day) ' +
      'counts like an export of its rows: one call per started 1,000 photos, 429 stating the cost when fewer are left. Errors are the same problem documents as v2 with `errors` ' +
      'as the v1 string (e.g. "Invalid Rover Name" for an unknown rover, 404) and the bad parameters in `invalid_params`. ' +
      'Rover figures and manifests are counted from our catalogue, so they agree with the photo endpoints; they can be ' +
      'lower than NASA\'s published figures (the v2 manifest shows NASA\'s per-sol totals beside ours).',
  )
  return routesPlugin(deps, 'v1', V1_TAG, [
    v1Route('/rovers', V1_RESPONSES.rovers, 'v1: the rovers', '`{"rovers":[…]}`: id, name, dates, status, max_sol, max_date, total_photos, cameras[{id, name, rover_id, full_name}].', (store) => v1RoverList(store)),
    v1Route('/rovers/:name', V1_RESPONSES.rover, 'v1: one rover', '`{"rover":{…}}`, as in the list.', (store, _q, _base, name) => v1RoverByName(store, name), NAME),
    v1Route(
      '/rovers/:name/photos',
      V1_RESPONSES.photos,
      "v1: a day's photos",
      '`{"photos":[{id, sol, camera{id, name, rover_id, full_name}, img_src, earth_date, rover{…}}]}` ordered by camera id, then id. sol or earth_date is required.',
      day(false),
      NAME,
      PHOTOS_QUERY,
    ),
    v1Route('/rovers/:name/latest_photos', V1_RESPONSES.latest, 'v1: the latest day\'s photos', '`{"latest_photos":[…]}`: the photos of the rover\'s highest sol in the catalogue.', day(true), NAME, LATEST_QUERY),
    v1Route('/rovers/:name/latest', V1_RESPONSES.latest, 'v1: the latest day\'s photos (alias)', 'Same as latest_photos.', day(true), NAME, LATEST_QUERY),
    v1Route('/photos/:id', V1_RESPONSES.photo, 'v1: one photo', '`{"photo":{…}}`.', (store, _q, _base, id) => v1PhotoById(store, id), Type.Object({ id: Type.Integer({ format: 'int32', description: 'Photo id' }) })),
    v1Route(
      '/manifests/:name',
      V1_RESPONSES.manifest,
      'v1: mission manifest',
      '`{"photo_manifest":{name, landing_date, launch_date, status, max_sol, max_date, total_photos, photos:[{sol, earth_date, total_photos, cameras[]}]}}`, computed from our catalogue by the index builder (the same computation as the v2 manifest).',
      (store, _q, _base, name) => v1Manifest(store, name),
      NAME,
    ),
  ])
}

/** One v1 route: keyed, the key also from `api_key`, at every prefix (the first documented, the rest hidden aliases). */
function v1Route(path: string, schema: TSchema, summary: string, description: string, how: NonNullable<Route['render']> | Pick<Route, 'handle'>, params?: TObject, query: TObject = Type.Object(KEY)) {
  const [first, ...others] = V1_PREFIXES
  return route({
    method: 'GET',
    path: `${first}${path}`,
    aliases: others.map((prefix) => `${prefix}${path}`),
    summary,
    description,
    ...(params ? { params } : {}),
    query,
    responses: params
      ? { 200: { description: summary, schema }, 304: { description: 'Not modified' }, 404: { description: 'Unknown rover or photo' } }
      : { 200: { description: summary, schema }, 304: { description: 'Not modified' } },
    keyInQuery: true,
    ...(typeof how === 'function' ? { render: how } : how),
  })
}
