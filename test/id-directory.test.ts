import { beforeAll, describe, expect, test } from 'bun:test'
import { IdDirectory } from '../src/store/id-directory'
import type { Store } from '../src/store/store'
import { testStore } from './setup/test-app'

/**
 * The id -> row directory (src/store/id-directory.ts) answers what a binary search over the
 * ids in ascending order answers, for every id of the real test index and for ids that are not
 * there, and for id sets shaped to break a bucketed lookup: empty, one id, the whole int32
 * range, every id in one bucket, runs of consecutive ids.
 */
let store: Store

beforeAll(async () => {
  store = await testStore()
})

/** The rows in ascending id order, as perm_id holds them. */
function byIdOf(ids: Int32Array): Int32Array {
  return Int32Array.from(ids.keys()).sort((a, b) => ids[a] - ids[b])
}


/** Every id, its neighbours and the int32 ends, against the reference. */
function expectSameAnswers(ids: Int32Array): void {
  const dir = new IdDirectory(ids, byIdOf(ids))
  // The reference: every id's row, straight from the table.
  const rows = new Map<number, number>()
  ids.forEach((id, row) => rows.set(id, row))
  const asked = new Set<number>([-(2 ** 31), 2 ** 31 - 1, 0, -1, 1])
  for (const id of ids) for (const d of [-1, 0, 1]) if (id + d >= -(2 ** 31) && id + d < 2 ** 31) asked.add(id + d)
  for (const id of asked) {
    const got = dir.rowOf(id)
    const want = rows.get(id) ?? -1
    if (got !== want) throw new Error(`id ${id}: ${got}, the table says ${want}`)
  }
  // The same ids asked together (rowsOf) give the same rows, in the order asked.
  const list = [...asked]
  const together = new Int32Array(list.length)
  dir.rowsOf(list, together)
  list.forEach((id, i) => {
    if (together[i] !== (rows.get(id) ?? -1)) throw new Error(`rowsOf: id ${id} at ${i}: ${together[i]}, the table says ${rows.get(id) ?? -1}`)
  })
}

describe('photo id directory', () => {
  test('finds the row of every photo of the real test index, and -1 for the ids between and around them', () => {
    const p = store.photos
    const dir = store.paths.idDirectory()
    for (let r = 0; r < p.length; r++) if (dir.rowOf(p.id[r]) !== r) throw new Error(`id ${p.id[r]}: row ${dir.rowOf(p.id[r])}, not ${r}`)
    const sorted = Int32Array.from(p.id).sort()
    let checked = 0
    for (let k = 1; k < sorted.length; k++) {
      if (sorted[k] - sorted[k - 1] < 2) continue
      expect(dir.rowOf(sorted[k - 1] + 1)).toBe(-1)
      expect(dir.rowOf(sorted[k] - 1)).toBe(-1)
      checked++
    }
    expect(checked).toBeGreaterThan(1000)
    expect(dir.rowOf(sorted[0] - 1)).toBe(-1)
    expect(dir.rowOf(sorted[sorted.length - 1] + 1)).toBe(-1)
  })

  test('answers -1 for what is not an int32 id: NaN, fractions, values past int32, one at a time and together', () => {
    const dir = store.paths.idDirectory()
    const some = store.photos.id[0]
    const odd = [NaN, some + 0.5, some - 0.25, 2 ** 31, -(2 ** 31) - 1, Infinity, -Infinity]
    for (const id of odd) expect(dir.rowOf(id)).toBe(-1)
    const rows = new Int32Array(odd.length + 1)
    dir.rowsOf([...odd, some], rows)
    expect([...rows]).toEqual([...odd.map(() => -1), 0])
  })

  test('rowsOf over every id of the real test index, shuffled, gives each its row', () => {
    const p = store.photos
    const order = Int32Array.from(p.id.keys())
    let seed = 11
    for (let i = order.length - 1; i > 0; i--) {
      seed = (Math.imul(seed, 1103515245) + 12345) | 0
      const j = (seed >>> 8) % (i + 1)
      ;[order[i], order[j]] = [order[j], order[i]]
    }
    const rows = new Int32Array(order.length)
    store.paths.idDirectory().rowsOf(Array.from(order, (r) => p.id[r]), rows)
    for (let i = 0; i < order.length; i++) if (rows[i] !== order[i]) throw new Error(`position ${i}: row ${rows[i]}, not ${order[i]}`)
  })

  test('rowOfId of the access paths is the directory', () => {
    const p = store.photos
    for (let r = 0; r < p.length; r += 97) expect(store.paths.rowOfId(p.id[r])).toBe(r)
  })

  test('an empty table and a table of one photo', () => {
    const empty = new IdDirectory(new Int32Array(0), new Int32Array(0))
    for (const id of [0, -1, 2 ** 31 - 1, -(2 ** 31)]) expect(empty.rowOf(id)).toBe(-1)
    expectSameAnswers(Int32Array.of(42))
    expectSameAnswers(Int32Array.of(-(2 ** 31)))
  })

  test('ids spanning the whole int32 range, both ends included', () => {
    const ids = Int32Array.of(2 ** 31 - 1, -(2 ** 31), 0, -1, 1, 2 ** 30, -(2 ** 30), 12345, 2 ** 31 - 2, -(2 ** 31) + 1)
    expectSameAnswers(ids)
  })

  test('crowded buckets: a thousand consecutive ids beside two far apart, and random ids in clusters', () => {
    const ids: number[] = [-(2 ** 31), 2 ** 31 - 1]
    for (let i = 0; i < 1000; i++) ids.push(5_000_000 + i)
    expectSameAnswers(Int32Array.from(ids).reverse())
    let seed = 7
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) | 0)
    const clustered = new Set<number>()
    // High bits of the generator: its low bits cycle too soon to reach 5,000 distinct ids.
    while (clustered.size < 5000) clustered.add(((next() >>> 29) & 7) * 100_000_000 + ((next() >>> 16) % 3000))
    expectSameAnswers(Int32Array.from(clustered))
  })

  test('dense ids from 1, as the synthetic catalogue numbers them, in any row order', () => {
    const n = 20_000
    const ids = Int32Array.from({ length: n }, (_, i) => n - i)
    expectSameAnswers(ids)
  })

  test('v1-shaped ids: a dense run read by id, hashed ids above 2^30 through the directory, and the ids at their border', () => {
    const ids: number[] = []
    for (let id = 1; id <= 30_000; id++) if (id % 3 !== 0) ids.push(id) // two of every three v1 ids
    let seed = 3
    for (let i = 0; i < 5000; i++) {
      seed = (Math.imul(seed, 1103515245) + 12345) | 0
      ids.push(2 ** 30 + ((seed >>> 2) % 2 ** 29))
    }
    ids.push(60_001, 60_003, 200_000) // past the dense run's end: the directory's
    const unique = Int32Array.from(new Set(ids))
    expectSameAnswers(unique)
    const dir = new IdDirectory(unique, byIdOf(unique))
    // Every id up to 30,000 is in the run, the ids past it are not, and the run costs 4 bytes an id of its range.
    expect(dir.denseRun.photos).toBe(20_000)
    expect(dir.denseRun.bytes).toBe(4 * 29_999)
    // Fractions inside the run are no id.
    for (const id of [1.5, 29_999.25, 0.5]) expect(dir.rowOf(id)).toBe(-1)
  })

  test('a dense run that thins out: the run stops where its range would pass two ids per photo', () => {
    // 1..1000 all present, then every 4th id: the run takes ids while range <= 2 x count.
    const ids: number[] = []
    for (let id = 1; id <= 1000; id++) ids.push(id)
    for (let id = 1004; id <= 8000; id += 4) ids.push(id)
    const arr = Int32Array.from(ids).reverse()
    expectSameAnswers(arr)
    const dir = new IdDirectory(arr, byIdOf(arr))
    // Range 1..r with 1000 + (r - 1000) / 4 ids <= half of r: r <= 3000 (1000 + 500 = 1500 ids).
    expect(dir.denseRun.photos).toBe(1500)
    expect(dir.denseRun.bytes).toBe(4 * 3000)
  })
})

