/**
 * Photo id -> row in a few memory reads. Ids are int32s spread over the whole range (each is
 * computed from its record's stated id), so they cannot index an array; a binary search over
 * `perm_id` reads ~21 levels of two arrays (perm_id, then the id column at that row), and once a
 * page's rendering has pushed those levels out of the cache, a batch of 100 ids spent more time
 * finding its rows than writing them.
 *
 * Here the ids are kept in ascending order in one array of their own, and a directory splits the
 * id range into equal buckets (a power of two wide, BUCKET_LOAD / 2 to BUCKET_LOAD ids each on
 * average) with,
 * per bucket, where its ids start in that order. A lookup reads the directory, searches its
 * bucket's few ids (next to each other: one or two cache lines) and reads the row from
 * `perm_id`. Buckets are cut from the id range, not from the ids, so a crowded bucket only makes
 * its own search longer: the search is a binary search, never worse than the whole order's.
 *
 * Memory: 4 bytes per photo for the ordered ids, and at most 4 bytes per BUCKET_LOAD / 2 photos
 * for the directory (at most ~11 MB at 1.9 million photos), made once per snapshot before it
 * serves (query/warm-snapshot.ts).
 */
const BUCKET_LOAD = 4

export class IdDirectory {
  /** The ids in ascending order (ids[perm_id[k]]). */
  readonly #sorted: Int32Array
  /** perm_id: the rows in ascending id order. */
  readonly #byId: Int32Array
  /** Per bucket b, the first position in #sorted whose id lies in bucket b or after it; one more entry ends the last. */
  readonly #starts: Int32Array
  readonly #min: number
  readonly #max: number
  readonly #shift: number

  /** `ids` is the photo table's id column, `byId` its rows in ascending id order (perm_id). */
  constructor(ids: Int32Array, byId: Int32Array) {
    const n = byId.length
    const sorted = new Int32Array(n)
    for (let k = 0; k < n; k++) sorted[k] = ids[byId[k]]
    this.#sorted = sorted
    this.#byId = byId
    this.#min = n > 0 ? sorted[0] : 0
    this.#max = n > 0 ? sorted[n - 1] : -1
    // The narrowest power-of-two bucket width that keeps the directory at most n / BUCKET_LOAD * 2
    // entries; at most 2^31, as >>> takes its count modulo 32 (then two buckets split the range).
    const span = this.#max - this.#min + 1 // up to 2^32, exact in a double
    let shift = 0
    while (shift < 31 && span / 2 ** shift > Math.max(1, (n / BUCKET_LOAD) * 2)) shift++
    this.#shift = shift
    const buckets = n > 0 ? Math.floor((span - 1) / 2 ** shift) + 1 : 0
    const starts = new Int32Array(buckets + 1)
    let k = 0
    for (let b = 0; b < buckets; b++) {
      starts[b] = k
      while (k < n && this.#bucket(sorted[k]) === b) k++
    }
    starts[buckets] = n
    this.#starts = starts
  }

  /** The bucket of an id within [min, max]: (id - min) is below 2^32, so >>> reads it unsigned. */
  #bucket(id: number): number {
    return (id - this.#min) >>> this.#shift
  }

  /**
   * The row of each of `ids` into `rows` (-1 for an id that is not there), in three passes over
   * all of them (bucket bounds, search, row) instead of one lookup after another: the reads of one
   * pass do not depend on each other, so the processor has them in flight together, where a lookup
   * at a time waits for each of its three reads in turn (a batch of 100 random ids: ~20 µs of
   * memory waits when the answer's writing has pushed the directory out of the cache).
   */
  rowsOf(ids: ArrayLike<number>, rows: Int32Array): void {
    const n = ids.length
    const starts = this.#starts
    const sorted = this.#sorted
    // First each id's bucket as [rows[i], ends[i]); then ends[i] is its position in the order (-1: absent).
    const ends = new Int32Array(n)
    for (let i = 0; i < n; i++) {
      const id = ids[i]
      if (!(id >= this.#min && id <= this.#max)) {
        rows[i] = 0
        ends[i] = -1
        continue
      }
      const b = this.#bucket(id)
      rows[i] = starts[b]
      ends[i] = starts[b + 1]
    }
    for (let i = 0; i < n; i++) {
      let lo = rows[i]
      let hi = ends[i]
      if (hi < 0) continue
      const id = ids[i]
      while (lo < hi) {
        const mid = (lo + hi) >>> 1
        if (sorted[mid] < id) lo = mid + 1
        else hi = mid
      }
      ends[i] = lo < sorted.length && sorted[lo] === id ? lo : -1
    }
    const byId = this.#byId
    for (let i = 0; i < n; i++) rows[i] = ends[i] < 0 ? -1 : byId[ends[i]]
  }

  /** Row of a photo id, or -1. */
  rowOf(id: number): number {
    if (!(id >= this.#min && id <= this.#max)) return -1
    const b = this.#bucket(id)
    const sorted = this.#sorted
    let lo = this.#starts[b]
    let hi = this.#starts[b + 1]
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (sorted[mid] < id) lo = mid + 1
      else hi = mid
    }
    return lo < sorted.length && sorted[lo] === id ? this.#byId[lo] : -1
  }
}
