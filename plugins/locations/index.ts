import { Elysia } from 'elysia'
import { Type } from '@sinclair/typebox'
import type { PluginDeps } from '../../src/app-deps'
import { cachedAnswer } from '../../src/http/cached-answer'
import { JsonBody } from '../../src/http/json-body'
import { pathParam } from '../../src/http/path-param'
import { listOf, LocationSchema, singleOf } from '../../src/resources/resource-schemas'
import { getLocation, listLocations, LOCATION_MIN_PHOTOS, LOCATIONS_PATH } from '../../src/query/locations-list'
import { derivedListQuery } from '../../src/resources/derived-list-params'

/** GET /api/v2/locations and /locations/{id} (interface "Locations"); logic in src/query/locations-list.ts. */
export function locationsPlugin(deps: PluginDeps) {
  deps.routes.register({
    method: 'GET',
    path: LOCATIONS_PATH,
    summary: 'List places the rovers photographed from',
    description:
      'One location per (rover, site, drive), ordered by rover then first sol. A location is listed when its sols [first_sol, last_sol] overlap [sol_min, sol_max]; its record always covers every photo there.',
    query: derivedListQuery(LOCATION_MIN_PHOTOS),
    responses: { 200: { description: 'Location list envelope', schema: listOf(LocationSchema) }, 400: { description: 'Invalid parameters, each named' } },
    tags: ['locations'],
  })
  deps.routes.register({
    method: 'GET',
    path: `${LOCATIONS_PATH}/:id`,
    summary: 'One location',
    params: Type.Object({ id: Type.String({ description: 'Location id <rover_slug>_<site>_<drive>, e.g. curiosity_48_1570.' }) }),
    responses: { 200: { description: 'The location', schema: singleOf(LocationSchema) }, 404: { description: 'Malformed or unknown id' } },
    tags: ['locations'],
  })
  const answer = cachedAnswer(deps)
  return new Elysia({ name: 'locations' })
    // `=> new JsonBody(...)`: Elysia reads these as synchronous (src/http/sync-hook.ts).
    .get(LOCATIONS_PATH, ({ request }) => new JsonBody(answer(request, listLocations)))
    .get(`${LOCATIONS_PATH}/:id`, ({ request, params }) => new JsonBody(answer(request, locationById(pathParam(params.id)))))
}

function locationById(id: string) {
  return (store: Parameters<typeof getLocation>[0], _query: URLSearchParams, base: string) => getLocation(store, id, base)
}
