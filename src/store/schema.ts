/**
 * The column store contract: what the index builder writes and the server maps.
 *
 * One index = one folder holding `manifest.json` and Arrow IPC files (FILES below).
 * The published index is `<INDEX_DIR>/current`, a symlink to `<INDEX_DIR>/<version>/`;
 * the builder writes a new version folder and swaps the symlink atomically (rename).
 *
 * Arrow column names are the public field names in snake_case. Absent values:
 *  - integer columns that are never negative (sol, site, drive, width, height, mars_time_ms):
 *    Arrow null, and the value slot holds INT_ABSENT (-1), so the typed array needs no copy;
 *  - float columns: Arrow null, value slot NaN;
 *  - string and dictionary columns: never null, the empty string "" means absent.
 * Rows of `photos.arrow` are in the default order: the date_taken_utc sort key descending (a photo
 * without a time at the last instant of its earth_date, src/query/order/sort-values.ts; unknown last),
 * then id ascending.
 */

import type { RoverSlug } from '../catalog/rovers'

export const INT_ABSENT = -1

export const FILES = {
  manifest: 'manifest.json',
  photos: 'photos.arrow',
  locations: 'locations.arrow',
  panoramas: 'panoramas.arrow',
  /** Precomputed access paths (sort permutations, per-rover/sol ranges): see src/store/access-paths.ts */
  accessPaths: 'access-paths.arrow',
  /** Photos per (rover, sol, earth_date, camera): the mission manifests (index-builder/derive/sol-manifest.ts). */
  solManifest: 'sol-manifest.arrow',
  /** Rover traverses from the waypoint tables, with cumulative sums (index-builder/derive/traverses.ts) */
  traverses: 'traverses.arrow',
  /** Photos grouped by (rover, sol, site, drive) (index-builder/derive/journey-stops.ts) */
  journeyStops: 'journey-stops.arrow',
} as const

/**
 * Files of an index whose photos' raw JSON is too big for photos.arrow's `raw` column (which is
 * then all ""); absent otherwise (index-builder/encode/raw-file.ts, src/store/raw-text.ts).
 */
export const RAW_FILES = {
  /** The texts in the default row order, back to back. */
  text: 'raw.bin',
  /** Where each photo's text in raw.bin ends (RAW_ENDS_LAYOUT). */
  ends: 'raw-ends.arrow',
} as const

/** A Utf8 column kept as raw bytes: value i = data[offsets[i] .. offsets[i+1]). */
export interface Utf8Column {
  data: Uint8Array
  offsets: Int32Array
}

/**
 * A text column past Int32 offsets (the raw JSON of a big catalogue, FILES.rawText): value i =
 * data[offsets[i] .. offsets[i+1]), the offsets exact integers up to 2^53.
 */
export interface LargeUtf8Column {
  data: Uint8Array
  offsets: Float64Array
}

/** Either form of a text column. */
export type TextColumn = Utf8Column | LargeUtf8Column

/** A dictionary-encoded string column: value i = dict[codes[i]]. "" in dict means absent. */
export interface DictColumn {
  codes: Int8Array | Int16Array | Int32Array | Uint8Array | Uint16Array | Uint32Array
  dict: string[]
}

/** The photo table as typed arrays (the same shape in the builder before writing and in the store after loading). */
export interface PhotoColumns {
  length: number
  id: Int32Array                 // Arrow Int32: photo id (int32, public, stable across rebuilds)
  rover: Uint8Array              // Arrow Dictionary<Utf8,Uint8> whose dictionary is ROVER_SLUGS in ROVERS order, so code = rover code
  camera: DictColumn             // Arrow Dictionary<Utf8,Int16>: camera abbreviation (identity is rover + name)
  nasa_id: Utf8Column            // Arrow Utf8
  sol: Int32Array                // Arrow Int32
  earth_date: Int32Array         // Arrow DateDay: days since 1970-01-01 (UTC date of capture)
  date_taken_utc: Float64Array   // Arrow Float64: ms since Unix epoch, UTC; NaN unknown
  date_taken_mars: Utf8Column    // Arrow Utf8: "Sol-NNNNNMhh:mm:ss.fff"; "" unknown
  mars_time_ms: Int32Array       // Arrow Int32: local mean solar time of day in ms (0..86399999) parsed/derived; -1 unknown
  sample_type: DictColumn        // Arrow Dictionary: canonical Full | Subframe | Thumbnail | Downsampled | ... ; "" unknown
  width: Int32Array              // Arrow Int32, -1 unknown
  height: Int32Array             // Arrow Int32, -1 unknown
  site: Int32Array               // Arrow Int32, -1 unknown
  drive: Int32Array              // Arrow Int32, -1 unknown
  lat: Float64Array              // Arrow Float64: planetocentric latitude of the waypoint at (rover, site, drive), NaN unknown (index-builder/derive/related/)
  lon: Float64Array              // Arrow Float64: east longitude 0..360 of that waypoint, NaN unknown
  stereo_partner: Int32Array     // Arrow Int32: id of the other eye's photo of a stereo pair, -1 none
  sequence: DictColumn           // Arrow Dictionary: observation sequence "<rover>-<sol>-<SEQUENCE>", "" none
  coord_x: Float64Array          // Arrow Float64: site-frame coordinates (xyz), NaN unknown
  coord_y: Float64Array
  coord_z: Float64Array
  mast_azimuth: Float32Array     // Arrow Float32 degrees, NaN unknown
  mast_elevation: Float32Array   // Arrow Float32 degrees, NaN unknown
  sclk: Float64Array             // Arrow Float64 spacecraft clock seconds, NaN unknown
  sun_elevation: Float32Array    // Arrow Float32 degrees above the local horizon (stated, else Mars24), NaN unknown
  sun_azimuth: Float32Array      // Arrow Float32 degrees from north, clockwise, NaN unknown
  solar_longitude: Float32Array  // Arrow Float32 areocentric solar longitude Ls in degrees, NaN unknown
  date_received: Float64Array    // Arrow Float64: ms since Unix epoch, when the image reached Earth as NASA's records state it; NaN unstated (absent in older indexes: all NaN)
  image_dir: DictColumn          // Arrow Dictionary: URL prefix up to and including the last '/', shared by all sizes of a photo
  image_small: Utf8Column        // Arrow Utf8: file name after image_dir; "" absent
  image_medium: Utf8Column
  image_large: Utf8Column
  image_full: Utf8Column
  title: DictColumn              // Arrow Dictionary, "" absent
  caption: DictColumn            // Arrow Dictionary, "" absent
  credit: DictColumn             // Arrow Dictionary, "" absent
  raw: TextColumn               // Arrow Utf8: the source record as JSON text (real sources only); "" absent; over RAW_INLINE_BYTES, raw.bin instead
  /** Not in photos.arrow: ms since the Unix epoch the photo was first published here, set at load from the ledger (src/ledger/arrivals.ts). */
  added_at?: Float64Array
}

/** One row per (rover, site, drive) that photos visited, ordered by rover code then first_sol (decisions.md). */
export interface LocationColumns {
  length: number
  rover: Uint8Array
  site: Int32Array
  drive: Int32Array
  first_date: Int32Array         // DateDay
  last_date: Int32Array          // DateDay
  first_sol: Int32Array
  last_sol: Int32Array
  photo_count: Int32Array
  visit_count: Int32Array        // distinct sols with photos there (decisions.md)
  coord_x: Float64Array          // of the earliest photo; NaN unknown
  coord_y: Float64Array
  coord_z: Float64Array
}

/** One row per detected panorama (behaviour.md §15.2), ordered by rover code, sol, n. */
export interface PanoramaColumns {
  length: number
  rover: Uint8Array
  sol: Int32Array
  n: Int32Array                  // 1-based number within (rover, sol), in time order
  camera: DictColumn
  site: Int32Array
  drive: Int32Array
  coord_x: Float64Array
  coord_y: Float64Array
  coord_z: Float64Array
  mars_time_start: Utf8Column    // "Mhh:mm:ss" or ""
  mars_time_end: Utf8Column
  total_photos: Int32Array
  coverage_degrees: Float64Array // wrap-aware azimuth coverage
  avg_elevation: Float64Array
  unique_positions: Int32Array
  avg_position_spacing: Float64Array // NaN when undefined
  quality: DictColumn            // full | wide | half | partial
  photo_ids_offsets: Int32Array  // Arrow List<Int32> `photo_ids`: ids of row i = photo_ids_values[offsets[i]..offsets[i+1])
  photo_ids_values: Int32Array
}

/**
 * One row per (rover, sol, earth_date, camera) holding photos, ordered by rover code, sol,
 * earth_date, camera name: the manifests of the v2 and v1 routes are read from these rows.
 */
export interface SolManifestColumns {
  length: number
  rover: Uint8Array
  sol: Int32Array
  earth_date: Int32Array         // DateDay
  camera: DictColumn             // Arrow Dictionary<Utf8,Int16>
  photo_count: Int32Array        // photos of that camera on that (sol, earth_date)
  nasa_total_photos: Int32Array  // NASA's v1 manifest total for the sol, on every row of it; -1 unknown
  nasa_earth_date: Int32Array    // DateDay: NASA's v1 manifest earth_date of the sol (v1 dated each sol once), on every row of it; -1 unknown
}

/**
 * One row per traverse point (a rover position keyed by site and drive), ordered by rover code,
 * then site, drive (the rover motion counter only grows, so this is the order driven in; `sol`
 * never decreases along it). The cumulative columns run from the rover's first point, so any
 * stretch i..j is answered by differences (decisions.md, Journeys).
 */
export interface TraverseColumns {
  length: number
  rover: Uint8Array
  site: Int32Array
  drive: Int32Array
  sol: Int32Array                // sol the rover reached this point
  last_sol: Int32Array           // last sol it stood there when the table says; -1 unknown
  lon: Float64Array              // degrees east
  lat: Float64Array              // degrees north (planetocentric)
  elevation_m: Float64Array      // NaN unknown
  dist_total_m: Float64Array     // NASA's own cumulative distance as stated; NaN when not stated (or not credible)
  cum_distance_m: Float64Array   // metres from the rover's first point
  cum_gain_m: Float64Array       // summed climbs between consecutive points with elevations
  cum_loss_m: Float64Array       // summed descents, positive metres
  cum_nasa_segments: Int32Array  // segments up to this point measured by NASA's cumulative distance (the rest: great-circle)
  source: DictColumn             // the waypoint file the point came from
}

/** One row per (rover, sol, site, drive) with photos, ordered by rover code, sol, site, drive; site/drive -1 unknown. */
export interface JourneyStopColumns {
  length: number
  rover: Uint8Array
  sol: Int32Array
  site: Int32Array
  drive: Int32Array
  first_date: Int32Array         // DateDay: earliest earth_date of those photos
  photo_count: Int32Array
  point: Int32Array              // row of the traverse point at (rover, site, drive); -1 none
}

export interface ManifestSource {
  path: string                   // as given to the builder (relative to the repo or absolute)
  format: string                 // reader name, e.g. "v1-json", "v1-csv", "m2020-raw-images", "msl-raw-image-items", "mru-record", "manifest", "waypoints", "pds3-index-table"
  records: number                // records read
  photos: number                 // photos contributed after dedupe
  skipped: number                // bad records skipped (--skip-bad)
  /** Stated values served otherwise because they contradict their own record (index-builder/normalize/stated-values.ts), per field. */
  contradicted?: Partial<Record<'date_taken_utc' | 'earth_date', number>>
}

/** One rover's NASA v1 manifest as the build read it: photos summed over the sols it lists. */
export interface NasaManifestFacts {
  total_photos: number
  sols: number
}

export interface Manifest {
  schema_version: 1
  version: string                // content version: hash of the written files (changes iff content changes)
  kind: 'real' | 'synthetic'
  built_at: string               // ISO 8601 UTC
  builder: string                // e.g. "index-builder 0.1.0"
  seed?: number                  // synthetic only
  rows: { photos: number; locations: number; panoramas: number; sol_manifest: number; traverse_points: number; journey_stops: number }
  sources: ManifestSource[]
  /** The page store (FEED_DIR) the index was built from, when it was built from one (index-builder/fetch/page-store-digest.ts). */
  page_store?: { digest: string; pages: number }
  /**
   * What NASA's v1 photo manifests read by the build state, per rover they cover (Curiosity,
   * Opportunity, Spirit; absent for a rover without one, and absent altogether when the build read
   * none): `total_photos` summed over the `sols` they list. Part of the content version
   * (index-builder/encode/manifest.ts), since answers carry it (src/query/stats/catalogue-share.ts).
   */
  nasa_manifests?: Partial<Record<RoverSlug, NasaManifestFacts>>
  /**
   * Per file: size, SHA-256 (INDEX_VERIFY=sha256), and xxh3, the fast checksum verified at every load
   * (16 hex digits; absent in older indexes). A file larger than the builder's digest part
   * (index-builder/encode/manifest.ts, 4 MiB) has `xxh3_parts` instead: the XXH3 of each
   * `xxh3_part_bytes` of it, in order (src/store/batched-table.ts; an index written before
   * `xxh3_part_bytes` existed has parts of a GiB and no such field).
   */
  files: Record<string, { bytes: number; sha256: string; xxh3?: string; xxh3_parts?: string[]; xxh3_part_bytes?: number }>
}
