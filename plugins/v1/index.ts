import { Elysia } from 'elysia'
import type { PluginDeps } from '../../src/app-deps'
import { cachedAnswer } from '../../src/http/cached-answer'
import { JsonBody } from '../../src/http/json-body'
import { pathParam } from '../../src/http/path-param'
import type { Store } from '../../src/store/store'
import { V1_PREFIXES } from '../../src/v1/v1-paths'
import { V1_PER_PAGE, v1Photos, v1UnpagedCount } from '../../src/v1/v1-photos'
import { contextOf } from '../../src/http/request-context'
import { effectiveLimits, rateLimitHeaders } from '../../src/limits/limit-rules'
import { ROWS_PER_CALL } from '../../src/query/export/export-plan'
import { chargeExport, type ChargeWording } from '../export/charge-export'
import { v1Manifest, v1PhotoById, v1RoverByName, v1RoverList } from '../../src/v1/v1-resources'
import { registerV1Docs } from './v1-docs'

/**
 * The v1 compatibility layer (the archived NASA Mars Rover Photos API), under every prefix of
 * src/v1/v1-paths.ts: thin; answers are rendered by src/v1 from the same snapshot, engine,
 * response cache and ETags as v2 (cachedAnswer). Keys: X-API-Key or, on these paths only,
 * `api_key=` (plugins/auth, src/v1/v1-key.ts); limits, counting and headers as v2. A photos
 * answer without `page` (a whole day, up to 10,000 photos) is charged like an export of the
 * same rows: one call per started 1,000 photos, 429 stating the cost when fewer are left.
 */
export function v1Plugin(deps: PluginDeps) {
  registerV1Docs(deps.routes)
  const answer = cachedAnswer(deps)
  const clock = deps.clock ?? Date.now
  const wording: ChargeWording = { what: 'this v1 answer (a whole day, no page)', fewer: `Ask for the day ${V1_PER_PAGE} photos at a time with page=1, 2, …`, costHeader: 'x-request-cost' }
  /**
   * The day's answer, charged first when it is unpaged and costs more than the one call the
   * rate limit counted at admission (HEAD is not: it sends no photos, as an export's HEAD).
   */
  const dayAnswer = (request: Request, name: string, latest: boolean): JsonBody | Promise<JsonBody> => {
    const render = photos(name, latest)
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
  const app = new Elysia({ name: 'v1' })
  for (const prefix of V1_PREFIXES) {
    // `=> new JsonBody(...)`: Elysia reads these as synchronous (src/http/sync-hook.ts).
    app
      .get(`${prefix}/rovers`, ({ request }) => new JsonBody(answer(request, (store) => v1RoverList(store))))
      .get(`${prefix}/rovers/:name`, ({ request, params }) => new JsonBody(answer(request, byName(pathParam(params.name), v1RoverByName))))
      .get(`${prefix}/rovers/:name/photos`, ({ request, params }) => dayAnswer(request, pathParam(params.name), false))
      .get(`${prefix}/rovers/:name/latest_photos`, ({ request, params }) => dayAnswer(request, pathParam(params.name), true))
      .get(`${prefix}/rovers/:name/latest`, ({ request, params }) => dayAnswer(request, pathParam(params.name), true))
      .get(`${prefix}/photos/:id`, ({ request, params }) => new JsonBody(answer(request, byName(pathParam(params.id), v1PhotoById))))
      .get(`${prefix}/manifests/:name`, ({ request, params }) => new JsonBody(answer(request, byName(pathParam(params.name), v1Manifest))))
  }
  return app
}

function byName(name: string, render: (store: Store, name: string) => string) {
  return (store: Store) => render(store, name)
}

function photos(name: string, latest: boolean) {
  return (store: Store, q: URLSearchParams) => v1Photos(store, name, q, latest)
}
