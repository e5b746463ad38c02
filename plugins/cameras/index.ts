import { Elysia } from 'elysia'
import { Type } from '@sinclair/typebox'
import type { PluginDeps } from '../../src/app-deps'
import { cachedAnswer } from '../../src/http/cached-answer'
import { JsonBody } from '../../src/http/json-body'
import { pathParam } from '../../src/http/path-param'
import { listOf, CameraSchema, singleOf } from '../../src/resources/resource-schemas'
import { CAMERAS_PATH, getCamera, listCameras, ROVER_PARAM } from '../../src/resources/cameras-resource'

/** GET /api/v2/cameras and /cameras/{id}?rover= (interface "Cameras"); logic in src/resources/cameras-resource.ts. */
export function camerasPlugin(deps: PluginDeps) {
  deps.routes.register({
    method: 'GET',
    path: CAMERAS_PATH,
    summary: 'List every camera',
    description: 'One item per camera name, with relationships.rovers naming each rover that has it and its photo count and first/last sol there. One page.',
    responses: { 200: { description: 'Camera list envelope', schema: listOf(CameraSchema) } },
    tags: ['cameras'],
  })
  deps.routes.register({
    method: 'GET',
    path: `${CAMERAS_PATH}/:id`,
    summary: 'One camera, for every rover that has it or for one rover',
    params: Type.Object({ id: Type.String({ description: 'Camera abbreviation, case-insensitive, e.g. NAVCAM.' }) }),
    query: Type.Object({ rover: Type.Optional(ROVER_PARAM.schema) }),
    responses: {
      200: { description: 'The camera', schema: singleOf(CameraSchema) },
      400: { description: '`rover` is not a rover slug' },
      404: { description: 'Unknown camera, or the rover has no such camera' },
    },
    tags: ['cameras'],
  })
  const answer = cachedAnswer(deps)
  return new Elysia({ name: 'cameras' })
    // `=> new JsonBody(...)`: Elysia reads these as synchronous (src/http/sync-hook.ts).
    .get(CAMERAS_PATH, ({ request }) => new JsonBody(answer(request, listCameras)))
    .get(`${CAMERAS_PATH}/:id`, ({ request, params }) => new JsonBody(answer(request, cameraById(pathParam(params.id)))))
}

function cameraById(id: string) {
  return (store: Parameters<typeof getCamera>[0], query: URLSearchParams, base: string) => getCamera(store, id, query, base)
}
