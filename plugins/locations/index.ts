import { Elysia } from 'elysia'
import { Type } from '@sinclair/typebox'
import type { AppDeps } from '../../src/app-deps'
import { registerRoute } from '../../src/http/route-docs'
import { answerer, pathParam } from '../../src/resources/answer'
import { listOf, LocationSchema, singleOf } from '../../src/resources/resource-schemas'
import { getLocation, listLocations, LOCATION_MIN_PHOTOS, LOCATIONS_PATH } from '../../src/query/locations-list'
import { derivedListQuery } from '../../src/resources/derived-list-params'

/** GET /api/v2/locations and /locations/{id} (interface "Locations"); logic in src/query/locations-list.ts. */
export function locationsPlugin(deps: AppDeps) {
  registerRoute({
    method: 'GET',
    path: LOCATIONS_PATH,
    summary: 'List places the rovers photographed from',
    description:
      'One location per (rover, site, drive), ordered by rover then first sol. A location is listed when its sols [first_sol, last_sol] overlap [sol_min, sol_max]; its record always covers every photo there.',
    query: derivedListQuery(LOCATION_MIN_PHOTOS),
    responses: { 200: { description: 'Location list envelope', schema: listOf(LocationSchema) }, 400: { description: 'Invalid parameters, each named' } },
    tags: ['locations'],
  })
  registerRoute({
    method: 'GET',
    path: `${LOCATIONS_PATH}/:id`,
    summary: 'One location',
    params: Type.Object({ id: Type.String({ description: 'Location id <rover_slug>_<site>_<drive>, e.g. curiosity_48_1570.' }) }),
    responses: { 200: { description: 'The location', schema: singleOf(LocationSchema) }, 404: { description: 'Malformed or unknown id' } },
    tags: ['locations'],
  })
  const answer = answerer(deps)
  return new Elysia({ name: 'locations' })
    .get(LOCATIONS_PATH, ({ request }) => answer(request, listLocations))
    .get(`${LOCATIONS_PATH}/:id`, ({ request, params }) => answer(request, (store, _query, base) => getLocation(store, pathParam(params.id), base)))
}
