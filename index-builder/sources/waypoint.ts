import type { RoverSlug } from '../../src/catalog/rovers'

/**
 * A rover position keyed by its rover motion counter (site, drive), from the location tables
 * (MMGIS waypoint layers for MSL and M2020, the MER drive/site/traverse tables for Spirit). Only what
 * the table states is set. Coordinates: lon/lat in degrees east/north, elevation in metres; x/y are the
 * MER tables' corrected map coordinates in metres.
 */
export interface Waypoint {
  rover: RoverSlug
  site: number
  drive: number
  /** Sol of the waypoint (MMGIS), or the first sol at this position (MER tables). */
  sol?: number
  last_sol?: number
  pose?: number
  lon?: number
  lat?: number
  elevation_m?: number
  easting?: number
  northing?: number
  x?: number
  y?: number
  dist_total_m?: number
  /** Reader format and file it came from. */
  format: string
  source: string
}

/** A traverse line layer: counted, not used per photo. */
export interface TraverseSummary {
  rover: RoverSlug
  source: string
  segments: number
  points: number
  length_m?: number
}
