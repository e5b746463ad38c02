/**
 * Photo id -> row in a few memory reads. Ids are int32s (v1's ids, dense from 1 up to ~1.3 M,
 * and ids assigned from a hash of the image id, spread over [2^30, 2^31)), so they cannot all
 * index one array; a binary search over `perm_id` reads ~21 levels of two arrays (perm_id, then
 * the id column at that row), and once a page's rendering has pushed those levels out of the
 * cache, a batch of 100 ids spent more time finding its rows than writing them.
 *
 * Two parts, by id:
 * - The dense run: the longest run of the ids in ascending order, from the smallest, that fills
 *   at least half of its id range (v1's ids; every id of the synthetic catalogue). Their rows are
 *   an array indexed by id - smallest (-1 between them): one memory read.
 * - The rest: kept in ascending order in one array of their own, beside a directory that splits
 *   their id range into equal buckets (a power of two wide, BUCKET_LOAD / 2 to BUCKET_LOAD ids
 *   each on average) holding, per bucket, where its ids start in that order. A lookup reads the
 *   directory, searches its bucket's few ids (next to each other: one or two cache lines) and
 *   reads the row from `perm_id`. Buckets are cut from the id range, not from the ids, so a
 *   crowded bucket only makes its own search longer: the search is a binary search, never worse
 *   than the whole order's.
 *
 * Memory: at most 8 bytes per photo of the dense run; for the rest, 4 bytes per photo for the
 * ordered ids and at most 4 bytes per BUCKET_LOAD / 2 photos for the directory (their rows are a
 * view of perm_id). At 1.9 million photos, at most ~15 MB; made once per snapshot before it
 * serves (query/warm-snapshot.ts).
 */
const BUCKET_LOAD = 4
/** The dense run's id range is at most this many times its number of ids. */
const DENSE_SPAN_PER_ID = 2
/** #denseRow of an id outside the dense run's range: the directory decides. */
const OUTSIDE_RUN = -2

export class IdDirectory {
  /** Rows of the dense run by id - #denseMin; -1 where no photo has that id. */
  readonly #dense: Int32Array
  readonly #denseMin: number
  /** The other ids in ascending order. */
  readonly #sorted: Int32Array
  /** Their rows, in the same order (the end of perm_id). */
  readonly #byId: Int32Array
  /** Per bucket b, the first position in #sorted whose id lies in bucket b or after it; one more entry ends the last. */
  readonly #starts: Int32Array
  /** The directory's smallest and largest ids (max < min: it holds none). */
  readonly #min: number
  readonly #max: number
  readonly #shift: number

  /** `ids` is the photo table's id column, `byId` its rows in ascending id order (perm_id). */
  constructor(ids: Int32Array, byId: Int32Array) {
    const n = byId.length
    // The dense run: the first `from` ids in ascending order, the longest prefix whose id range is
    // at most DENSE_SPAN_PER_ID ids per photo (ids are distinct, so a prefix of one qualifies).
    const first = n > 0 ? ids[byId[0]] : 0
    let from = 0
    for (let k = 0; k < n; k++) if (ids[byId[k]] - first + 1 <= DENSE_SPAN_PER_ID * (k + 1)) from = k + 1
    this.#denseMin = first
    this.#dense = new Int32Array(from > 0 ? ids[byId[from - 1]] - first + 1 : 0).fill(-1)
    for (let k = 0; k < from; k++) this.#dense[ids[byId[k]] - first] = byId[k]

    // The rest, in ascending order, with their rows.
    const m = n - from
    const sorted = new Int32Array(m)
    for (let k = 0; k < m; k++) sorted[k] = ids[byId[from + k]]
    this.#sorted = sorted
    this.#byId = byId.subarray(from)
    this.#min = m > 0 ? sorted[0] : 0
    this.#max = m > 0 ? sorted[m - 1] : -1
    // The narrowest power-of-two bucket width that keeps the directory at most m / BUCKET_LOAD * 2
    // entries; at most 2^31, as >>> takes its count modulo 32 (then two buckets split the range).
    const span = this.#max - this.#min + 1 // up to 2^32, exact in a double
    let shift = 0
    while (shift < 31 && span / 2 ** shift > Math.max(1, (m / BUCKET_LOAD) * 2)) shift++
    this.#shift = shift
    const buckets = m > 0 ? Math.floor((span - 1) / 2 ** shift) + 1 : 0
    const starts = new Int32Array(buckets + 1)
    let k = 0
    for (let b = 0; b < buckets; b++) {
      starts[b] = k
      while (k < m && this.#bucket(sorted[k]) === b) k++
    }
    starts[buckets] = m
    this.#starts = starts
  }

  /** The bucket of an id within [min, max]: (id - min) is below 2^32, so >>> reads it unsigned. */
  #bucket(id: number): number {
    return (id - this.#min) >>> this.#shift
  }

  /**
   * The row of each of `ids` into `rows` (-1 for an id that is not there), in passes over all of
   * them (dense run or bucket bounds, search, row) instead of one lookup after another: the reads
   * of one pass do not depend on each other, so the processor has them in flight together, where
   * a lookup at a time waits for each of its reads in turn (a batch of 100 random ids: ~20 µs of
   * memory waits when the answer's writing has pushed the directory out of the cache).
   */
  rowsOf(ids: ArrayLike<number>, rows: Int32Array): void {
    const n = ids.length
    const starts = this.#starts
    // Dense ids get their row at once (ends[i] = -2). The others first get their bucket as
    // [rows[i], ends[i]); then ends[i] is their position in the order (-1: absent).
    const ends = new Int32Array(n)
    for (let i = 0; i < n; i++) {
      const id = ids[i]
      const dense = this.#denseRow(id)
      if (dense !== OUTSIDE_RUN) {
        rows[i] = dense
        ends[i] = -2
        continue
      }
      if (!(id >= this.#min && id <= this.#max)) {
        rows[i] = 0
        ends[i] = -1
        continue
      }
      const b = this.#bucket(id)
      rows[i] = starts[b]
      ends[i] = starts[b + 1]
    }
    for (let i = 0; i < n; i++) if (ends[i] >= 0) ends[i] = this.#find(ids[i], rows[i], ends[i])
    const byId = this.#byId
    for (let i = 0; i < n; i++) {
      const e = ends[i]
      if (e !== -2) rows[i] = e < 0 ? -1 : byId[e]
    }
  }

  /** Row of a photo id, or -1. */
  rowOf(id: number): number {
    const dense = this.#denseRow(id)
    if (dense !== OUTSIDE_RUN) return dense
    if (!(id >= this.#min && id <= this.#max)) return -1
    const b = this.#bucket(id)
    const k = this.#find(id, this.#starts[b], this.#starts[b + 1])
    return k < 0 ? -1 : this.#byId[k]
  }

  /** The row of an id within the dense run's range (-1: no photo has it, a fraction included), or OUTSIDE_RUN. */
  #denseRow(id: number): number {
    const d = id - this.#denseMin
    if (!(d >= 0 && d < this.#dense.length)) return OUTSIDE_RUN
    return (d | 0) === d ? this.#dense[d] : -1
  }

  /** The position of `id` among the directory's ids, searched within [lo, hi) (its bucket); -1 when absent. */
  #find(id: number, lo: number, hi: number): number {
    const sorted = this.#sorted
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (sorted[mid] < id) lo = mid + 1
      else hi = mid
    }
    return lo < sorted.length && sorted[lo] === id ? lo : -1
  }

  /** Photos found by the dense run's array, and bytes it takes (tests, the memory note above). */
  get denseRun(): { photos: number; bytes: number } {
    let photos = 0
    for (let i = 0; i < this.#dense.length; i++) if (this.#dense[i] >= 0) photos++
    return { photos, bytes: this.#dense.byteLength }
  }
}
