/**
 * The physical Arrow layout of each table in src/store/schema.ts: column name, and the one
 * Arrow type family the column is written as. The index builder writes from it and the store
 * loader checks every file against it, so the two can never disagree about a column.
 *
 * Kinds (absent values as schema.ts says):
 *  - int32:  Arrow Int32, null where the value slot holds INT_ABSENT (-1)
 *  - date:   Arrow DateDay (Int32 days), null where the slot holds INT_ABSENT
 *  - f64/f32: Arrow Float64/Float32, null where the slot holds NaN
 *  - utf8:   Arrow Utf8, never null ("" = absent)
 *  - dict:   Arrow Dictionary<Utf8, Int8|Int16|Int32> (narrowest that fits), never null
 *  - dict16: Arrow Dictionary<Utf8, Int16> (schema.ts fixes the index width)
 *  - rover:  Arrow Dictionary<Utf8, Uint8> whose dictionary is ROVER_SLUGS, so code = rover code
 *  - ids:    Arrow List<Int32>; in memory as `<name>_offsets` + `<name>_values`
 */
export type ColumnKind = 'int32' | 'date' | 'f64' | 'f32' | 'utf8' | 'dict' | 'dict16' | 'rover' | 'ids'

export type ColumnLayout = ReadonlyArray<readonly [name: string, kind: ColumnKind]>

export const PHOTO_LAYOUT: ColumnLayout = [
  ['id', 'int32'],
  ['rover', 'rover'],
  ['camera', 'dict16'],
  ['nasa_id', 'utf8'],
  ['sol', 'int32'],
  ['earth_date', 'date'],
  ['date_taken_utc', 'f64'],
  ['date_taken_mars', 'utf8'],
  ['mars_time_ms', 'int32'],
  ['sample_type', 'dict'],
  ['width', 'int32'],
  ['height', 'int32'],
  ['site', 'int32'],
  ['drive', 'int32'],
  ['lat', 'f64'],
  ['lon', 'f64'],
  ['stereo_partner', 'int32'],
  ['sequence', 'dict'],
  ['coord_x', 'f64'],
  ['coord_y', 'f64'],
  ['coord_z', 'f64'],
  ['mast_azimuth', 'f32'],
  ['mast_elevation', 'f32'],
  ['sclk', 'f64'],
  ['sun_elevation', 'f32'],
  ['sun_azimuth', 'f32'],
  ['solar_longitude', 'f32'],
  ['date_received', 'f64'],
  ['image_dir', 'dict'],
  ['image_small', 'utf8'],
  ['image_medium', 'utf8'],
  ['image_large', 'utf8'],
  ['image_full', 'utf8'],
  ['title', 'dict'],
  ['caption', 'dict'],
  ['credit', 'dict'],
  ['raw', 'utf8'],
]

/** raw-ends.arrow: one row per photo, in photos.arrow's order: where its text in raw.bin ends (a byte count, an exact integer). */
export const RAW_ENDS_LAYOUT: ColumnLayout = [['raw_end', 'f64']]

export const LOCATION_LAYOUT: ColumnLayout = [
  ['rover', 'rover'],
  ['site', 'int32'],
  ['drive', 'int32'],
  ['first_date', 'date'],
  ['last_date', 'date'],
  ['first_sol', 'int32'],
  ['last_sol', 'int32'],
  ['photo_count', 'int32'],
  ['visit_count', 'int32'],
  ['coord_x', 'f64'],
  ['coord_y', 'f64'],
  ['coord_z', 'f64'],
]

export const PANORAMA_LAYOUT: ColumnLayout = [
  ['rover', 'rover'],
  ['sol', 'int32'],
  ['n', 'int32'],
  ['camera', 'dict16'],
  ['site', 'int32'],
  ['drive', 'int32'],
  ['coord_x', 'f64'],
  ['coord_y', 'f64'],
  ['coord_z', 'f64'],
  ['mars_time_start', 'utf8'],
  ['mars_time_end', 'utf8'],
  ['total_photos', 'int32'],
  ['coverage_degrees', 'f64'],
  ['avg_elevation', 'f64'],
  ['unique_positions', 'int32'],
  ['avg_position_spacing', 'f64'],
  ['quality', 'dict'],
  ['photo_ids', 'ids'],
]

export const SOL_MANIFEST_LAYOUT: ColumnLayout = [
  ['rover', 'rover'],
  ['sol', 'int32'],
  ['earth_date', 'date'],
  ['camera', 'dict16'],
  ['photo_count', 'int32'],
  ['nasa_total_photos', 'int32'],
  ['nasa_earth_date', 'date'],
]

export const TRAVERSE_LAYOUT: ColumnLayout = [
  ['rover', 'rover'],
  ['site', 'int32'],
  ['drive', 'int32'],
  ['sol', 'int32'],
  ['last_sol', 'int32'],
  ['lon', 'f64'],
  ['lat', 'f64'],
  ['elevation_m', 'f64'],
  ['dist_total_m', 'f64'],
  ['cum_distance_m', 'f64'],
  ['cum_gain_m', 'f64'],
  ['cum_loss_m', 'f64'],
  ['cum_nasa_segments', 'int32'],
  ['source', 'dict'],
]

export const JOURNEY_STOP_LAYOUT: ColumnLayout = [
  ['rover', 'rover'],
  ['sol', 'int32'],
  ['site', 'int32'],
  ['drive', 'int32'],
  ['first_date', 'date'],
  ['photo_count', 'int32'],
  ['point', 'int32'],
]
