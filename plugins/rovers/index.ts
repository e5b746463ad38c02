import { Type } from '@sinclair/typebox'
import type { PluginDeps } from '../../src/app-deps'
import { resourcePlugin } from '../../src/http/resource-plugin'
import { listOf, RoverSchema, RoverWithCamerasSchema, singleOf } from '../../src/resources/resource-schemas'
import { getRover, listRovers, ROVERS_PATH } from '../../src/resources/rovers-resource'

/** GET /api/v2/rovers and /rovers/{slug} (interface "Rovers"); logic in src/resources/rovers-resource.ts. */
export function roversPlugin(deps: PluginDeps) {
  return resourcePlugin(deps, {
    name: 'rovers',
    tag: 'rovers',
    routes: [
      {
        doc: {
          path: ROVERS_PATH,
          summary: 'List the four rovers',
          description: 'Name, dates and status of each rover, with max_sol, max_date and total_photos counted from the index. One page.',
          responses: { 200: { description: 'Rover list envelope', schema: listOf(RoverSchema) } },
        },
        render: listRovers,
      },
      {
        doc: {
          path: `${ROVERS_PATH}/:slug`,
          summary: 'One rover with its cameras',
          params: Type.Object({ slug: Type.String({ description: 'Rover slug, case-insensitive: curiosity, opportunity, perseverance, spirit.' }) }),
          responses: { 200: { description: 'The rover, with relationships.cameras', schema: singleOf(RoverWithCamerasSchema) }, 404: { description: 'Unknown rover slug' } },
        },
        render: (store, _query, base, slug) => getRover(store, slug, base),
      },
    ],
  })
}
