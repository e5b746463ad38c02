import type { Store } from '../../store/store'
import type { Order } from '../order/order'
import { partition } from '../plan/sources'

/**
 * The rows of an export in the requested order, produced chunk by chunk into a reusable
 * buffer, from a bitset of the matching rows (4 bytes per 32 rows of the table):
 *  - the default order is the stored row order: the set bits, ascending;
 *  - one sort key: that field's precomputed permutation (access paths), walked as stored
 *    (ascending) or by groups of equal values backwards (descending; ids ascending inside a
 *    group, absent values last), keeping the rows whose bit is set;
 *  - a distance from a centre: the rows in that order, found before the first byte (ListRows);
 *  - any other order: runs of matches sorted on their packed keys (or the order's comparator)
 *    a slice at a time with a yield to the event loop between slices, then merged lazily while
 *    the stream is read (sortedRuns).
 */
export interface RowCursor {
  /** Fills `out` with the next rows in order; 0 when none are left. */
  next(out: Int32Array): number
}

/** Bitset of the matching rows. */
export class RowBits {
  readonly words: Uint32Array
  constructor(readonly rows: number) {
    this.words = new Uint32Array((rows + 31) >>> 5)
  }
  has(row: number): boolean {
    return (this.words[row >>> 5]! & (1 << (row & 31))) !== 0
  }
  add(rows: Int32Array, len: number): void {
    const w = this.words
    for (let i = 0; i < len; i++) {
      const r = rows[i]!
      w[r >>> 5]! |= 1 << (r & 31)
    }
  }
  addRange(from: number, to: number): void {
    const w = this.words
    let r = from
    while (r < to && r & 31) { w[r >>> 5]! |= 1 << (r & 31); r++ }
    while (r + 32 <= to) { w[r >>> 5] = 0xffffffff; r += 32 }
    while (r < to) { w[r >>> 5]! |= 1 << (r & 31); r++ }
  }
}

/** Rows already in their order (a distance order: distance-page.ts). */
export class ListRows implements RowCursor {
  #at = 0
  constructor(readonly rows: Int32Array) {}
  next(out: Int32Array): number {
    const n = Math.min(out.length, this.rows.length - this.#at)
    out.set(this.rows.subarray(this.#at, this.#at + n))
    this.#at += n
    return n
  }
}

/** The set rows of `bits` ascending, at most `limit` of them. */
export class BitRows implements RowCursor {
  #word = 0
  #left: number
  #pending = 0
  constructor(readonly bits: RowBits, limit: number) {
    this.#left = limit
  }
  next(out: Int32Array): number {
    const words = this.bits.words
    const max = Math.min(out.length, this.#left)
    let n = 0
    let i = this.#word
    let w = this.#pending
    while (n < max) {
      if (w === 0) {
        if (++i > words.length) break
        w = words[i - 1]!
        // A full word: 32 rows in a row, written without bit tests.
        if (w === 0xffffffff && max - n >= 32) {
          const base = (i - 1) << 5
          for (let b = 0; b < 32; b++) out[n++] = base + b
          w = 0
        }
        continue
      }
      const t = w & -w
      out[n++] = ((i - 1) << 5) + 31 - Math.clz32(t)
      w = (w ^ t) >>> 0
    }
    this.#word = i
    this.#pending = w
    this.#left -= n
    return n
  }
}

/** One sort key through the field's permutation (Order.single): ascending as stored, descending by groups backwards. */
export class PermRows implements RowCursor {
  readonly #perm: Int32Array
  readonly #rank: ArrayLike<number> | undefined
  readonly #desc: boolean
  #left: number
  /** Ascending: next position. Descending: the current group [#gs, #ge) and the position in it. */
  #pos = 0
  #gs = 0
  #ge = 0
  /** Descending: first position of the absent values (walked last, ascending), and whether they are reached. */
  readonly #nullStart: number
  #inNulls = false

  constructor(store: Store, order: Order, readonly bits: RowBits, limit: number) {
    const key = order.single!
    this.#perm = store.paths.perm[key.field]
    this.#desc = key.desc
    this.#left = limit
    const n = this.#perm.length
    if (key.field === 'id') {
      this.#rank = undefined
      this.#nullStart = n
      if (this.#desc) this.#pos = n - 1
      return
    }
    const rank = (this.#rank = store.paths.rank[key.field])
    const d = store.paths.meta.distinct[key.field]
    const perm = this.#perm
    this.#nullStart = partition(0, n, (pos) => rank[perm[pos]!]! < d)
    if (this.#desc) {
      this.#ge = this.#nullStart
      this.#gs = this.#ge
      this.#pos = this.#ge
    }
  }

  next(out: Int32Array): number {
    const perm = this.#perm
    const bits = this.bits
    const max = Math.min(out.length, this.#left)
    let n = 0
    if (!this.#desc) {
      let pos = this.#pos
      while (n < max && pos < perm.length) {
        const r = perm[pos++]!
        if (bits.has(r)) out[n++] = r
      }
      this.#pos = pos
    } else if (!this.#rank) {
      let pos = this.#pos
      while (n < max && pos >= 0) {
        const r = perm[pos--]!
        if (bits.has(r)) out[n++] = r
      }
      this.#pos = pos
    } else {
      const rank = this.#rank
      while (n < max) {
        if (this.#pos >= this.#ge) {
          if (this.#inNulls) break
          if (this.#gs === 0) {
            // Every present group done: the absent values, in stored (id) order.
            this.#inNulls = true
            this.#pos = this.#nullStart
            this.#ge = perm.length
            continue
          }
          // The group before the current one: the positions holding the rank just below.
          this.#ge = this.#gs
          const g = rank[perm[this.#ge - 1]!]!
          let gs = this.#ge - 1
          while (gs > 0 && rank[perm[gs - 1]!] === g) gs--
          this.#gs = gs
          this.#pos = gs
          continue
        }
        const r = perm[this.#pos++]!
        if (bits.has(r)) out[n++] = r
      }
    }
    this.#left -= n
    return n
  }
}

/** Rows per sorted run: a slice sorts in a few milliseconds, so the event loop is never held longer. */
export const RUN_ROWS = 1 << 16

/**
 * The matches in any order: sorted a run at a time (yielding between runs), merged lazily by a
 * heap of run heads. Packed orders sort the runs' keys natively (Float64Array#sort) and map a
 * key back to its row; others sort row numbers with the order's comparator.
 */
export async function sortedRuns(order: Order, bits: RowBits, matches: number, limit: number, pause: () => Promise<void>): Promise<RowCursor> {
  const source = new BitRows(bits, matches)
  const chunk = new Int32Array(RUN_ROWS)
  const runs: number[] = []
  if (order.packed) {
    const keys = new Float64Array(matches)
    let at = 0
    for (let len; (len = source.next(chunk)) > 0; ) {
      const run = keys.subarray(at, at + len)
      order.fillKeys(chunk, len, run)
      run.sort()
      runs.push(at)
      at += len
      await pause()
    }
    runs.push(at)
    return new MergedRuns(runs, limit, (a, b) => keys[a]! - keys[b]!, (i) => order.rowOfKey(keys[i]!))
  }
  const rows = new Int32Array(matches)
  let at = 0
  for (let len; (len = source.next(chunk)) > 0; ) {
    rows.set(chunk.subarray(0, len), at)
    rows.subarray(at, at + len).sort(order.compareRows)
    runs.push(at)
    at += len
    await pause()
  }
  runs.push(at)
  return new MergedRuns(runs, limit, (a, b) => order.compareRows(rows[a]!, rows[b]!), (i) => rows[i]!)
}

/** k-way merge of sorted runs [starts[i], starts[i+1]) by a min-heap of the runs' current positions. */
class MergedRuns implements RowCursor {
  readonly #pos: Int32Array
  readonly #end: Int32Array
  readonly #heap: Int32Array
  #size = 0
  #left: number

  constructor(starts: number[], limit: number, readonly cmp: (a: number, b: number) => number, readonly rowAt: (i: number) => number) {
    const k = starts.length - 1
    this.#pos = new Int32Array(k)
    this.#end = new Int32Array(k)
    this.#heap = new Int32Array(k)
    this.#left = limit
    for (let i = 0; i < k; i++) {
      this.#pos[i] = starts[i]!
      this.#end[i] = starts[i + 1]!
      if (starts[i + 1]! > starts[i]!) this.#push(i)
    }
  }

  next(out: Int32Array): number {
    const max = Math.min(out.length, this.#left)
    const heap = this.#heap
    const pos = this.#pos
    let n = 0
    while (n < max && this.#size > 0) {
      const run = heap[0]!
      out[n++] = this.rowAt(pos[run]!)
      if (++pos[run]! < this.#end[run]!) this.#down(0)
      else {
        heap[0] = heap[--this.#size]!
        if (this.#size > 0) this.#down(0)
      }
    }
    this.#left -= n
    return n
  }

  #less(a: number, b: number): boolean {
    return this.cmp(this.#pos[a]!, this.#pos[b]!) < 0
  }

  #push(run: number): void {
    const heap = this.#heap
    let j = this.#size++
    heap[j] = run
    while (j > 0) {
      const parent = (j - 1) >> 1
      if (!this.#less(heap[j]!, heap[parent]!)) break
      const t = heap[j]!
      heap[j] = heap[parent]!
      heap[parent] = t
      j = parent
    }
  }

  #down(j: number): void {
    const heap = this.#heap
    const size = this.#size
    for (;;) {
      const l = 2 * j + 1
      if (l >= size) return
      const r = l + 1
      const c = r < size && this.#less(heap[r]!, heap[l]!) ? r : l
      if (!this.#less(heap[c]!, heap[j]!)) return
      const t = heap[j]!
      heap[j] = heap[c]!
      heap[c] = t
      j = c
    }
  }
}
