import { greatCircleM } from '../geo/great-circle'
import type { Store } from '../store/store'
import type { NearCircle, PhotoFilters } from './filters'
import { scanMatches, type PageRequest, type QueryOutcome } from './run-query'

/**
 * The page of `sort=distance`: every match of the filters (the circle among them bounds them to
 * the photos within 5 km of one place), nearest first, then id ascending. A cursor's position is
 * its last photo's distance and id: the distance is computed the same way every time, so rows
 * after it are exactly those farther away, or as far with a larger id.
 */
export function distancePage(store: Store, f: PhotoFilters & { near: NearCircle }, req: PageRequest): QueryOutcome {
  const rows: number[] = []
  scanMatches(store, f, {
    rows(sel, len) {
      for (let i = 0; i < len; i++) rows.push(sel[i]!)
    },
    range(from, to) {
      for (let r = from; r < to; r++) rows.push(r)
    },
  })
  const total = rows.length
  const dist = new Map<number, number>()
  for (const r of rows) dist.set(r, distanceM(store, f.near, r))
  const id = store.photos.id
  let kept = rows
  if (req.after) {
    const d0 = req.after.values[0] as number
    const id0 = req.after.id
    kept = rows.filter((r) => dist.get(r)! > d0 || (dist.get(r) === d0 && id[r]! > id0))
  }
  kept.sort((a, b) => dist.get(a)! - dist.get(b)! || id[a]! - id[b]!)
  const from = req.after ? 0 : req.offset
  return { total, rows: Int32Array.from(kept.slice(from, from + req.limit)), plan: 'distance' }
}

/** Metres from the circle's centre to the photo's position (NaN without one). */
export function distanceM(store: Store, c: NearCircle, row: number): number {
  return greatCircleM(c.lon, c.lat, store.photos.lon[row]!, store.photos.lat[row]!)
}
