import type { LocationColumns, PhotoColumns } from '../../src/store/schema'

// PLACEHOLDER CONTRACT: owned by the locations/panoramas work.
/** One location per (rover, site, drive) from photos that have both (decisions.md, Locations). */
export function deriveLocations(_photos: PhotoColumns): LocationColumns {
  throw new Error('not implemented')
}
