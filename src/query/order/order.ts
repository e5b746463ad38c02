import type { AccessPaths, RankArray, SortField } from '../../store/access-paths'
import type { PhotoColumns } from '../../store/schema'
import { partition } from '../plan/sources'
import { compareValues, sortValue, type SortValue } from './sort-values'

/**
 * A requested sort order (decisions.md, Sorting): the listed keys, then `id` ascending as the
 * final tie-breaker, absent values last in both directions. Rows are ordered through the
 * offline ranks (access paths), packed into one exact double per row:
 *
 *     key = K * n + idRank,  K = mixed-radix number of the per-field ranks (absent = last),
 *                            idRank = the row's position in perm_id (n = number of rows)
 *
 * so page selection compares plain numbers, and a key maps back to its row with one array
 * read. A prefix of the keys always packs (`prefixSpan`); when the whole order does not fit in
 * 2^53, selection packs the prefix and resolves its ties with the comparator (select-page.ts).
 * The default order (-date_taken_utc) is the row order itself, so its key is the row number.
 */
export interface SortKey {
  field: SortField
  desc: boolean
}

export const DEFAULT_SORT: SortKey[] = [{ field: 'date_taken_utc', desc: true }]

const EXACT = 2 ** 53

interface RankPart {
  field: Exclude<SortField, 'id'>
  rank: RankArray
  /** Distinct present values; rank === d means absent. */
  d: number
  desc: boolean
  /** Radix weight of this part in K. */
  weight: number
}

export class Order {
  /** Effective keys: the request's, cut after `id` (nothing after a unique key matters). */
  readonly keys: SortKey[]
  /** The stored row order (-date_taken_utc, id): keys are row numbers. */
  readonly isDefault: boolean
  /** One key: walkable through that field's permutation. */
  readonly single?: SortKey
  /** The whole order packs into one key per row. */
  readonly packed: boolean
  readonly #parts: RankPart[]
  /** Leading parts that pack into a prefix key (all of them when `packed`). */
  readonly #prefix: number
  /** id direction when `id` is an explicit key; ascending when it is only the tie-breaker. */
  readonly #idDesc: boolean
  readonly #n: number

  /** `exact` is the largest key span that packs (2^53; tests lower it to reach the unpacked path). */
  constructor(keys: SortKey[], readonly photos: PhotoColumns, readonly paths: AccessPaths, exact = EXACT) {
    const cut = keys.findIndex((k) => k.field === 'id')
    this.keys = cut >= 0 ? keys.slice(0, cut + 1) : keys
    this.isDefault = this.keys.length === 1 && this.keys[0].field === 'date_taken_utc' && this.keys[0].desc
    this.single = this.keys.length === 1 ? this.keys[0] : undefined
    this.#idDesc = !!this.keys.find((k) => k.field === 'id')?.desc
    this.#n = Math.max(1, photos.length)
    const parts: RankPart[] = []
    for (const k of this.keys) {
      if (k.field === 'id') break
      parts.push({ field: k.field, rank: paths.rank[k.field], d: paths.meta.distinct[k.field], desc: k.desc, weight: 0 })
    }
    // How many leading parts fit with the id rank below them.
    let span = this.#n
    let prefix = 0
    while (prefix < parts.length && span * (parts[prefix].d + 1) <= exact) span *= parts[prefix++].d + 1
    let w = 1
    for (let i = prefix - 1; i >= 0; i--) { parts[i].weight = w; w *= parts[i].d + 1 }
    this.#parts = parts
    this.#prefix = prefix
    this.packed = this.isDefault || prefix === parts.length
  }

  /** Packed keys of sel[0..len) into out (only when `packed`). Smaller key = earlier. */
  fillKeys(sel: Int32Array, len: number, out: Float64Array): void {
    if (this.isDefault) {
      for (let i = 0; i < len; i++) out[i] = sel[i]
      return
    }
    const idRank = this.paths.idRank()
    const n = this.#n
    const parts = this.#parts
    if (parts.length === 0) {
      if (this.#idDesc) for (let i = 0; i < len; i++) out[i] = n - 1 - idRank[sel[i]]
      else for (let i = 0; i < len; i++) out[i] = idRank[sel[i]]
      return
    }
    if (parts.length === 1 && !this.#idDesc) {
      const { rank, d, desc } = parts[0]
      if (desc) {
        for (let i = 0; i < len; i++) {
          const r = sel[i]
          const k = rank[r]
          out[i] = (k === d ? d : d - 1 - k) * n + idRank[r]
        }
      } else {
        for (let i = 0; i < len; i++) {
          const r = sel[i]
          out[i] = rank[r] * n + idRank[r]
        }
      }
      return
    }
    for (let i = 0; i < len; i++) out[i] = this.keyOf(sel[i])
  }

  /** Packed key of one row (only when `packed`). */
  keyOf(row: number): number {
    if (this.isDefault) return row
    const ir = this.paths.idRank()[row]
    return this.#prefixKey(row) * this.#n + (this.#idDesc ? this.#n - 1 - ir : ir)
  }

  /** Mixed-radix number of the packable leading parts (no id): ties of the whole order stay ties. */
  prefixKey(row: number): number {
    return this.#prefixKey(row)
  }

  #prefixKey(row: number): number {
    let k = 0
    for (let i = 0; i < this.#prefix; i++) {
      const p = this.#parts[i]
      const v = p.rank[row]
      k += (v === p.d || !p.desc ? v : p.d - 1 - v) * p.weight
    }
    return k
  }

  /** Row of a packed key. */
  rowOfKey(key: number): number {
    if (this.isDefault) return key
    let ir = key % this.#n
    if (this.#idDesc) ir = this.#n - 1 - ir
    return this.paths.perm.id[ir]
  }

  /** Comparator of the whole order (any order; used where keys do not pack). */
  compareRows = (a: number, b: number): number => {
    if (this.isDefault) return a - b
    for (const p of this.#parts) {
      const va = p.rank[a]
      const vb = p.rank[b]
      if (va !== vb) {
        if (va === p.d) return 1
        if (vb === p.d) return -1
        return p.desc ? vb - va : va - vb
      }
    }
    const d = this.photos.id[a] - this.photos.id[b]
    return this.#idDesc ? -d : d
  }

  /**
   * The packed-key bound of a cursor position: rows after it are exactly those whose key is
   * >= the bound (only when `packed`). Computed from values, so it holds on a rebuilt index:
   * each cursor value is placed among this index's distinct values by binary search; a value
   * the index no longer has falls between two ranks, and from there on nothing ties.
   */
  cursorBound(values: SortValue[], id: number): number {
    if (this.isDefault) return partitionRows(this, values, id)
    let k = 0
    let exact = true
    for (let i = 0; i < this.#parts.length; i++) {
      const part = this.#parts[i]
      let ki = 0
      if (exact) {
        const { rank: r, present } = this.#placeValue(part, values[i])
        if (present) ki = r === part.d || !part.desc ? r : part.d - 1 - r
        else {
          // r = how many distinct values sort below the cursor's value (ascending).
          ki = part.desc ? part.d - r : r
          exact = false
        }
      }
      k += ki * part.weight
    }
    const n = this.#n
    if (!exact) return k * n
    // Same values as the cursor: the rows with an id after the cursor's.
    const ids = this.photos.id
    const byId = this.paths.perm.id
    if (this.#idDesc) return k * n + (n - partition(0, byId.length, (pos) => ids[byId[pos]] < id))
    return k * n + partition(0, byId.length, (pos) => ids[byId[pos]] <= id)
  }

  /** Rank of a value in this index's ascending order of `part`'s field, and whether the index has it. */
  #placeValue(part: RankPart, v: SortValue): { rank: number; present: boolean } {
    if (v === null) return { rank: part.d, present: true }
    const perm = this.paths.perm[part.field]
    const at = partition(0, perm.length, (pos) => {
      const x = sortValue(this.photos, part.field, perm[pos])
      return x !== null && compareValues(x, v) < 0
    })
    if (at >= perm.length) return { rank: part.d, present: false }
    const x = sortValue(this.photos, part.field, perm[at])
    if (x === null) return { rank: part.d, present: false }
    return { rank: part.rank[perm[at]], present: compareValues(x, v) === 0 }
  }

  /** The sort values of a row, as a cursor stores them (one per key; `id` keys included). */
  valuesOf(row: number): SortValue[] {
    return this.keys.map((k) => sortValue(this.photos, k.field, row))
  }

  /**
   * Where `row` falls relative to a cursor position (values + id) in this order: > 0 when the
   * row comes after it. Compares values, never ranks, so it holds across rebuilt indexes.
   */
  compareToPosition(row: number, values: SortValue[], id: number): number {
    const p = this.photos
    for (let i = 0; i < this.keys.length; i++) {
      const k = this.keys[i]
      const v = sortValue(p, k.field, row)
      const c = values[i]
      if (v === null || c === null) {
        if (v === c) continue
        return v === null ? 1 : -1
      }
      const cmp = compareValues(v, c)
      if (cmp !== 0) return k.desc ? -cmp : cmp
    }
    const d = p.id[row] - id
    return this.#idDesc ? -d : d
  }
}

/** First row number (the default order is the row order) that comes after a cursor position. */
export function partitionRows(order: Order, values: SortValue[], id: number): number {
  return partition(0, order.photos.length, (row) => order.compareToPosition(row, values, id) <= 0)
}
