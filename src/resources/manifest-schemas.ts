import { Type } from '@sinclair/typebox'
import { ROVER_SLUGS } from '../catalog/rovers'

/**
 * Response shapes of /rovers/{slug}/manifest and /rovers/{slug}/cameras for the OpenAPI document
 * and the tests (closed objects, as in ./resource-schemas.ts: an answer with a field not listed
 * here fails the tests).
 */
const Slug = Type.Union(ROVER_SLUGS.map((s) => Type.Literal(s)))
const Day = Type.String({ format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$' })
const Int = (description?: string) => Type.Integer(description ? { description } : {})
const closed = { additionalProperties: false } as const

export const ManifestDaySchema = Type.Object(
  {
    sol: Int(),
    earth_date: Day,
    total_photos: Int('Photos of this (sol, earth_date) in our catalogue'),
    nasa_total_photos: Type.Optional(Int("NASA's v1 manifest total for the sol, where one states it")),
    cameras: Type.Array(Type.String(), { description: 'Cameras that took them, by name' }),
  },
  closed,
)

export const ManifestSchema = Type.Object(
  {
    id: Slug,
    type: Type.Literal('manifest'),
    attributes: Type.Object(
      {
        name: Type.String(),
        landing_date: Day,
        launch_date: Day,
        status: Type.Union([Type.Literal('active'), Type.Literal('complete')]),
        max_sol: Type.Optional(Int('Highest sol with photos (absent when the rover has none)')),
        max_date: Type.Optional(Day),
        total_photos: Int(),
        photos: Type.Array(ManifestDaySchema, { description: 'One entry per (sol, earth_date) with photos, ascending' }),
      },
      closed,
    ),
  },
  closed,
)

export const RoverCameraSchema = Type.Object(
  {
    id: Type.String({ description: 'Camera abbreviation' }),
    type: Type.Literal('camera'),
    attributes: Type.Object(
      {
        name: Type.String(),
        full_name: Type.String(),
        photo_count: Int('Photos of this rover with the camera (0 when none)'),
        first_photo_sol: Type.Optional(Int()),
        last_photo_sol: Type.Optional(Int()),
      },
      closed,
    ),
    relationships: Type.Object({ rover: Type.Object({ id: Slug, type: Type.Literal('rover') }, closed) }, closed),
  },
  closed,
)
