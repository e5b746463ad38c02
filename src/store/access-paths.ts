import type { PhotoColumns } from './schema'

// PLACEHOLDER CONTRACT: owned by the query engine (src/query). It fills this in.
/** Precomputed access paths over the photo table, loaded from FILES.accessPaths. */
export interface AccessPaths {
  /** Row of a photo id, or -1. */
  rowOfId(id: number): number
}

/** Reads FILES.accessPaths from `dir` (computing nothing heavy at start). */
export function loadAccessPaths(_dir: string, _photos: PhotoColumns): AccessPaths {
  throw new Error('not implemented')
}
