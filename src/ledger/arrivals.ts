import type { AccessPaths } from '../store/access-paths'
import type { Manifest, PhotoColumns } from '../store/schema'
import { readLedger, type Ledger } from './ledger-file'

/**
 * What the ledger says about the photos of one loaded index: per photo row its `added_at` and
 * its ledger position, and the rows in position order (the stream reads new photos from there).
 * Every worker and instance serving one version folder reads the same ledger copy, so they agree
 * on every position.
 *
 * An index published before ledgers existed has none: its photos count as added when it was
 * built (manifest built_at), in ascending id order; the first build with a ledger keeps that.
 */
export interface Arrivals {
  /** Positions the ledger holds (0 .. length-1); a later publish's photos come after. */
  length: number
  /** Per photo row: ms since the Unix epoch. */
  addedAt: Float64Array
  /** Per photo row: its ledger position. */
  position: Int32Array
  /** Photo rows ordered by ledger position. */
  rowsByPosition: Int32Array
}

export function loadArrivals(dir: string, manifest: Manifest, photos: PhotoColumns, paths: AccessPaths): Arrivals {
  return arrivalsFrom(readLedger(dir), Date.parse(manifest.built_at), photos, paths)
}

export function arrivalsFrom(ledger: Ledger | undefined, builtAt: number, photos: PhotoColumns, paths: AccessPaths): Arrivals {
  const n = photos.length
  const addedAt = new Float64Array(n).fill(NaN)
  const position = new Int32Array(n).fill(-1)
  let length = 0
  if (ledger) {
    for (let i = 0; i < ledger.length; i++) {
      const row = paths.rowOfId(ledger.id[i]!)
      if (row < 0) continue // a photo an earlier version held and this one does not
      addedAt[row] = ledger.added_at[i]!
      position[row] = i
    }
    length = ledger.length
  }
  // Photos the ledger lacks (no ledger at all, or a folder whose ledger was not kept with it):
  // added when this index was built, after every ledger position, in id order.
  const byId = paths.perm.id
  const fallback = Number.isFinite(builtAt) ? builtAt : 0
  for (let k = 0; k < byId.length; k++) {
    const row = byId[k]!
    if (position[row] >= 0) continue
    addedAt[row] = Math.max(fallback, length ? ledger!.added_at[ledger!.length - 1]! : 0)
    position[row] = length++
  }
  // Positions are unique, so one counting pass over them orders the rows.
  const slot = new Int32Array(length).fill(-1)
  for (let row = 0; row < n; row++) slot[position[row]!] = row
  const rowsByPosition = new Int32Array(n)
  let j = 0
  for (let pos = 0; pos < length; pos++) if (slot[pos]! >= 0) rowsByPosition[j++] = slot[pos]!
  return { length, addedAt, position, rowsByPosition }
}

/** Index into `rowsByPosition` of the first row at or after ledger position `from`. */
export function firstAtOrAfter(a: Arrivals, from: number): number {
  let lo = 0
  let hi = a.rowsByPosition.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a.position[a.rowsByPosition[mid]!]! < from) lo = mid + 1
    else hi = mid
  }
  return lo
}
