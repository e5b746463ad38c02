import { Type } from '@sinclair/typebox'

/**
 * v1's answer shapes (SOURCES.md §4.4) as closed schemas, for the OpenAPI document and the
 * tests: the saved answers of the real v1 API under ../shared/data/raw validate against them,
 * and so must ours. max_sol and max_date are nullable only for a rover without photos.
 */
const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' })
const closed = { additionalProperties: false } as const

export const V1CameraSchema = Type.Object({ id: Type.Integer(), name: Type.String(), rover_id: Type.Integer(), full_name: Type.String() }, closed)

const roverProps = {
  id: Type.Integer(),
  name: Type.String(),
  landing_date: Day,
  launch_date: Day,
  status: Type.String(),
  max_sol: Type.Union([Type.Integer(), Type.Null()]),
  max_date: Type.Union([Day, Type.Null()]),
  total_photos: Type.Integer(),
}

/** A mission manifest states the same rover facts, without the id. */
const { id: _id, ...manifestProps } = roverProps

/** The rover of a photo: cameras as {name, full_name}. */
export const V1PhotoRoverSchema = Type.Object({ ...roverProps, cameras: Type.Array(Type.Object({ name: Type.String(), full_name: Type.String() }, closed)) }, closed)

/** The rover of /rovers: cameras as full camera objects. */
export const V1RoverSchema = Type.Object({ ...roverProps, cameras: Type.Array(V1CameraSchema) }, closed)

export const V1PhotoSchema = Type.Object(
  { id: Type.Integer(), sol: Type.Integer(), camera: V1CameraSchema, img_src: Type.String(), earth_date: Day, rover: V1PhotoRoverSchema },
  closed,
)

export const V1ManifestSchema = Type.Object(
  {
    photo_manifest: Type.Object(
      {
        ...manifestProps,
        photos: Type.Array(Type.Object({ sol: Type.Integer(), earth_date: Day, total_photos: Type.Integer(), cameras: Type.Array(Type.String()) }, closed)),
      },
      closed,
    ),
  },
  closed,
)

export const V1_RESPONSES = {
  rovers: Type.Object({ rovers: Type.Array(V1RoverSchema) }, closed),
  rover: Type.Object({ rover: V1RoverSchema }, closed),
  photos: Type.Object({ photos: Type.Array(V1PhotoSchema) }, closed),
  latest: Type.Object({ latest_photos: Type.Array(V1PhotoSchema) }, closed),
  photo: Type.Object({ photo: V1PhotoSchema }, closed),
  manifest: V1ManifestSchema,
} as const
