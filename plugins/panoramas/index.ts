import { Type } from '@sinclair/typebox'
import type { PluginDeps } from '../../src/app-deps'
import { resourcePlugin } from '../../src/http/resource-plugin'
import { listOf, PanoramaSchema, singleOf } from '../../src/resources/resource-schemas'
import { getPanorama, listPanoramas, PANORAMA_MIN_PHOTOS, PANORAMAS_PATH } from '../../src/query/answer/panoramas-list'
import { derivedListQuery } from '../../src/query/params/derived-list-params'

/** GET /api/v2/panoramas and /panoramas/{id} (interface "Panoramas"); logic in src/query/answer/panoramas-list.ts. */
export function panoramasPlugin(deps: PluginDeps) {
  return resourcePlugin(deps, {
    name: 'panoramas',
    tag: 'panoramas',
    routes: [
      {
        doc: {
          path: PANORAMAS_PATH,
          summary: 'List detected panoramas',
          description:
            'Mast-camera sweeps detected by the index builder (behaviour.md §15.2 thresholds), ordered by rover, sol, number. Every panorama of the selected rovers and sols; no default sol window.',
          query: derivedListQuery(PANORAMA_MIN_PHOTOS),
          responses: { 200: { description: 'Panorama list envelope', schema: listOf(PanoramaSchema) }, 400: { description: 'Invalid parameters, each named' } },
        },
        render: listPanoramas,
      },
      {
        doc: {
          path: `${PANORAMAS_PATH}/:id`,
          summary: 'One panorama with its photo ids',
          params: Type.Object({ id: Type.String({ description: 'Panorama id pano_<rover_slug>_<sol>_<n>, n from 1 per rover and sol.' }) }),
          responses: { 200: { description: 'The panorama', schema: singleOf(PanoramaSchema) }, 404: { description: 'Malformed or unknown id' } },
        },
        render: (store, _query, base, id) => getPanorama(store, id, base),
      },
    ],
  })
}
