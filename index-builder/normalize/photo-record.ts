import type { RoverSlug } from '../../src/catalog/rovers'

/**
 * One normalised photo, the hand-off between the source readers (sources/, normalize/) and the
 * encoder (encode/). Every optional field is left out when the source does not give it and it
 * cannot be derived from what the source gives (never invented).
 */
export interface PhotoRecord {
  /** Public int32 photo id: the source's numeric id where it has one (v1 `id`), else assigned stably from nasa_id by the builder. */
  id?: number
  rover: RoverSlug
  /** Camera abbreviation as in src/catalog/cameras.ts (upper-case, mapped from feed instrument names). */
  camera: string
  /** NASA image id (file stem of the full image, without extension and size suffix; Perseverance without the product version, src/catalog/nasa-id-form.ts). */
  nasa_id: string
  /** The image id as the record states it, where nasa_id is another form of it: an assigned id is computed from this one, so no photo's number changes with the form served. */
  id_key?: string
  sol: number
  /** UTC date of capture, YYYY-MM-DD. */
  earth_date: string
  /** Capture time, ms since Unix epoch (UTC). */
  date_taken_utc?: number
  /** "Sol-NNNNNMhh:mm:ss[.fff]": verbatim from the record, or derived (Mars24 LMST). */
  date_taken_mars?: string
  /** Local mean solar time of day in ms (0..86399999), consistent with date_taken_mars. */
  mars_time_ms?: number
  /** Canonical: Full | Subframe | Thumbnail | Downsampled | ... (capitalised). */
  sample_type?: string
  width?: number
  height?: number
  site?: number
  drive?: number
  xyz?: [number, number, number]
  mast_azimuth?: number
  mast_elevation?: number
  /** The sun as the record states it: degrees above the local horizon, from north clockwise; the season (Ls, degrees). */
  sun_elevation?: number
  sun_azimuth?: number
  solar_longitude?: number
  /** Spacecraft clock, seconds. */
  sclk?: number
  /** The observation sequence the record states (a PDS label's SEQUENCE_ID), as written there. */
  sequence_id?: string
  /** When the image reached Earth, ms since Unix epoch (UTC), as the record states it (NASA's `date_received`). */
  date_received?: number
  /** Absolute image URLs by size. */
  images: { small?: string; medium?: string; large?: string; full?: string }
  title?: string
  caption?: string
  credit?: string
  /** The source record as JSON text (kept for field_set=complete). */
  raw?: string
  /** Instead of `raw` in a build: where that text is in the build's stash (encode/raw-file.ts RawStash), and its bytes. */
  raw_at?: number
  raw_bytes?: number
  /** Which source file the record came from (path as given to the builder). */
  source: string
}

