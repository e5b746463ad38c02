import type { PhotoColumns } from '../../src/store/schema'

// PLACEHOLDER CONTRACT: owned by the query engine. Called by the builder after photos.arrow is written.
/** Computes the access paths of `photos` (rows already in default order) and writes FILES.accessPaths into `dir`. */
export async function writeAccessPaths(_dir: string, _photos: PhotoColumns): Promise<void> {
  throw new Error('not implemented')
}
