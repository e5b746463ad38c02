import { Type } from '@sinclair/typebox'
import type { PluginDeps } from '../../src/app-deps'
import { resourcePlugin } from '../../src/http/resource-plugin'
import { listOf, LocationSchema, singleOf } from '../../src/resources/resource-schemas'
import { getLocation, listLocations, LOCATION_MIN_PHOTOS, LOCATIONS_PATH } from '../../src/query/answer/locations-list'
import { derivedListQuery } from '../../src/query/params/derived-list-params'

/** GET /api/v2/locations and /locations/{id} (interface "Locations"); logic in src/query/answer/locations-list.ts. */
export function locationsPlugin(deps: PluginDeps) {
  return resourcePlugin(deps, {
    name: 'locations',
    tag: 'locations',
    routes: [
      {
        doc: {
          path: LOCATIONS_PATH,
          summary: 'List places the rovers photographed from',
          description:
            'One location per (rover, site, drive), ordered by rover then first sol. A location is listed when its sols [first_sol, last_sol] overlap [sol_min, sol_max]; its record always covers every photo there.',
          query: derivedListQuery(LOCATION_MIN_PHOTOS),
          responses: { 200: { description: 'Location list envelope', schema: listOf(LocationSchema) }, 400: { description: 'Invalid parameters, each named' } },
        },
        render: listLocations,
      },
      {
        doc: {
          path: `${LOCATIONS_PATH}/:id`,
          summary: 'One location',
          params: Type.Object({ id: Type.String({ description: 'Location id <rover_slug>_<site>_<drive>, e.g. curiosity_48_1570.' }) }),
          responses: { 200: { description: 'The location', schema: singleOf(LocationSchema) }, 404: { description: 'Malformed or unknown id' } },
        },
        render: (store, _query, base, id) => getLocation(store, id, base),
      },
    ],
  })
}
