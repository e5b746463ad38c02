import { Type } from '@sinclair/typebox'
import { closed, Day, Int, ROVER_SUMMARY, Slug } from './resource-schemas'

/**
 * Response shapes of /rovers/{slug}/manifest and /rovers/{slug}/cameras for the OpenAPI document
 * and the tests (closed objects, as in ./resource-schemas.ts: an answer with a field not listed
 * here fails the tests).
 */

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
        ...ROVER_SUMMARY,
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
