import { Elysia } from 'elysia'
import type { PluginDeps } from '../../src/app-deps'
import { cachedAnswer } from '../../src/http/cached-answer'
import { JsonBody } from '../../src/http/json-body'
import { pathParam } from '../../src/http/path-param'
import type { Store } from '../../src/store/store'
import { V1_PREFIXES } from '../../src/v1/v1-paths'
import { v1Photos } from '../../src/v1/v1-photos'
import { v1Manifest, v1PhotoById, v1RoverByName, v1RoverList } from '../../src/v1/v1-resources'
import { registerV1Docs } from './v1-docs'

/**
 * The v1 compatibility layer (the archived NASA Mars Rover Photos API), under every prefix of
 * src/v1/v1-paths.ts: thin; answers are rendered by src/v1 from the same snapshot, engine,
 * response cache and ETags as v2 (cachedAnswer). Keys: X-API-Key or, on these paths only,
 * `api_key=` (plugins/auth, src/v1/v1-key.ts); limits, counting and headers as v2.
 */
export function v1Plugin(deps: PluginDeps) {
  registerV1Docs(deps.routes)
  const answer = cachedAnswer(deps)
  const app = new Elysia({ name: 'v1' })
  for (const prefix of V1_PREFIXES) {
    // `=> new JsonBody(...)`: Elysia reads these as synchronous (src/http/sync-hook.ts).
    app
      .get(`${prefix}/rovers`, ({ request }) => new JsonBody(answer(request, (store) => v1RoverList(store))))
      .get(`${prefix}/rovers/:name`, ({ request, params }) => new JsonBody(answer(request, byName(pathParam(params.name), v1RoverByName))))
      .get(`${prefix}/rovers/:name/photos`, ({ request, params }) => new JsonBody(answer(request, photos(pathParam(params.name), false))))
      .get(`${prefix}/rovers/:name/latest_photos`, ({ request, params }) => new JsonBody(answer(request, photos(pathParam(params.name), true))))
      .get(`${prefix}/rovers/:name/latest`, ({ request, params }) => new JsonBody(answer(request, photos(pathParam(params.name), true))))
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
