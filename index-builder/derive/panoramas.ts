import type { PanoramaColumns, PhotoColumns } from '../../src/store/schema'

// PLACEHOLDER CONTRACT: owned by the locations/panoramas work.
/** Panoramas detected per behaviour.md §15.2, numbered per (rover, sol) from 1 in time order. */
export function derivePanoramas(_photos: PhotoColumns): PanoramaColumns {
  throw new Error('not implemented')
}
