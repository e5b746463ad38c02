import { firstAtOrAfter } from '../ledger/arrivals'
import { compileFilters, type PhotoFilters } from '../query/scan/filters'
import { RowTest } from '../query/scan/row-test'
import type { Store } from '../store/store'

/**
 * The photos of a snapshot that came after a ledger position and match some photo filters, in
 * ledger order, a bounded batch at a time: what a photo stream sends next, whether it is catching
 * up after a reconnect or following a reload. Ledger positions are the events' ids, the same on
 * every worker and instance serving one version folder (src/ledger/ledger-file.ts).
 */
export interface NewPhotos {
  /** Matching rows, in ledger order. */
  rows: Int32Array
  /** Ledger position of each row. */
  positions: Int32Array
  /** The last position looked at: the next batch starts after it (nothing skipped in between matched). */
  scannedTo: number
}

/** Positions read per batch at most: bounds a batch's time and memory however far behind a client is. */
const SCAN = 16_384

export function newPhotosAfter(store: Store, filters: PhotoFilters, after: number, max: number): NewPhotos {
  const a = store.arrivals
  const compiled = compileFilters(store.photos, store.paths.nasaIdFolded, filters, store.paths.aspectRatio)
  const from = firstAtOrAfter(a, after + 1)
  const to = Math.min(a.rowsByPosition.length, from + SCAN)
  if (compiled.empty || from >= to) return { rows: new Int32Array(0), positions: new Int32Array(0), scannedTo: compiled.empty ? Math.max(after, a.length - 1) : after }
  const test = new RowTest([...compiled.byName.values()])
  const out = new Int32Array(to - from)
  let n = test.scan(from, to, a.rowsByPosition, out, 0)
  let scannedTo = a.position[a.rowsByPosition[to - 1]!]!
  if (n > max) {
    n = max
    scannedTo = a.position[out[n - 1]!]!
  }
  const rows = out.slice(0, n)
  const positions = new Int32Array(n)
  for (let i = 0; i < n; i++) positions[i] = a.position[rows[i]!]!
  return { rows, positions, scannedTo }
}

/** The position a stream starts after: the client's Last-Event-ID when it sent a valid one, else the newest already published. */
export function startAfter(store: Store, lastEventId: string | null): number {
  if (lastEventId !== null && /^\d{1,10}$/.test(lastEventId.trim())) {
    const n = Number(lastEventId.trim())
    if (n <= 2 ** 31) return n
  }
  return store.arrivals.length - 1
}

/** The last ledger position the snapshot holds a photo at, or -1. */
export function lastPosition(store: Store): number {
  const a = store.arrivals
  const n = a.rowsByPosition.length
  return n === 0 ? -1 : a.position[a.rowsByPosition[n - 1]!]!
}
