import { Type } from '@sinclair/typebox'
import type { PluginDeps } from '../../src/app-deps'
import { resourcePlugin } from '../../src/http/resource-plugin'
import { listOf, CameraSchema, singleOf } from '../../src/resources/resource-schemas'
import { CAMERAS_PATH, getCamera, listCameras, ROVER_PARAM } from '../../src/resources/cameras-resource'

/** GET /api/v2/cameras and /cameras/{id}?rover= (interface "Cameras"); logic in src/resources/cameras-resource.ts. */
export function camerasPlugin(deps: PluginDeps) {
  return resourcePlugin(deps, {
    name: 'cameras',
    tag: 'cameras',
    routes: [
      {
        doc: {
          path: CAMERAS_PATH,
          summary: 'List every camera',
          description: 'One item per camera name, with relationships.rovers naming each rover that has it and its photo count and first/last sol there. One page.',
          responses: { 200: { description: 'Camera list envelope', schema: listOf(CameraSchema) } },
        },
        render: listCameras,
      },
      {
        doc: {
          path: `${CAMERAS_PATH}/:id`,
          summary: 'One camera, for every rover that has it or for one rover',
          params: Type.Object({ id: Type.String({ description: 'Camera abbreviation, case-insensitive, e.g. NAVCAM.' }) }),
          query: Type.Object({ rover: Type.Optional(ROVER_PARAM.schema) }),
          responses: {
            200: { description: 'The camera', schema: singleOf(CameraSchema) },
            400: { description: '`rover` is not a rover slug' },
            404: { description: 'Unknown camera, or the rover has no such camera' },
          },
        },
        render: (store, query, base, id) => getCamera(store, id, query, base),
      },
    ],
  })
}
