import { Type } from '@sinclair/typebox'
import type { PluginDeps } from '../../src/app-deps'
import { resourcePlugin } from '../../src/http/resource-plugin'
import { ROVERS_PATH } from '../../src/resources/rovers-resource'
import { getManifest, listRoverCameras } from '../../src/resources/manifest-resource'
import { ManifestSchema, RoverCameraSchema } from '../../src/resources/manifest-schemas'
import { listOf, singleOf } from '../../src/resources/resource-schemas'

const SLUG = Type.Object({ slug: Type.String({ description: 'Rover slug, case-insensitive: curiosity, opportunity, perseverance, spirit.' }) })

/**
 * GET /api/v2/rovers/{slug}/manifest and /rovers/{slug}/cameras: the answers are rendered by
 * src/resources/manifest-resource.ts from the builder's manifest table.
 */
export function roverManifestPlugin(deps: PluginDeps) {
  return resourcePlugin(deps, {
    name: 'rover-manifest',
    tag: 'rovers',
    routes: [
      {
        doc: {
          path: `${ROVERS_PATH}/:slug/manifest`,
          summary: "The rover's mission manifest",
          description:
            'Per (sol, earth_date) ascending: total_photos, the cameras that took them and, where NASA\'s own v1 manifest states it, ' +
            'nasa_total_photos (how many NASA published that sol: the difference is what our catalogue does not hold). Rover totals ' +
            '(max_sol, max_date, total_photos) are counted from the catalogue, computed once by the index builder, so they agree with ' +
            'the photo endpoints and with the v1 manifest.',
          params: SLUG,
          responses: { 200: { description: 'Manifest', schema: singleOf(ManifestSchema) }, 304: { description: 'Not modified' }, 404: { description: 'Unknown rover slug' } },
        },
        render: (store, _query, base, slug) => getManifest(store, slug, base),
      },
      {
        doc: {
          path: `${ROVERS_PATH}/:slug/cameras`,
          summary: "The rover's cameras with their photo counts",
          description: 'Every camera of the rover, by name, with photo_count (0 when none) and first_photo_sol / last_photo_sol (omitted when it has no photos). One page.',
          params: SLUG,
          responses: { 200: { description: 'Camera list envelope', schema: listOf(RoverCameraSchema) }, 304: { description: 'Not modified' }, 404: { description: 'Unknown rover slug' } },
        },
        render: (store, query, base, slug) => listRoverCameras(store, slug, query, base),
      },
    ],
  })
}
