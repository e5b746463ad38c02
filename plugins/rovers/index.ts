import { Elysia } from 'elysia'
import { Type } from '@sinclair/typebox'
import type { PluginDeps } from '../../src/app-deps'
import { cachedAnswer } from '../../src/http/cached-answer'
import { JsonBody } from '../../src/http/json-body'
import { pathParam } from '../../src/http/path-param'
import { listOf, RoverSchema, RoverWithCamerasSchema, singleOf } from '../../src/resources/resource-schemas'
import { getRover, listRovers, ROVERS_PATH } from '../../src/resources/rovers-resource'

/** GET /api/v2/rovers and /rovers/{slug} (interface "Rovers"); logic in src/resources/rovers-resource.ts. */
export function roversPlugin(deps: PluginDeps) {
  deps.routes.register({
    method: 'GET',
    path: ROVERS_PATH,
    summary: 'List the four rovers',
    description: 'Name, dates and status of each rover, with max_sol, max_date and total_photos counted from the index. One page.',
    responses: { 200: { description: 'Rover list envelope', schema: listOf(RoverSchema) } },
    tags: ['rovers'],
  })
  deps.routes.register({
    method: 'GET',
    path: `${ROVERS_PATH}/:slug`,
    summary: 'One rover with its cameras',
    params: Type.Object({ slug: Type.String({ description: 'Rover slug, case-insensitive: curiosity, opportunity, perseverance, spirit.' }) }),
    responses: { 200: { description: 'The rover, with relationships.cameras', schema: singleOf(RoverWithCamerasSchema) }, 404: { description: 'Unknown rover slug' } },
    tags: ['rovers'],
  })
  const answer = cachedAnswer(deps)
  return new Elysia({ name: 'rovers' })
    // `=> new JsonBody(...)`: Elysia reads these as synchronous (src/http/sync-hook.ts).
    .get(ROVERS_PATH, ({ request }) => new JsonBody(answer(request, listRovers)))
    .get(`${ROVERS_PATH}/:slug`, ({ request, params }) => new JsonBody(answer(request, roverBySlug(pathParam(params.slug)))))
}

function roverBySlug(slug: string) {
  return (store: Parameters<typeof getRover>[0], _query: URLSearchParams, base: string) => getRover(store, slug, base)
}
