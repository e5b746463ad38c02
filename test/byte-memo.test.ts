import { describe, expect, test } from 'bun:test'
import { ByteMemo, hashDouble, hashInt } from '../src/query/bytes/byte-memo'
import { ByteSink } from '../src/query/bytes/byte-sink'

/**
 * The bounded memo photo JSON keeps repeated texts in (byte-memo.ts): a slot answers only for
 * the keys its text was kept under, a newer key takes the slot over, and a text longer than a
 * slot is not kept (its slot then answers for nothing).
 */
const bytes = (s: string) => Buffer.from(s, 'latin1')
const out = (m: ByteMemo, s: number) => {
  const sink = new ByteSink(4)
  m.copyOut(sink, s)
  return sink.toString()
}

describe('ByteMemo', () => {
  test('a slot gives back the text kept under its keys, and a new text under new keys replaces it', () => {
    const m = new ByteMemo(4, 2, 8)
    const s = m.slot(hashInt(hashInt(0, 3), 4))
    expect(m.keys[s * 2]).toBeNaN() // empty slots match no key, not even NaN
    expect(m.keep(s, bytes('xx"sol":3yy'), 2, 9)).toBe(true)
    m.keys[s * 2] = 3
    m.keys[s * 2 + 1] = 4
    expect(out(m, s)).toBe('"sol":3')
    expect(m.keep(s, bytes('"sol":12'), 0, 8)).toBe(true)
    m.keys[s * 2] = 12
    expect(out(m, s)).toBe('"sol":12')
    expect(m.keys[s * 2] === 3).toBe(false)
  })

  test('a text longer than a slot is not kept and leaves the slot matching nothing', () => {
    const m = new ByteMemo(2, 1, 4)
    expect(m.keep(1, bytes('1.5'), 0, 3)).toBe(true)
    m.keys[1] = 1.5
    expect(m.keep(1, bytes('123.25'), 0, 6)).toBe(false)
    expect(m.keys[1] === 1.5).toBe(false)
    expect(m.keys[1]).toBeNaN()
  })

  test('slots come from the high bits of a hash, in range for any input, and -0 hashes as 0', () => {
    const m = new ByteMemo(10, 1, 4)
    for (const x of [0, -0, 1, -1, 0.1, 1e300, -5e-324, Infinity, NaN]) {
      const s = m.slot(hashDouble(x, 7))
      expect(s).toBeGreaterThanOrEqual(0)
      expect(s).toBeLessThan(1024)
    }
    expect(hashDouble(-0, 7)).toBe(hashDouble(0, 7))
    expect(hashDouble(1, 7)).not.toBe(hashDouble(1, 8))
  })
})
