/**
 * The tables the peers hold: the same rows as the column store, in the layout a user of an
 * SQL database would give them (the public service's own schema, behaviour.md §20): one row
 * per photo with rover and camera ids, a rovers table, and the derived locations and
 * panoramas materialised as tables (our index precomputes them too, so both sides only
 * filter and page them).
 *
 * Column order here is the order of the CSV files bench/peers/export-csv.ts writes.
 */
export type Dialect = 'duckdb' | 'postgres'

interface Column {
  name: string
  type: string
}

const cols = (spec: string): Column[] =>
  spec.trim().split(/\s*,\s*/).map((c) => {
    const [name, ...type] = c.split(/\s+/)
    return { name, type: type.join(' ') }
  })

/**
 * Photos. Times: date_taken_utc in ms since the epoch (as the store keeps it); taken_sort is our
 * sort key of it (src/query/order/sort-values.ts takenSortKey: a photo without a time sorts at the last
 * instant of its earth_date), which a user of a peer would store beside it to order "latest first".
 */
export const PHOTO_COLUMNS = cols(`
  id integer, rover_id smallint, camera_id smallint, camera text, nasa_id text, sol integer,
  earth_date date, date_taken_utc double precision, date_taken_mars text, mars_time_ms integer,
  sample_type text, width integer, height integer, site integer, drive integer,
  coord_x double precision, coord_y double precision, coord_z double precision,
  mast_az real, mast_el real, sclk double precision, image_dir text, image_small text,
  image_medium text, image_large text, image_full text, title text, caption text, credit text,
  sun_el real, sun_az real, solar_ls real,
  taken_sort double precision, stereo_partner integer, sequence text, lat double precision, lon double precision`)

export const LOCATION_COLUMNS = cols(`
  id text, rover_id smallint, site integer, drive integer, first_date date, last_date date,
  first_sol integer, last_sol integer, photo_count integer, visit_count integer,
  coord_x double precision, coord_y double precision, coord_z double precision`)

export const PANORAMA_COLUMNS = cols(`
  id text, rover_id smallint, sol integer, n integer, camera text, site integer, drive integer,
  coord_x double precision, coord_y double precision, coord_z double precision,
  mars_time_start text, mars_time_end text, total_photos integer, coverage_degrees double precision,
  avg_elevation double precision, unique_positions integer, avg_position_spacing double precision,
  quality text, photo_ids text`)

/** Columns a photo page returns (everything the JSON of a photo is made from). */
export const PHOTO_PAGE_COLUMNS = PHOTO_COLUMNS.filter((c) => c.name !== 'camera_id' && c.name !== 'mars_time_ms' && c.name !== 'taken_sort' && c.name !== 'lat' && c.name !== 'lon').map((c) => c.name).join(', ')

const table = (name: string, columns: Column[], extra = '') =>
  `CREATE TABLE ${name} (${columns.map((c) => `${c.name} ${c.type}`).join(', ')}${extra})`

/** DDL run before loading. */
export function createTables(): string[] {
  return [
    table('photos', PHOTO_COLUMNS, ', PRIMARY KEY (id)'),
    table('locations', LOCATION_COLUMNS, ', PRIMARY KEY (id)'),
    table('panoramas', PANORAMA_COLUMNS, ', PRIMARY KEY (id)'),
    'CREATE TABLE rovers (id smallint PRIMARY KEY, slug text)',
  ]
}

/**
 * The b-tree indexes of the public service the interface describes, plus the list
 * orders of locations and panoramas. PostgreSQL only: DuckDB answers from column scans and
 * zone maps (its ART indexes serve point lookups, which the primary key already gives).
 */
export const POSTGRES_INDEXES = [
  'CREATE INDEX ON photos (rover_id, sol)',
  'CREATE INDEX ON photos (rover_id, camera_id, sol)',
  'CREATE INDEX ON photos (sol)',
  'CREATE INDEX ON photos (earth_date)',
  'CREATE INDEX ON photos (date_taken_utc)',
  'CREATE INDEX ON photos (taken_sort)',
  'CREATE INDEX ON photos (nasa_id)',
  'CREATE INDEX ON photos (camera_id)',
  'CREATE INDEX ON photos (site, drive)',
  'CREATE INDEX ON photos (mast_az, mast_el)',
  'CREATE INDEX ON photos (sun_el)',
  // What a user would index for stereo=true, sequence=… and a latitude band around a centre.
  'CREATE INDEX ON photos (stereo_partner)',
  'CREATE INDEX ON photos (sequence)',
  'CREATE INDEX ON photos (lat, lon)',
  'CREATE INDEX ON locations (rover_id, first_sol)',
  'CREATE INDEX ON panoramas (rover_id, sol, n)',
]
