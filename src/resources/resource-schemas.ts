import { Type, type TSchema } from '@sinclair/typebox'
import { ROVER_SLUGS } from '../catalog/rovers'

/**
 * Response shapes of the rovers, cameras, locations and panoramas endpoints, for the OpenAPI
 * document (plugins/docs) and for the tests, which check every answer against them. The
 * interface leaves the location, panorama and camera fields "not shown"; these are the choices
 * written down in src/resources/*-resource.ts and src/query/{locations,panoramas}-list.ts.
 * `additionalProperties: false` on the resources: an answer with a field not listed here fails
 * the tests, so the document cannot fall behind the code.
 */
export const Slug = Type.Union(ROVER_SLUGS.map((s) => Type.Literal(s)))
export const Day = Type.String({ format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$' })
const Url = Type.String({ format: 'uri' })
export const Int = (description?: string) => Type.Integer(description ? { description } : {})
export const closed = { additionalProperties: false } as const

const Coordinates = Type.Object({ x: Type.Number(), y: Type.Number(), z: Type.Number() }, { ...closed, description: 'Site-frame coordinates (xyz), metres' })

/** What a rover is and how much of it the index holds: the rover resource's and the manifest's attributes alike. */
export const ROVER_SUMMARY = {
  name: Type.String(),
  landing_date: Day,
  launch_date: Day,
  status: Type.Union([Type.Literal('active'), Type.Literal('complete')]),
  max_sol: Type.Optional(Int('Highest sol with photos (absent when the rover has none)')),
  max_date: Type.Optional(Type.String({ format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'Latest earth_date with photos (absent when none)' })),
  total_photos: Int('Photos of the rover in the index'),
  nasa_total_photos: Type.Optional(
    Int("Photos NASA's own v1 manifest states for the rover, summed over the sols it lists (Curiosity, Opportunity, Spirit; absent for Perseverance, which has none)"),
  ),
  catalogue_share: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 1,
      description:
        "How much of nasa_total_photos the index holds: the sum over NASA's sols of min(our photos on the sol, NASA's total for it), divided by nasa_total_photos, to 6 decimals. Present with nasa_total_photos.",
    }),
  ),
}

const roverProps = {
  id: Slug,
  type: Type.Literal('rover'),
  attributes: Type.Object(
    {
      ...ROVER_SUMMARY,
    },
    closed,
  ),
}

export const RoverSchema = Type.Object(roverProps, closed)

const CameraEntry = Type.Object(
  { id: Type.String(), type: Type.Literal('camera'), attributes: Type.Object({ name: Type.String(), full_name: Type.String() }, closed) },
  closed,
)

export const RoverWithCamerasSchema = Type.Object({ ...roverProps, relationships: Type.Object({ cameras: Type.Array(CameraEntry) }, closed) }, closed)

const RoverOfCamera = Type.Object(
  {
    id: Slug,
    type: Type.Literal('rover'),
    attributes: Type.Object({ name: Type.String(), status: Type.String() }, closed),
    meta: Type.Object(
      {
        photo_count: Int('Photos this rover took with the camera'),
        first_photo_sol: Type.Optional(Int()),
        last_photo_sol: Type.Optional(Int()),
      },
      closed,
    ),
  },
  closed,
)

export const CameraSchema = Type.Object(
  {
    id: Type.String({ description: 'Camera abbreviation (upper case)' }),
    type: Type.Literal('camera'),
    attributes: Type.Object({ name: Type.String(), full_name: Type.String(), photo_count: Int('Sum over the listed rovers') }, closed),
    relationships: Type.Object({ rovers: Type.Array(RoverOfCamera, { description: 'Every rover that has the camera (or the one asked for)' }) }, closed),
  },
  closed,
)

export const LocationSchema = Type.Object(
  {
    id: Type.String({ description: '<rover_slug>_<site>_<drive>' }),
    type: Type.Literal('location'),
    attributes: Type.Object(
      {
        rover: Slug,
        site: Int(),
        drive: Int(),
        first_visited: Day,
        last_visited: Day,
        first_sol: Int(),
        last_sol: Int(),
        photo_count: Int(),
        visit_count: Int('Distinct sols with photos there'),
        coordinates: Type.Optional(Coordinates),
      },
      closed,
    ),
    links: Type.Object({ photos: Url }, closed),
  },
  closed,
)

export const PanoramaSchema = Type.Object(
  {
    id: Type.String({ description: 'pano_<rover_slug>_<sol>_<n>, n from 1 per rover and sol in time order' }),
    type: Type.Literal('panorama'),
    attributes: Type.Object(
      {
        rover: Slug,
        sol: Int(),
        mars_time_start: Type.Optional(Type.String({ pattern: '^M\\d{2}:\\d{2}:\\d{2}$' })),
        mars_time_end: Type.Optional(Type.String({ pattern: '^M\\d{2}:\\d{2}:\\d{2}$' })),
        total_photos: Int(),
        coverage_degrees: Type.Number({ description: 'Arc of azimuths covered, wrap-aware (0..360)' }),
        location: Type.Object({ site: Int(), drive: Int(), coordinates: Type.Optional(Coordinates) }, closed),
        camera: Type.String(),
        avg_elevation: Type.Number(),
        unique_positions: Int('Distinct whole-degree azimuths'),
        avg_position_spacing: Type.Optional(Type.Number()),
        quality: Type.Union(['full', 'wide', 'half', 'partial'].map((q) => Type.Literal(q))),
        photo_ids: Type.Array(Type.Integer(), { description: 'The photos of the panorama in capture order' }),
      },
      closed,
    ),
    links: Type.Object({ photos: Url }, closed),
  },
  closed,
)

/** The list envelope of src/query/render/envelope.ts around `item`. */
export function listOf(item: TSchema) {
  return Type.Object({
    data: Type.Array(item),
    meta: Type.Object({ total_count: Int(), returned_count: Int(), timestamp: Type.String({ format: 'date-time' }) }),
    pagination: Type.Object({ page: Int(), per_page: Int(), total_pages: Int() }),
    links: Type.Object({ self: Url, first: Url, last: Url, next: Type.Optional(Url), prev: Type.Optional(Url) }),
  })
}

/** A single resource: `{data, links: {self}}` (decisions.md). */
export function singleOf(item: TSchema) {
  return Type.Object({ data: item, links: Type.Object({ self: Url }) })
}
