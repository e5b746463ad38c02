import { greatCircleM } from '../../geo/great-circle'
import type { Store } from '../../store/store'
import type { NearCircle, PhotoFilters } from '../scan/filters'
import { scanMatches, type PageRequest, type QueryOutcome } from './run-query'
import { planQuery } from '../plan/query-plan'
import { firstRun, POSITION_SOURCE, positionCells } from '../plan/position-cells'
import type { Source } from '../plan/sources'
import { RowTest } from '../scan/row-test'

/**
 * The page of `sort=distance`: the matches of the filters (the circle among them bounds them to
 * the photos within 5 km of one place, found through the position cells, sources.ts), nearest
 * first, then id ascending. Only the first offset + limit are kept while the matches stream by
 * (a bounded max-heap on (distance, id)), so the cost is one distance per match and a log of the
 * page per kept one, not a sort of every match. A cursor's position is its last photo's distance
 * and id: the distance is computed the same way every time, so rows after it are exactly those
 * farther away, or as far with a larger id.
 */
export function distancePage(store: Store, f: PhotoFilters & { near: NearCircle }, req: PageRequest): QueryOutcome {
  const id = store.photos.id
  const d0 = req.after ? (req.after.values[0] as number) : -Infinity
  const id0 = req.after ? req.after.id : 0
  const from = req.after ? 0 : req.offset
  // The heap grows only with the rows offered, so a deep page costs at most the matches.
  const heap = new TopK(from + req.limit, id)
  const prep = planQuery(store, f)
  if (prep.empty) return { total: 0, rows: new Int32Array(0), plan: 'empty' }
  if (prep.best.label === POSITION_SOURCE && !prep.marked) return byRuns(store, f.near, prep.best, prep.residual.length === 0 ? undefined : new RowTest(prep.residual), heap, req, from)
  let total = 0
  // One great circle per run of rows at one position (the photos of one stop sit together), and
  // a row farther than the page's farthest kept one is dropped without touching the heap.
  const { lat, lon } = store.photos
  const after = req.after !== undefined
  let lastLat = NaN
  let lastLon = NaN
  let d = NaN
  const { lat: y0, lon: x0 } = f.near
  const take = (sel: Int32Array | null, from: number, to: number) => {
    total += to - from
    // Locals in the loop, the run's state written back once per chunk.
    let worst = heap.worst()
    let worstId = heap.worstId()
    let pLat = lastLat
    let pLon = lastLon
    let pd = d
    // Backwards: ids rise with mission time and the table is newest first, so within a run of
    // one position (one distance) the rows come in ascending id and the ties after a full page
    // are dropped by one comparison instead of each sifting through the heap.
    for (let i = to - 1; i >= from; i--) {
      const r = sel === null ? i : sel[i]!
      const la = lat[r]!
      const lo = lon[r]!
      if (la !== pLat || lo !== pLon) {
        pLat = la
        pLon = lo
        pd = greatCircleM(x0, y0, lo, la)
      }
      if (pd > worst || (pd === worst && id[r]! > worstId)) continue
      if (after && !(pd > d0 || (pd === d0 && id[r]! > id0))) continue
      heap.offer(r, pd)
      worst = heap.worst()
      worstId = heap.worstId()
    }
    lastLat = pLat
    lastLon = pLon
    d = pd
  }
  scanMatches(store, f, {
    rows(sel, len) {
      take(sel, 0, len)
    },
    range(a, b) {
      take(null, a, b)
    },
  })
  const sorted = heap.sorted()
  return { total, rows: sorted.subarray(Math.min(from, sorted.length), Math.min(sorted.length, from + req.limit)), plan: 'distance' }
}

/** The k nearest rows offered, as a max-heap on (distance, id): the root is the one to drop first. */
class TopK {
  private rows: Int32Array
  private dist: Float64Array
  private n = 0
  constructor(private k: number, private id: Int32Array) {
    this.rows = new Int32Array(Math.min(k, 1024))
    this.dist = new Float64Array(this.rows.length)
  }

  /** Whether (da, row a) comes after (db, row b) in the page's order. */
  private after(da: number, a: number, db: number, b: number): boolean {
    return da > db || (da === db && this.id[a]! > this.id[b]!)
  }

  /** The distance a row must not exceed to be kept (Infinity until the heap is full). */
  worst(): number {
    return this.n < this.k ? Infinity : this.dist[0]!
  }

  /** The id of the row that would be dropped first (+Infinity until the heap is full). */
  worstId(): number {
    return this.n < this.k ? Infinity : this.id[this.rows[0]!]!
  }

  offer(r: number, d: number): void {
    if (this.k === 0) return
    if (this.n < this.k) {
      if (this.n === this.rows.length) this.grow()
      let i = this.n++
      while (i > 0) {
        const parent = (i - 1) >> 1
        if (!this.after(d, r, this.dist[parent]!, this.rows[parent]!)) break
        this.rows[i] = this.rows[parent]!
        this.dist[i] = this.dist[parent]!
        i = parent
      }
      this.rows[i] = r
      this.dist[i] = d
      return
    }
    if (!this.after(this.dist[0]!, this.rows[0]!, d, r)) return
    this.siftDown(r, d, this.n)
  }

  /** Puts (r, d) at the root of the first n entries and sifts it down. */
  private siftDown(r: number, d: number, n: number): void {
    let i = 0
    for (;;) {
      let c = 2 * i + 1
      if (c >= n) break
      if (c + 1 < n && this.after(this.dist[c + 1]!, this.rows[c + 1]!, this.dist[c]!, this.rows[c]!)) c++
      if (!this.after(this.dist[c]!, this.rows[c]!, d, r)) break
      this.rows[i] = this.rows[c]!
      this.dist[i] = this.dist[c]!
      i = c
    }
    this.rows[i] = r
    this.dist[i] = d
  }

  private grow(): void {
    const rows = new Int32Array(Math.min(this.k, this.rows.length * 2))
    const dist = new Float64Array(rows.length)
    rows.set(this.rows)
    dist.set(this.dist)
    this.rows = rows
    this.dist = dist
  }

  /** The kept rows nearest first (heap sort in place: the heap is spent). */
  sorted(): Int32Array {
    for (let end = this.n - 1; end > 0; end--) {
      const r = this.rows[end]!
      const d = this.dist[end]!
      this.rows[end] = this.rows[0]!
      this.dist[end] = this.dist[0]!
      this.siftDown(r, d, end)
    }
    return this.rows.subarray(0, this.n)
  }
}

/**
 * The same page from the runs of the position cells (position-cells.ts) inside the circle: one
 * distance per run (its photos stand at one place), the runs nearest first; a run's rows go
 * through the other filters and into the heap only while it can still hold them, so after the
 * page is full a farther run costs its count only (its size when no other filter applies).
 */
function byRuns(store: Store, c: NearCircle, src: Source, test: RowTest | undefined, heap: TopK, req: PageRequest, from: number): QueryOutcome {
  const { perm, runs } = positionCells(store)
  const { lat, lon, id } = store.photos
  const starts: number[] = []
  for (let i = 0; i < src.slices.length; i += 2) {
    for (let k = firstRun(runs, src.slices[i]!); runs[k]! < src.slices[i + 1]!; k++) starts.push(runs[k]!)
  }
  const dist = new Float64Array(starts.length)
  for (let j = 0; j < starts.length; j++) {
    const r = perm[starts[j]!]!
    dist[j] = greatCircleM(c.lon, c.lat, lon[r]!, lat[r]!)
  }
  const order = Array.from(starts.keys()).sort((a, b) => dist[a]! - dist[b]!)
  const d0 = req.after ? (req.after.values[0] as number) : -Infinity
  const id0 = req.after ? req.after.id : 0
  let buf = new Int32Array(1024)
  let total = 0
  for (const j of order) {
    const a = starts[j]!
    const b = runs[firstRun(runs, a) + 1]!
    const d = dist[j]!
    const keep = d <= heap.worst() && !(req.after && d < d0)
    if (!keep && !test) { total += b - a; continue }
    if (buf.length < b - a) buf = new Int32Array(b - a)
    let m = b - a
    if (test) m = test.scan(a, b, perm, buf, 0)
    else buf.set(perm.subarray(a, b))
    total += m
    if (!keep) continue
    // Backwards: the table is newest first and ids rise with mission time, so a run's rows come
    // in ascending id and, once the page is full, the rest of the run fails one comparison.
    let worst = heap.worst()
    let worstId = heap.worstId()
    for (let i = m - 1; i >= 0; i--) {
      const r = buf[i]!
      if (d > worst || (d === worst && id[r]! > worstId)) continue
      if (req.after && d === d0 && id[r]! <= id0) continue
      heap.offer(r, d)
      worst = heap.worst()
      worstId = heap.worstId()
    }
  }
  const sorted = heap.sorted()
  return { total, rows: sorted.subarray(Math.min(from, sorted.length), Math.min(sorted.length, from + req.limit)), plan: 'distance-runs' }
}

/** Metres from the circle's centre to the photo's position (NaN without one). */
export function distanceM(store: Store, c: NearCircle, row: number): number {
  return greatCircleM(c.lon, c.lat, store.photos.lon[row]!, store.photos.lat[row]!)
}
