import { Type } from '@sinclair/typebox'
import { ROVER_SLUGS } from '../../src/catalog/rovers'

/**
 * Response shapes of the journey and traverse answers, for the OpenAPI document and for the
 * tests, which check every answer against them (closed objects: a field not listed fails).
 */
const Slug = Type.Union(ROVER_SLUGS.map((s) => Type.Literal(s)))
const Url = Type.String({ format: 'uri' })
const closed = { additionalProperties: false } as const
const Method = Type.Union([Type.Literal('nasa_dist_total_m'), Type.Literal('great_circle'), Type.Literal('mixed')], {
  description: "nasa_dist_total_m: NASA's own cumulative distance driven; great_circle: sums on a 3,389.5 km sphere; mixed: both, counted in distance_segments",
})
const Position = Type.Object({ lon: Type.Number(), lat: Type.Number(), elevation_m: Type.Optional(Type.Number()) }, closed)

export const JourneySchema = Type.Object(
  {
    data: Type.Object(
      {
        id: Slug,
        type: Type.Literal('journey'),
        attributes: Type.Object(
          {
            rover: Slug,
            sol_start: Type.Optional(Type.Integer()),
            sol_end: Type.Optional(Type.Integer()),
            total_photos: Type.Integer(),
            locations_visited: Type.Integer({ description: 'Distinct (site, drive) with photos in the window' }),
            distance_traveled_m: Type.Optional(Type.Number({ description: 'Measured from the waypoints; absent when the rover has none for the window' })),
            distance_traveled_km: Type.Optional(Type.Number()),
            distance_method: Type.Optional(Method),
            distance_note: Type.String({ description: 'How the distance was measured, or why it is absent' }),
            elevation_change_m: Type.Optional(Type.Number()),
            elevation_gain_m: Type.Optional(Type.Number()),
            elevation_loss_m: Type.Optional(Type.Number()),
            elevation_note: Type.Optional(Type.String()),
            waypoints: Type.Optional(Type.Object({ count: Type.Integer(), first_sol: Type.Integer(), last_sol: Type.Integer() }, closed)),
          },
          closed,
        ),
        path: Type.Array(
          Type.Object(
            {
              sol: Type.Integer(),
              earth_date: Type.String({ format: 'date' }),
              site: Type.Optional(Type.Integer()),
              drive: Type.Optional(Type.Integer()),
              photos_taken: Type.Integer(),
              position: Type.Optional(Position),
              links: Type.Object({ photos: Url }, closed),
            },
            closed,
          ),
        ),
        links: Type.Object({ traverse: Url }, closed),
      },
      closed,
    ),
    links: Type.Object({ self: Url }, closed),
  },
  closed,
)

const Corner = Type.Object({ lon: Type.Number(), lat: Type.Number(), elevation_m: Type.Optional(Type.Number()) }, closed)

export const TraverseSchema = Type.Object(
  {
    data: Type.Object(
      {
        id: Slug,
        type: Type.Literal('traverse'),
        attributes: Type.Object(
          {
            rover: Slug,
            sol_range: Type.Object({ start: Type.Optional(Type.Integer()), end: Type.Optional(Type.Integer()) }, closed),
            start_sol: Type.Optional(Type.Integer({ description: 'Sol of the first point: where the rover stood when sol_min began' })),
            point_count: Type.Integer(),
            simplified_point_count: Type.Optional(Type.Integer()),
            simplify_tolerance_m: Type.Optional(Type.Number()),
            total_distance_m: Type.Optional(Type.Number()),
            distance_method: Type.Optional(Method),
            distance_segments: Type.Optional(Type.Object({ nasa_dist_total_m: Type.Integer(), great_circle: Type.Integer() }, closed)),
            distance_note: Type.Optional(Type.String()),
            total_elevation_gain_m: Type.Optional(Type.Number()),
            total_elevation_loss_m: Type.Optional(Type.Number()),
            net_elevation_change_m: Type.Optional(Type.Number()),
            elevation_note: Type.Optional(Type.String()),
            bounding_box: Type.Optional(Type.Object({ min: Corner, max: Corner }, closed)),
            data_source: Type.Optional(Type.Array(Type.String())),
            coordinate_system: Type.Optional(Type.String()),
            note: Type.Optional(Type.String({ description: 'Why there is no path' })),
          },
          closed,
        ),
        path: Type.Array(
          Type.Object(
            {
              sol: Type.Integer(),
              last_sol: Type.Optional(Type.Integer()),
              site: Type.Integer(),
              drive: Type.Integer(),
              lon: Type.Number(),
              lat: Type.Number(),
              elevation_m: Type.Optional(Type.Number()),
              cumulative_distance_m: Type.Number({ description: 'From the first point of this path' }),
            },
            closed,
          ),
        ),
      },
      closed,
    ),
    links: Type.Object({ self: Url, geojson: Url }, closed),
  },
  closed,
)

export const FeatureCollectionSchema = Type.Object(
  {
    type: Type.Literal('FeatureCollection'),
    bbox: Type.Optional(Type.Array(Type.Number(), { minItems: 4, maxItems: 4 })),
    features: Type.Array(Type.Object({ type: Type.Literal('Feature'), geometry: Type.Object({ type: Type.String(), coordinates: Type.Array(Type.Unknown()) }), properties: Type.Object({}) })),
  },
  { description: 'RFC 7946 FeatureCollection (application/geo+json)' },
)
