import { Type, type TObject, type TSchema } from '@sinclair/typebox'
import { V1_RESPONSES } from '../../src/v1/v1-schemas'
import type { RouteDocs } from '../../src/http/route-docs'
import { V1_PREFIXES } from '../../src/v1/v1-paths'
import { MAX_UNPAGED, V1_PER_PAGE } from '../../src/v1/v1-photos'

export const V1_TAG = 'v1 (compatibility)'

const NAME = Type.Object({ name: Type.String({ description: 'Rover name, any case: curiosity, opportunity, perseverance, spirit.' }) })
const KEY = { api_key: Type.Optional(Type.String({ description: 'Your API key, as v1 clients send it (the X-API-Key header works too). Never echoed or logged.' })) }
const FILTERS = {
  camera: Type.Optional(Type.String({ description: "One of the rover's camera names, any case (400 for another name)." })),
  page: Type.Optional(Type.Integer({ minimum: 1, description: `${V1_PER_PAGE} photos a page. Without it: every photo of the day (400 above ${MAX_UNPAGED.toLocaleString('en')}, asking for page).` })),
}

/**
 * The v1 routes' declarations, under their own tag: keyed, the key also from `api_key`, at every
 * prefix (the gates decide from them); the OpenAPI document shows them once, at the first.
 */
export function registerV1Docs(routes: RouteDocs): void {
  routes.describeTag(
    V1_TAG,
    'Drop-in replacement for the archived NASA Mars Rover Photos API v1: every path is served under both `/api/v1` and ' +
      '`/mars-photos/api/v1`, success bodies in v1\'s exact shapes, key as `api_key=` or `X-API-Key` (same keys, limits, ' +
      'counting and headers as v2; v2 itself reads only the header), except that a photos answer without `page` (a whole day) ' +
      'counts like an export of its rows: one call per started 1,000 photos, 429 stating the cost when fewer are left. Errors are the same problem documents as v2 with `errors` ' +
      'as the v1 string (e.g. "Invalid Rover Name" for an unknown rover, 404) and the bad parameters in `invalid_params`. ' +
      'Rover figures and manifests are counted from our catalogue, so they agree with the photo endpoints; they can be ' +
      'lower than NASA\'s published figures (the v2 manifest shows NASA\'s per-sol totals beside ours).',
  )
  const route = (path: string, schema: TSchema, summary: string, description: string, params?: TObject, query: TObject = Type.Object(KEY)) =>
    V1_PREFIXES.forEach((prefix, i) => routes.register({
      hidden: i > 0,
      method: 'GET',
      path: `${prefix}${path}`,
      summary,
      description,
      ...(params ? { params } : {}),
      query,
      responses: params
        ? { 200: { description: summary, schema }, 304: { description: 'Not modified' }, 404: { description: 'Unknown rover or photo' } }
        : { 200: { description: summary, schema }, 304: { description: 'Not modified' } },
      tags: [V1_TAG],
      keyInQuery: true,
    }))
  route('/rovers', V1_RESPONSES.rovers, 'v1: the rovers', '`{"rovers":[…]}`: id, name, dates, status, max_sol, max_date, total_photos, cameras[{id, name, rover_id, full_name}].')
  route('/rovers/:name', V1_RESPONSES.rover, 'v1: one rover', '`{"rover":{…}}`, as in the list.', NAME)
  const photos = Type.Object({
    sol: Type.Optional(Type.Integer({ minimum: 0, description: 'Martian sol (required unless earth_date is given; wins when both are).' })),
    earth_date: Type.Optional(Type.String({ description: 'Earth date YYYY-MM-DD (zero padding optional).' })),
    ...FILTERS,
    ...KEY,
  })
  route(
    '/rovers/:name/photos',
    V1_RESPONSES.photos,
    "v1: a day's photos",
    '`{"photos":[{id, sol, camera{id, name, rover_id, full_name}, img_src, earth_date, rover{…}}]}` ordered by camera id, then id. sol or earth_date is required.',
    NAME,
    photos,
  )
  const latest = Type.Object({ ...FILTERS, ...KEY })
  route('/rovers/:name/latest_photos', V1_RESPONSES.latest, 'v1: the latest day\'s photos', '`{"latest_photos":[…]}`: the photos of the rover\'s highest sol in the catalogue.', NAME, latest)
  route('/rovers/:name/latest', V1_RESPONSES.latest, 'v1: the latest day\'s photos (alias)', 'Same as latest_photos.', NAME, latest)
  route('/photos/:id', V1_RESPONSES.photo, 'v1: one photo', '`{"photo":{…}}`.', Type.Object({ id: Type.Integer({ format: 'int32', description: 'Photo id' }) }))
  route(
    '/manifests/:name',
    V1_RESPONSES.manifest,
    'v1: mission manifest',
    '`{"photo_manifest":{name, landing_date, launch_date, status, max_sol, max_date, total_photos, photos:[{sol, earth_date, total_photos, cameras[]}]}}`, computed from our catalogue by the index builder (the same computation as the v2 manifest).',
    NAME,
  )
}
