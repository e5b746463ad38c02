import { describe, expect, test } from 'bun:test'
import { Entry, ResponseCache, RESPONSE_CACHE_MAX_ENTRY_BYTES, stampedCopiesHeld } from '../src/query/cache/response-cache'
import { TIMESTAMP_SLOT } from '../src/query/render/envelope'
import { responseCacheKey } from '../src/http/request-key'
import { urlFacts } from '../src/http/url-facts'
import { float32Text as float32Json } from '../src/query/bytes/float32-text'

/**
 * The serialised-response cache (src/query/cache/response-cache.ts): a repeated request is answered
 * without computing again; the index version and the origin are part of the key; the cache is
 * bounded by entries and bytes; a failed computation stores nothing. And the float32 writer
 * of the photo JSON, which the cache stores.
 */
/** The text for this (version, origin, request key): the cache's entry, or computed when caching is off. */
const get = (c: ResponseCache, version: string, base: string, requestKey: string, compute: () => string): string =>
  c.entryAt(responseCacheKey(version, base, requestKey), compute)?.text ?? compute()

describe('ResponseCache', () => {
  test('computes once per (version, origin, request key)', () => {
    const c = new ResponseCache(10)
    let calls = 0
    const compute = () => `text-${++calls}`
    expect(get(c, 'v1', 'http://a', 'GET /x', compute)).toBe('text-1')
    expect(get(c, 'v1', 'http://a', 'GET /x', compute)).toBe('text-1')
    expect(get(c, 'v2', 'http://a', 'GET /x', compute)).toBe('text-2')
    expect(get(c, 'v1', 'http://b', 'GET /x', compute)).toBe('text-3')
    expect(get(c, 'v1', 'http://a', 'GET /y', compute)).toBe('text-4')
    expect(calls).toBe(4)
  })

  test("a URL's memoised cache key follows the index version and the origin it is asked for, and finds the same entry as the parts", () => {
    const c = new ResponseCache(10)
    let calls = 0
    const compute = () => `text-${++calls}`
    const f = urlFacts('http://127.0.0.1:9/api/v2/photos?sol=2&rovers=curiosity')
    expect(f.cacheKey('v1', 'http://a')).toBe(responseCacheKey('v1', 'http://a', f.getKey()))
    expect(c.entryAt(f.cacheKey('v1', 'http://a'), compute)!.text).toBe('text-1')
    expect(c.entryAt(responseCacheKey('v1', 'http://a', f.getKey()), compute)!.text).toBe('text-1')
    expect(c.entryAt(f.cacheKey('v2', 'http://a'), compute)!.text).toBe('text-2')
    expect(c.entryAt(f.cacheKey('v2', 'http://b'), compute)!.text).toBe('text-3')
    expect(c.entryAt(f.cacheKey('v1', 'http://a'), compute)!.text).toBe('text-1')
    expect(calls).toBe(3)
  })

  test('bounded by entries (least recently used goes first) and by entry size', () => {
    const c = new ResponseCache(2)
    get(c, 'v', 'o', 'a', () => 'A')
    get(c, 'v', 'o', 'b', () => 'B')
    get(c, 'v', 'o', 'a', () => 'A2') // touch a
    get(c, 'v', 'o', 'c', () => 'C') // evicts b
    expect(c.size).toBe(2)
    expect(get(c, 'v', 'o', 'a', () => 'A3')).toBe('A')
    expect(get(c, 'v', 'o', 'b', () => 'B2')).toBe('B2')
    const big = 'x'.repeat(RESPONSE_CACHE_MAX_ENTRY_BYTES + 1)
    const before = c.size
    get(c, 'v', 'o', 'big', () => big)
    expect(get(c, 'v', 'o', 'big', () => 'again')).toBe('again')
    expect(c.size).toBeLessThanOrEqual(Math.max(before, 2))
  })

  test('once the texts it dropped (evicted, replaced, cleared) add up to its byte bound, the cache asks once for them to be collected, and counts it', () => {
    let asked = 0
    const text = (i: number) => String(i).padStart(96, '.')
    const size = text(0).length + responseCacheKey('v', 'o', 'k000').length // what the bound counts per entry
    const c = new ResponseCache(100, 10 * size, () => asked++)
    for (let i = 0; i < 10; i++) get(c, 'v', 'o', 'k' + String(i).padStart(3, '0'), () => text(i))
    expect(asked).toBe(0) // the bound's worth held, nothing dropped
    for (let i = 10; i < 19; i++) get(c, 'v', 'o', 'k' + String(i).padStart(3, '0'), () => text(i))
    expect(asked).toBe(0) // 9 entries' worth dropped
    get(c, 'v', 'o', 'k019', () => text(19))
    expect(asked).toBe(1) // the 10th: the bound's worth, once
    expect(c.turnovers).toBe(1)
    c.clear() // 10 more dropped at once
    expect(asked).toBe(2)
    expect(c.turnovers).toBe(2)
  })

  test('collectDroppedTexts runs one full collection on a later turn, however often it is asked in one turn', async () => {
    const { fullGC } = await import('bun:jsc')
    expect(typeof fullGC).toBe('function')
    const { collectDroppedTexts } = await import('../src/query/cache/dropped-texts')
    let weak: WeakRef<object> | undefined
    ;(() => {
      weak = new WeakRef({ dropped: 'x'.repeat(1000) })
    })()
    collectDroppedTexts()
    collectDroppedTexts()
    await new Promise((r) => setImmediate(r))
    await new Promise((r) => setTimeout(r, 0))
    expect(weak!.deref()).toBeUndefined()
  })

  test('a filled copy serves its millisecond only: kept while the clock stands, let go for every entry when it moves, filled again with the new time', () => {
    const text = (n: string) => `{"data":"${n}","meta":{"timestamp":${TIMESTAMP_SLOT}}}`
    const [a, b, c] = [new Entry(text('a')), new Entry(text('b')), new Entry(text('c'))]
    const t1 = Date.UTC(2026, 0, 2, 3, 4, 5, 6)
    expect(a.stampedAt(t1)).toBe('{"data":"a","meta":{"timestamp":"2026-01-02T03:04:05.006Z"}}')
    b.stampedAt(t1)
    a.stampedAt(t1)
    expect(stampedCopiesHeld()).toBe(2) // a once, b once
    expect(c.stampedAt(t1 + 1)).toBe('{"data":"c","meta":{"timestamp":"2026-01-02T03:04:05.007Z"}}')
    expect(stampedCopiesHeld()).toBe(1) // a's and b's copies let go
    expect(a.stampedAt(t1 + 1)).toBe('{"data":"a","meta":{"timestamp":"2026-01-02T03:04:05.007Z"}}')
    expect(a.stampedAt(t1)).toBe('{"data":"a","meta":{"timestamp":"2026-01-02T03:04:05.006Z"}}') // a clock set back is a move too
    expect(stampedCopiesHeld()).toBe(1)
  })

  test('a computation that throws stores nothing; 0 entries disables the cache', () => {
    const c = new ResponseCache(5)
    expect(() => get(c, 'v', 'o', 'k', () => { throw new Error('400') })).toThrow('400')
    expect(c.size).toBe(0)
    const off = new ResponseCache(0)
    let n = 0
    get(off, 'v', 'o', 'k', () => String(++n))
    get(off, 'v', 'o', 'k', () => String(++n))
    expect(n).toBe(2)
  })
})

describe('float32Json', () => {
  test('writes the shortest decimal that reads back as the same float32', () => {
    let seed = 7
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32)
    const f = new Float32Array(1)
    for (let i = 0; i < 5000; i++) {
      f[0] = (rnd() - 0.5) * 10 ** Math.floor(rnd() * 8 - 3)
      const x = f[0]
      const s = float32Json(x)
      expect(Math.fround(Number(s))).toBe(x)
      const digits = s.replace(/^-/, '').replace(/e.*$/, '').replace('.', '').replace(/^0+/, '').length
      if (digits > 1) expect(Math.fround(Number(x.toPrecision(digits - 1)))).not.toBe(x)
    }
    expect(float32Json(Math.fround(146.336))).toBe('146.336')
    expect(float32Json(Math.fround(-13.3397))).toBe('-13.3397')
  })
})
