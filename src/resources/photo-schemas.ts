import { Type } from '@sinclair/typebox'
import { ROVER_SLUGS } from '../catalog/rovers'
import { IMAGE_SIZES } from '../query/params/photo-fields'

/**
 * Response shapes of the photo endpoints (list, by id, batch, statistics), for the OpenAPI
 * document and the tests that validate every answer against it. The photo is written by
 * src/query/render/photo-json.ts: every attribute is optional because `fields`, `field_set` and
 * `exclude_images` select them and a photo lacking a value omits the member (decisions.md,
 * Envelopes and resources). `additionalProperties: false`: a member the writer adds without
 * listing it here fails the client test, so the document cannot fall behind the code.
 */
const closed = { additionalProperties: false } as const
const Day = Type.String({ format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$' })
const Url = Type.String({ format: 'uri' })
const Int = (description?: string) => Type.Integer(description ? { description } : {})
const Slug = Type.Union(ROVER_SLUGS.map((s) => Type.Literal(s)))

const Images = Type.Object(
  Object.fromEntries(IMAGE_SIZES.map((s) => [s, Type.Optional(Url)])),
  {
    ...closed,
    description:
      'Image URLs by size. Only Perseverance has small, medium and large; the `minimal` preset writes one image (medium, else large, else full, else small). `image_sizes` narrows the sizes, `exclude_images` drops the member.',
  },
)

const PhotoAttributes = Type.Object(
  {
    nasa_id: Type.Optional(Type.String({ description: 'NASA image id' })),
    sol: Type.Optional(Int('Mission day')),
    earth_date: Type.Optional(Day),
    date_taken_utc: Type.Optional(Type.String({ format: 'date-time' })),
    date_taken_mars: Type.Optional(Type.String({ description: 'Local mean solar time, e.g. Sol-01311M17:23:55.682' })),
    images: Type.Optional(Images),
    dimensions: Type.Optional(Type.Object({ width: Type.Optional(Int()), height: Type.Optional(Int()) }, closed)),
    sample_type: Type.Optional(Type.String()),
    title: Type.Optional(Type.String()),
    caption: Type.Optional(Type.String()),
    credit: Type.Optional(Type.String()),
    location: Type.Optional(
      Type.Object(
        {
          site: Type.Optional(Int()),
          drive: Type.Optional(Int()),
          coordinates: Type.Optional(
            Type.Object({ x: Type.Number(), y: Type.Number(), z: Type.Number() }, { ...closed, description: 'Site-frame coordinates; not in the standard and extended presets' }),
          ),
        },
        closed,
      ),
    ),
    telemetry: Type.Optional(Type.Object({ mast_azimuth: Type.Optional(Type.Number()), mast_elevation: Type.Optional(Type.Number()) }, closed)),
    sun: Type.Optional(
      Type.Object(
        { elevation: Type.Number({ description: 'Degrees above the local horizon' }), azimuth: Type.Optional(Type.Number({ description: 'Degrees from north, clockwise' })) },
        { ...closed, description: 'Where the sun stood at capture: as the record states it (Curiosity PDS3 labels, MER index tables), else Mars24 at the rover\'s position (docs/derived-fields.md). Beyond the interface: with `complete` or `fields=sun`.' },
      ),
    ),
    solar_longitude: Type.Optional(Type.Number({ description: 'Areocentric solar longitude Ls in degrees (the Martian season), stated or Mars24. Beyond the interface: with `complete` or `fields=solar_longitude`.' })),
    date_received: Type.Optional(Type.String({ format: 'date-time', description: "When the image reached Earth, as NASA's records state it (absent where they do not). Beyond the interface: with `complete` or by name in `fields`." })),
    added_at: Type.Optional(Type.String({ format: 'date-time', description: 'When this service first published the photo (the arrival ledger; docs/follow-new-photos.md). Beyond the interface: with `complete` or by name in `fields`.' })),
    raw: Type.Optional(Type.Unknown({ description: 'The source record as NASA published it (`complete` preset only)' })),
  },
  {
    ...closed,
    description:
      'Presets (`field_set`): minimal = sol, earth_date, one image; standard = nasa_id, sol, earth_date, date_taken_utc, images, sample_type, title, credit; extended = standard + date_taken_mars, caption, dimensions, location (no coordinates); scientific = extended + telemetry and coordinates; complete = every attribute and raw, plus the attributes beyond the interface (date_received, added_at). Without `fields` or `field_set` every attribute the photo has is written (no raw).',
  },
)

const RoverRef = Type.Object(
  { id: Slug, type: Type.Literal('rover'), attributes: Type.Object({ name: Type.String(), status: Type.Union([Type.Literal('active'), Type.Literal('complete')]) }, closed) },
  closed,
)
const CameraRef = Type.Object(
  { id: Type.String(), type: Type.Literal('camera'), attributes: Type.Optional(Type.Object({ full_name: Type.String() }, closed)) },
  closed,
)

const StereoRef = Type.Object(
  { id: Int('The photo of the other eye of the stereo pair'), type: Type.Literal('photo') },
  { ...closed, description: 'The other eye of a stereo pair (docs/derived-fields.md)' },
)
const SequenceRef = Type.Object(
  { id: Type.String({ description: '<rover>-<sol>-<SEQUENCE>; list it with GET /api/v2/photos?sequence=<id>' }), size: Int('Photos of the sequence') },
  { ...closed, description: 'The observation sequence the photo belongs to' },
)

export const PhotoSchema = Type.Object(
  {
    id: Int('Photo id'),
    type: Type.Literal('photo'),
    attributes: PhotoAttributes,
    relationships: Type.Optional(
      Type.Object(
        { stereo: Type.Optional(StereoRef), sequence: Type.Optional(SequenceRef), rover: Type.Optional(RoverRef), camera: Type.Optional(CameraRef) },
        { ...closed, description: 'stereo and sequence on every photo that has them; rover and camera with `include=rover` and/or `include=camera`' },
      ),
    ),
  },
  // Named: the OpenAPI document states it once and refers to it wherever a photo is written.
  { ...closed, $id: 'Photo' },
)

const Meta = {
  total_count: Int('Photos matching the filters'),
  returned_count: Int('Items in data'),
  timestamp: Type.String({ format: 'date-time' }),
}

export const CursorSchema = Type.Object(
  {
    current: Type.Optional(Type.String({ description: 'The cursor this page was asked with' })),
    next: Type.Optional(Type.String({ description: 'Pass as `cursor` to get the page after this one; absent on the last page' })),
  },
  { ...closed, description: 'Keyset pagination: opaque, stable across index rebuilds' },
)

const Pagination = Type.Object(
  {
    page: Type.Optional(Int('Absent in cursor mode')),
    per_page: Int(),
    total_pages: Int(),
    cursor: Type.Optional(CursorSchema),
  },
  closed,
)

const ListLinks = Type.Object(
  {
    self: Url,
    first: Type.Optional(Url),
    last: Type.Optional(Url),
    next: Type.Optional(Url),
    prev: Type.Optional(Url),
  },
  { ...closed, description: 'Absolute URLs. Page mode: every link carries `page`; cursor mode: they carry the cursor and no page.' },
)

/** The photo list (GET /api/v2/photos). */
export const PhotoListSchema = Type.Object({ data: Type.Array(PhotoSchema), meta: Type.Object(Meta, closed), pagination: Pagination, links: ListLinks }, closed)

/** One photo (GET /api/v2/photos/{id}). */
export const PhotoOneSchema = Type.Object({ data: PhotoSchema, links: Type.Object({ self: Url }, closed) }, closed)

/** GET /api/v2/photos/{id}/related. */
export const PhotoRelatedSchema = Type.Object(
  {
    data: PhotoSchema,
    related: Type.Object(
      {
        stereo: Type.Union([PhotoSchema, Type.Null()], { description: 'The other eye of its stereo pair' }),
        sequence: Type.Union([
          Type.Object(
            { id: Type.String(), size: Int('Photos of the sequence'), photos: Type.Array(PhotoSchema, { description: 'The first 25 in exposure order' }), links: Type.Object({ photos: Url }, closed) },
            closed,
          ),
          Type.Null(),
        ]),
        nearby: Type.Union([
          Type.Object(
            {
              radius_m: Type.Number(),
              total: Int('Photos of other sols within radius_m'),
              photos: Type.Array(Type.Object({ distance_m: Type.Number(), photo: PhotoSchema }, closed), { description: 'The 10 nearest, nearest first' }),
              links: Type.Object({ photos: Url }, closed),
            },
            closed,
          ),
          Type.Null(),
        ], { description: 'null when the photo has no known position' }),
      },
      closed,
    ),
    links: Type.Object({ self: Url }, closed),
  },
  closed,
)

/** POST /api/v2/photos/batch. */
export const PhotoBatchSchema = Type.Object(
  {
    data: Type.Array(PhotoSchema, { description: 'In request order; a repeated id once; unknown ids skipped' }),
    meta: Type.Object(
      {
        ...Meta,
        ids_requested: Int('Distinct ids asked for'),
        ids_found: Int(),
        ids_missing: Type.Array(Type.Integer(), { description: 'Requested ids no photo has' }),
      },
      closed,
    ),
    links: Type.Object({ self: Url }, closed),
  },
  closed,
)

const StatsGroup = Type.Object(
  {
    key: Type.String({ description: 'Camera name, rover slug or sol (as text)' }),
    count: Int(),
    percentage: Type.Number({ description: 'Share of total_photos' }),
    avg_per_sol: Type.Optional(Type.Number({ description: 'group_by=rover: count / distinct sols with photos' })),
    earth_date: Type.Optional(Day),
  },
  closed,
)

/** GET /api/v2/photos/stats. */
export const PhotoStatsSchema = Type.Object(
  {
    data: Type.Object(
      {
        total_photos: Int(),
        period: Type.Object({ from: Type.Optional(Day), to: Type.Optional(Day) }, { ...closed, description: 'Earliest and latest earth_date of the matches' }),
        groups: Type.Array(StatsGroup),
      },
      closed,
    ),
    meta: Type.Object(
      { group_by: Type.Union([Type.Literal('camera'), Type.Literal('rover'), Type.Literal('sol')]), returned_count: Int('Number of groups'), timestamp: Type.String({ format: 'date-time' }) },
      closed,
    ),
    links: Type.Object({ self: Url }, closed),
  },
  closed,
)
