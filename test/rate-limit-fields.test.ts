import { describe, expect, test } from 'bun:test'
import { RATE_LIMIT_FIELD_NAMES, rateLimitHeaders } from '../src/limits/limit-rules'
import { ratelimitPolicy, ratelimitState } from '../src/limits/ratelimit-fields'
import { windowsAt } from '../src/limits/windows'

/**
 * The rate-limit fields are built from pieces kept per second and handed out again for equal
 * figures (src/limits/limit-rules.ts): every answer must still carry exactly the figures of its
 * own limits, counts and time.
 */
describe('rate-limit fields', () => {
  test('equal the fields computed directly, whatever the sequence of limits, counts and times (second, hour and day boundaries included)', () => {
    let seed = 42
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n)
    const start = Date.parse('2026-03-10T23:59:58.500Z')
    for (let i = 0; i < 5000; i++) {
      const limits = [{ hourly: 10000, daily: 100000, concurrent: 50 }, { hourly: 7, daily: 9, concurrent: 1 }, { hourly: 1e9, daily: 1e9, concurrent: 1e5 }][rand(3)]!
      const now = start + i * rand(700) + rand(3) // runs of the same millisecond and second, and steps over midnight
      const hourCount = rand(12)
      const dayCount = hourCount + rand(4)
      const f = rateLimitHeaders(limits, hourCount, now, dayCount)
      expect(Object.keys(f)).toEqual([...RATE_LIMIT_FIELD_NAMES])
      expect({ ...f }).toEqual({
        'x-ratelimit-limit': String(limits.hourly),
        'x-ratelimit-remaining': String(Math.max(0, limits.hourly - hourCount)),
        'x-ratelimit-reset': String(windowsAt(now).hourReset),
        'ratelimit-policy': ratelimitPolicy(limits),
        ratelimit: ratelimitState(limits, hourCount, dayCount, now),
      })
      expect(Object.isFrozen(f)).toBe(true)
    }
  })
})
