import { greatCircleM } from '../../geo/great-circle'
import type { Store } from '../../store/store'
import type { NearCircle, PhotoFilters } from '../scan/filters'
import { scanMatches, type PageRequest, type QueryOutcome } from './run-query'

/**
 * The page of `sort=distance`: every match of the filters (the circle among them bounds them to
 * the photos within 5 km of one place), nearest first, then id ascending. A cursor's position is
 * its last photo's distance and id: the distance is computed the same way every time, so rows
 * after it are exactly those farther away, or as far with a larger id.
 */
export function distancePage(store: Store, f: PhotoFilters & { near: NearCircle }, req: PageRequest): QueryOutcome {
  let rows = new Int32Array(1024)
  let total = 0
  const push = (r: number) => {
    if (total === rows.length) {
      const grown = new Int32Array(rows.length * 2)
      grown.set(rows)
      rows = grown
    }
    rows[total++] = r
  }
  scanMatches(store, f, {
    rows(sel, len) {
      for (let i = 0; i < len; i++) push(sel[i]!)
    },
    range(from, to) {
      for (let r = from; r < to; r++) push(r)
    },
  })
  // Distances by position in `rows`; the rows after the cursor kept in place.
  const id = store.photos.id
  const dist = new Float64Array(total)
  let m = 0
  const d0 = req.after ? (req.after.values[0] as number) : -Infinity
  const id0 = req.after ? req.after.id : 0
  for (let i = 0; i < total; i++) {
    const r = rows[i]!
    const d = distanceM(store, f.near, r)
    if (req.after && !(d > d0 || (d === d0 && id[r]! > id0))) continue
    rows[m] = r
    dist[m++] = d
  }
  const order = new Int32Array(m)
  for (let i = 0; i < m; i++) order[i] = i
  order.sort((a, b) => dist[a]! - dist[b]! || id[rows[a]!]! - id[rows[b]!]!)
  const from = req.after ? 0 : Math.min(req.offset, m)
  const page = order.subarray(from, Math.min(m, from + req.limit))
  return { total, rows: Int32Array.from(page, (k) => rows[k]!), plan: 'distance' }
}

/** Metres from the circle's centre to the photo's position (NaN without one). */
export function distanceM(store: Store, c: NearCircle, row: number): number {
  return greatCircleM(c.lon, c.lat, store.photos.lon[row]!, store.photos.lat[row]!)
}
