import { describe, expect, test } from 'bun:test'
import { PERCENT_UNITS, percentageUnits } from '../src/query/stats/percentages'

/**
 * percentageUnits finds the remainders that get the leftover units by a linear selection; this
 * checks it against the definition written out plainly (every group floored, the leftover units
 * to the largest remainders with ties to the earlier group, then the 1-unit minimum paid by the
 * largest group) on random count lists: ties, zeros, one group, and thousands of groups.
 */
function reference(counts: number[]): number[] {
  const total = counts.reduce((a, c) => a + c, 0)
  if (total === 0) return counts.map(() => 0)
  const exact = counts.map((c) => (c * PERCENT_UNITS) / total)
  const units = exact.map(Math.floor)
  const rem = exact.map((e, i) => e - units[i]!)
  const left = PERCENT_UNITS - units.reduce((a, u) => a + u, 0)
  const order = counts.map((_, i) => i).sort((a, b) => rem[b]! - rem[a]! || a - b)
  for (let k = 0; k < left && k < counts.length; k++) units[order[k]!]!++
  let largest = 0
  for (let i = 1; i < units.length; i++) if (units[i]! > units[largest]!) largest = i
  for (let i = 0; i < units.length; i++) {
    if (counts[i]! > 0 && units[i] === 0) {
      units[i] = 1
      units[largest]!--
    }
  }
  return units
}

describe('percentages by largest remainder', () => {
  test('the selection gives the units of the plain definition on 3,000 random count lists (ties, zeros, up to 6,000 groups)', () => {
    let seed = 12345
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296)
    for (let r = 0; r < 3000; r++) {
      const n = 1 + Math.floor(rnd() * (r % 50 === 0 ? 6000 : 40))
      const kind = r % 4
      const counts = Array.from({ length: n }, () =>
        kind === 0 ? Math.floor(rnd() * 5) : kind === 1 ? 1 + Math.floor(rnd() * 3) : kind === 2 ? Math.floor(rnd() ** 4 * 100_000) : 7)
      const got = [...percentageUnits(counts)]
      expect(got).toEqual(reference(counts))
      if (counts.some((c) => c > 0)) expect(got.reduce((a, u) => a + u, 0)).toBe(PERCENT_UNITS)
    }
  })
})
