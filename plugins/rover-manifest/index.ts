import { Elysia } from 'elysia'
import { Type } from '@sinclair/typebox'
import type { PluginDeps } from '../../src/app-deps'
import { cachedAnswer } from '../../src/http/cached-answer'
import { JsonBody } from '../../src/http/json-body'
import { pathParam } from '../../src/http/path-param'
import type { Store } from '../../src/store/store'
import { ROVERS_PATH } from '../../src/resources/rovers-resource'
import { getManifest, listRoverCameras } from '../../src/resources/manifest-resource'
import { ManifestSchema, RoverCameraSchema } from '../../src/resources/manifest-schemas'
import { listOf, singleOf } from '../../src/resources/resource-schemas'

/**
 * GET /api/v2/rovers/{slug}/manifest and /rovers/{slug}/cameras: thin; the answers are rendered
 * by src/resources/manifest-resource.ts from the builder's manifest table, through the shared
 * response cache and ETag like every GET resource.
 */
export function roverManifestPlugin(deps: PluginDeps) {
  registerDocs(deps.routes)
  const answer = cachedAnswer(deps)
  return new Elysia({ name: 'rover-manifest' })
    // `=> new JsonBody(...)`: Elysia reads these as synchronous (src/http/sync-hook.ts).
    .get(`${ROVERS_PATH}/:slug/manifest`, ({ request, params }) => new JsonBody(answer(request, manifestOf(pathParam(params.slug)))))
    .get(`${ROVERS_PATH}/:slug/cameras`, ({ request, params }) => new JsonBody(answer(request, camerasOf(pathParam(params.slug)))))
}

function manifestOf(slug: string) {
  return (store: Store, _q: URLSearchParams, base: string) => getManifest(store, slug, base)
}

function camerasOf(slug: string) {
  return (store: Store, q: URLSearchParams, base: string) => listRoverCameras(store, slug, q, base)
}

const SLUG = Type.Object({ slug: Type.String({ description: 'Rover slug, case-insensitive: curiosity, opportunity, perseverance, spirit.' }) })

function registerDocs(routes: PluginDeps['routes']): void {
  routes.register({
    method: 'GET',
    path: `${ROVERS_PATH}/:slug/manifest`,
    summary: "The rover's mission manifest",
    description:
      'Per (sol, earth_date) ascending: total_photos, the cameras that took them and, where NASA\'s own v1 manifest states it, ' +
      'nasa_total_photos (how many NASA published that sol: the difference is what our catalogue does not hold). Rover totals ' +
      '(max_sol, max_date, total_photos) are counted from the catalogue, computed once by the index builder, so they agree with ' +
      'the photo endpoints and with the v1 manifest.',
    params: SLUG,
    responses: { 200: { description: 'Manifest', schema: singleOf(ManifestSchema) }, 304: { description: 'Not modified' }, 404: { description: 'Unknown rover slug' } },
    tags: ['rovers'],
  })
  routes.register({
    method: 'GET',
    path: `${ROVERS_PATH}/:slug/cameras`,
    summary: "The rover's cameras with their photo counts",
    description: 'Every camera of the rover, by name, with photo_count (0 when none) and first_photo_sol / last_photo_sol (omitted when it has no photos). One page.',
    params: SLUG,
    responses: { 200: { description: 'Camera list envelope', schema: listOf(RoverCameraSchema) }, 304: { description: 'Not modified' }, 404: { description: 'Unknown rover slug' } },
    tags: ['rovers'],
  })
}
