import { Elysia } from 'elysia'
import { Type } from '@sinclair/typebox'
import type { PluginDeps } from '../../src/app-deps'
import { cachedAnswer } from '../../src/http/cached-answer'
import { JsonBody } from '../../src/http/json-body'
import { pathParam } from '../../src/http/path-param'
import { listOf, PanoramaSchema, singleOf } from '../../src/resources/resource-schemas'
import { getPanorama, listPanoramas, PANORAMA_MIN_PHOTOS, PANORAMAS_PATH } from '../../src/query/panoramas-list'
import { derivedListQuery } from '../../src/resources/derived-list-params'

/** GET /api/v2/panoramas and /panoramas/{id} (interface "Panoramas"); logic in src/query/panoramas-list.ts. */
export function panoramasPlugin(deps: PluginDeps) {
  deps.routes.register({
    method: 'GET',
    path: PANORAMAS_PATH,
    summary: 'List detected panoramas',
    description:
      'Mast-camera sweeps detected by the index builder (behaviour.md §15.2 thresholds), ordered by rover, sol, number. Every panorama of the selected rovers and sols; no default sol window.',
    query: derivedListQuery(PANORAMA_MIN_PHOTOS),
    responses: { 200: { description: 'Panorama list envelope', schema: listOf(PanoramaSchema) }, 400: { description: 'Invalid parameters, each named' } },
    tags: ['panoramas'],
  })
  deps.routes.register({
    method: 'GET',
    path: `${PANORAMAS_PATH}/:id`,
    summary: 'One panorama with its photo ids',
    params: Type.Object({ id: Type.String({ description: 'Panorama id pano_<rover_slug>_<sol>_<n>, n from 1 per rover and sol.' }) }),
    responses: { 200: { description: 'The panorama', schema: singleOf(PanoramaSchema) }, 404: { description: 'Malformed or unknown id' } },
    tags: ['panoramas'],
  })
  const answer = cachedAnswer(deps)
  return new Elysia({ name: 'panoramas' })
    // `=> new JsonBody(...)`: Elysia reads these as synchronous (src/http/sync-hook.ts).
    .get(PANORAMAS_PATH, ({ request }) => new JsonBody(answer(request, listPanoramas)))
    .get(`${PANORAMAS_PATH}/:id`, ({ request, params }) => new JsonBody(answer(request, panoramaById(pathParam(params.id)))))
}

function panoramaById(id: string) {
  return (store: Parameters<typeof getPanorama>[0], _query: URLSearchParams, base: string) => getPanorama(store, id, base)
}
