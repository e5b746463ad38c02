import { Type } from '@sinclair/typebox'
import type { PluginDeps } from '../../src/app-deps'
import { cachedAnswer } from '../../src/http/cached-answer'
import { JsonBody } from '../../src/http/json-body'
import { pathParam } from '../../src/http/path-param'
import { route, routesPlugin } from '../../src/http/route'
import { urlFacts } from '../../src/http/url-facts'
import { journeyAnswer, JOURNEY_PATH } from './journey-answer'
import { JOURNEY_QUERY, TRAVERSE_QUERY, traverseFormat } from './journey-params'
import { FeatureCollectionSchema, JourneySchema, TraverseSchema } from './journey-schemas'
import { ROVER_PAGE_PATH, roverPageResponse } from './rover-page-response'
import { GEOJSON_TYPE, traverseAnswer, TRAVERSE_PATH } from './traverse-answer'
import { largeAnswerCache } from './large-answer-cache'
import type { Store } from '../../src/store/store'

/**
 * Where the rovers went: GET /api/v2/rovers/{slug}/journey and /traverse (keyed, counted, cached
 * and ETagged like every resource: src/http/cached-answer.ts, plugins/etag), and the public rover
 * page /rovers/{slug} (no key: decisions.md, Journeys). Logic in the modules beside this file.
 */
const SLUG = Type.Object({ slug: Type.String({ description: 'Rover slug, case-insensitive: curiosity, opportunity, perseverance, spirit.' }) })

export function journeysPlugin(deps: PluginDeps) {
  const answer = cachedAnswer(deps)
  const large = largeAnswerCache(deps)
  const geo = { 'content-type': `${GEOJSON_TYPE}; charset=utf-8` }
  const traverseText = (store: Store, query: URLSearchParams, base: string, slug: string) => traverseAnswer(store, slug, query, base).text
  // `=> new JsonBody(...)`: Elysia reads these as synchronous (src/http/sync-hook.ts).
  return routesPlugin(deps, 'journeys', 'rovers', [
    route({
      method: 'GET',
      path: JOURNEY_PATH,
      summary: "A rover's journey: where its photos were taken, and how far it travelled",
      description:
        "Photos grouped by (sol, site, drive), with the waypoint position of each site and drive. distance_traveled_m and the elevation figures are measured from the waypoint tables: NASA's own cumulative distance where the waypoints state it, else great-circle sums on a 3,389.5 km sphere (distance_method says which). The window starts where the rover stood when sol_min began. Without waypoints for the window they are absent and distance_note says why.",
      params: SLUG,
      query: JOURNEY_QUERY,
      responses: { 200: { description: 'The journey', schema: JourneySchema }, 400: { description: 'Invalid parameters, each named' }, 404: { description: 'Unknown rover slug' } },
      tags: ['rovers'],
      handle: ({ request, params }) => {
        const slug = pathParam(params.slug)
        return new JsonBody(large(request, () => answer(request, (store, query, base) => journeyAnswer(store, slug, query, base))))
      },
    }),
    route({
      method: 'GET',
      path: TRAVERSE_PATH,
      summary: "A rover's traverse from its waypoint tables (JSON or GeoJSON)",
      description:
        'The waypoint path of the sol window with cumulative distance, elevation gain and loss and bounding box. format=geojson: an RFC 7946 FeatureCollection (application/geo+json) with one LineString and one Point per waypoint (sol, site, drive). simplify: Douglas–Peucker tolerance in metres.',
      params: SLUG,
      query: TRAVERSE_QUERY,
      responses: {
        200: { description: 'The traverse (format=json), or a GeoJSON FeatureCollection (format=geojson)', schema: Type.Union([TraverseSchema, FeatureCollectionSchema]) },
        400: { description: 'Invalid parameters, each named' },
        404: { description: 'Unknown rover slug' },
      },
      tags: ['rovers'],
      answer: traverseText,
      handle: ({ request, params }) => {
        const slug = pathParam(params.slug)
        const text = large(request, () => answer(request, (store, query, base) => traverseText(store, query, base, slug)))
        // the same parser that chose the body: a bad format never gets here (400 above)
        return new JsonBody(text, 200, traverseFormat(urlFacts(request.url).params()) === 'geojson' ? geo : undefined)
      },
    }),
    route({
      method: 'GET',
      path: ROVER_PAGE_PATH,
      summary: 'Rover page (HTML): the traverse drawn as SVG, coloured by sol, with the places most photographed',
      description: 'Public: needs no key. Self-contained (no external script, style or map tile).',
      params: SLUG,
      operationId: 'getRoverPage',
      keyed: false,
      responses: { 200: { description: 'An HTML page', mediaType: 'text/html', schema: Type.String() }, 404: { description: 'Unknown rover slug' } },
      tags: ['site'],
      handle: ({ request, params }) => roverPageResponse(deps, request, pathParam(params.slug)),
    }),
  ])
}
