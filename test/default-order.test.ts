import { expect, test } from 'bun:test'
import { defaultOrder, inDefaultOrder } from '../index-builder/encode/photo-columns'
import { seededRandom } from './support/seeded-random'

/**
 * The column encoder takes a table found in the default order (an update's merge hands it so)
 * as it is, found in one pass (inDefaultOrder) instead of the radix sort (defaultOrder). The pass
 * must say "in order" exactly when the sort would give the identity, or the merge would write
 * another order than a clean build: random tables of few distinct keys (ties), unknown keys and
 * ids, shuffled and sorted, are checked both ways.
 */
test('inDefaultOrder is true exactly when the default order sort gives the identity, over 400 random tables sorted and shuffled (ties, unknown keys, keys at or below 0 left to the sort)', () => {
  let sortedSeen = 0
  let unsortedSeen = 0
  for (let trial = 0; trial < 400; trial++) {
    const rnd = seededRandom(trial + 1)
    const n = 1 + Math.floor(rnd() * 60)
    const ids = new Set<number>()
    while (ids.size < n) ids.add(Math.floor(rnd() * 1000))
    const id = Int32Array.from(ids)
    const key = Float64Array.from({ length: n }, () => {
      const u = rnd()
      if (u < 0.1) return NaN
      if (trial % 10 === 9 && u < 0.15) return u < 0.125 ? 0 : -5
      return 1.7e12 + Math.floor(rnd() * 6) * 1000
    })
    // Sorted by the sort itself, then (half the time) left as the sort gives it or shuffled a little.
    const order = defaultOrder(key, id, n)
    const k2 = Float64Array.from(order, (r) => key[r]!)
    const i2 = Int32Array.from(order, (r) => id[r]!)
    if (rnd() < 0.5 && n > 1) {
      const a = Math.floor(rnd() * n)
      const b = Math.floor(rnd() * n)
      ;[k2[a], k2[b]] = [k2[b]!, k2[a]!]
      ;[i2[a], i2[b]] = [i2[b]!, i2[a]!]
    }
    const again = defaultOrder(k2, i2, n)
    const identity = again.every((r, k) => r === k)
    const hasNonPositive = Array.from(k2).some((v) => v <= 0)
    // The pass may decline (keys at or below 0: the sort decides), never claim an order the sort does not give.
    if (hasNonPositive) expect(inDefaultOrder(k2, i2, n)).toBe(false)
    else expect(inDefaultOrder(k2, i2, n)).toBe(identity)
    if (identity) sortedSeen++
    else unsortedSeen++
  }
  expect(sortedSeen).toBeGreaterThan(100)
  expect(unsortedSeen).toBeGreaterThan(20)
})
