import { describe, expect, test } from 'bun:test'
import { measureInterleaved } from '../bench/lib/measure'

/**
 * The engine bench's rounds (bench/lib/measure.ts measureInterleaved): every call's round r is
 * taken before any call's round r + 1, so a shape's rounds spread over the run; each call's
 * figures are the medians of its own rounds; a call that throws fails alone.
 */
describe('interleaved rounds', () => {
  const options = { rounds: 3, budgetMs: 0, minSamples: 2, maxSamples: 2, warmup: 1 }

  test('round r of every call comes before round r + 1 of any, after every call has warmed up', () => {
    const order: string[] = []
    const calls = ['a', 'b', 'c'].map((name) => () => void order.push(name))
    const timings = measureInterleaved(calls, options)
    // Warm-up: one call each; then per round two samples of a, of b, of c.
    expect(order.join('')).toBe('abc' + 'aabbcc'.repeat(3))
    for (const t of timings) {
      if (t instanceof Error) throw t
      expect(t.rounds).toBe(3)
      expect(t.samples).toBe(6)
      expect(t.p50Lo).toBeLessThanOrEqual(t.p50)
      expect(t.p50).toBeLessThanOrEqual(t.p50Hi)
    }
  })

  test('a call that throws in its second round ends its own rounds with its error; the others keep all of theirs', () => {
    let n = 0
    const order: string[] = []
    const flaky = () => {
      order.push('x')
      if (++n > 3) throw new Error('broken on call 4')
    }
    const timings = measureInterleaved([flaky, () => void order.push('y')], options)
    expect(timings[0]).toBeInstanceOf(Error)
    expect((timings[0] as Error).message).toBe('broken on call 4')
    const ok = timings[1]
    if (ok instanceof Error) throw ok
    expect(ok.samples).toBe(6)
    // Warm-up x, y; round 1: x x, y y; round 2: x (throws), y y; round 3: y y.
    expect(order.join('')).toBe('xy' + 'xxyy' + 'xyy' + 'yy')
  })
})
