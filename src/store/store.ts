import type { JourneyStopColumns, LocationColumns, Manifest, PanoramaColumns, PhotoColumns, SolManifestColumns, TraverseColumns } from './schema'
import type { AccessPaths } from './access-paths'
import type { Arrivals } from '../ledger/arrivals'

/**
 * One loaded index: an immutable snapshot. Nothing in it changes after load; a new index is a
 * new Store, swapped in by the StoreHolder while requests in flight finish on the old one.
 */
export interface Store {
  /** Real path of the version folder this snapshot was loaded from. */
  dir: string
  manifest: Manifest
  /** manifest.version: part of every ETag and cache key. */
  version: string
  photos: PhotoColumns
  /**
   * Rover slugs by rover code: the dictionary of the photo table's rover column (the loader
   * accepts only the catalogue's, src/catalog/rovers.ts). Whatever counts per rover sizes its
   * rover dimension from this list, so a rover added to the catalogue needs no other edit.
   */
  rovers: readonly string[]
  locations: LocationColumns
  panoramas: PanoramaColumns
  /** Photos per (rover, sol, earth_date, camera): the mission manifests. */
  solManifest: SolManifestColumns
  /** Rover traverses from the waypoint tables (index-builder/derive/traverses.ts). */
  traverses: TraverseColumns
  /** Photos grouped by (rover, sol, site, drive) (index-builder/derive/journey-stops.ts). */
  journeyStops: JourneyStopColumns
  /** Precomputed access paths of the query engine (sort permutations, rover/sol ranges, id lookup). */
  paths: AccessPaths
  /** The arrival ledger's view of these photos: added_at and ledger position per row (src/ledger/arrivals.ts). */
  arrivals: Arrivals
  /** Milliseconds the load took. */
  loadMs: number
}
