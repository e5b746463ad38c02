import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { makeTestApp, type TestApp } from '../setup/test-app'

/**
 * One client cannot choose what another is served. The response cache and the ETag once used a
 * key that lower-cased parameter names and sorted repeated values, while the parsers read exact
 * names and the first value: `?ROVERS=spirit` (ignored: unfiltered) and `?rovers=spirit` shared
 * one entry, so whoever asked first decided the other's answer. The key is now the query exactly
 * as the parsers read it (src/http/request-key.ts).
 */
let cached: TestApp
let fresh: TestApp
beforeAll(async () => {
  cached = await makeTestApp()
  fresh = await makeTestApp({ responseCacheEntries: 0 })
})
afterAll(async () => {
  await cached.close()
  await fresh.close()
})

/** The body without meta.timestamp (the only part that may differ between two equal answers). */
async function answer(t: TestApp, path: string, key?: string): Promise<{ status: number; etag: string | null; body: string }> {
  const r = await t.request(path, key ? { headers: { 'x-api-key': key } } : {})
  const text = await r.text()
  return { status: r.status, etag: r.headers.get('etag'), body: text.replace(/"timestamp":"[^"]*"/, '"timestamp":""') }
}

describe('reproductions: a first request cannot decide the answer of a second one', () => {
  const pairs: Array<[string, string]> = [
    ['/api/v2/photos?ROVERS=spirit&per_page=1', '/api/v2/photos?rovers=spirit&per_page=1'],
    ['/api/v2/photos?rovers=opportunity&rovers=spirit&per_page=2', '/api/v2/photos?rovers=spirit&rovers=opportunity&per_page=2'],
    ['/api/v2/photos/stats?GROUP_BY=rover', '/api/v2/photos/stats?group_by=rover'],
    ['/api/v2/photos?FIELDS=id&per_page=1', '/api/v2/photos?fields=id&per_page=1'],
    ['/api/v2/photos?PAGE=2&per_page=1', '/api/v2/photos?page=2&per_page=1'],
    ['/api/v2/cameras/NAVCAM?ROVER=spirit', '/api/v2/cameras/NAVCAM?rover=spirit'],
  ]
  for (const [first, second] of pairs) {
    test(`${first} then ${second} (another key): the second gets its own answer, with its own ETag`, async () => {
      const other = cached.deps.keys.create(`other-${crypto.randomUUID().slice(0, 8)}@example.com`)
      const a = await answer(cached, first)
      const b = await answer(cached, second, other)
      const truth = await answer(fresh, second)
      expect(b.status).toBe(truth.status)
      expect(b.body).toBe(truth.body)
      if (a.body !== b.body) expect(b.etag).not.toBe(a.etag)
    })
  }
})

/** Parameter names as clients may spell them, and values each parser accepts or refuses. */
const PARAMS: Array<[string[], string[]]> = [
  [['rovers', 'ROVERS', 'Rovers'], ['spirit', 'opportunity', 'spirit,opportunity', 'curiosity', 'nope']],
  [['per_page', 'PER_PAGE'], ['1', '2', '3']],
  [['page', 'PAGE'], ['1', '2']],
  [['sol', 'SOL', 'sol_min'], ['1', '10', 'abc']],
  [['fields', 'FIELDS'], ['id', 'id,sol', 'sol,id']],
  [['sort', 'SORT'], ['sol', '-sol', 'id']],
  [['group_by', 'GROUP_BY'], ['camera', 'rover', 'sol']],
]
const PATHS = ['/api/v2/photos', '/api/v2/photos/stats', '/api/v2/cameras', '/api/v2/photos/1']

const pair = fc.tuple(fc.constantFrom(...PARAMS), fc.nat(), fc.nat()).map(([[names, values], i, j]) => [names[i % names.length]!, values[j % values.length]!] as const)
const url = fc.tuple(fc.constantFrom(...PATHS), fc.array(pair, { maxLength: 4 })).map(([path, ps]) => (ps.length ? `${path}?${ps.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}` : path))
/** A second URL: often the first one reordered or with one name re-cased, where a bad key would collide. */
const related = (u: string) =>
  fc.oneof(
    url,
    fc.constant(u),
    fc.nat().map((n) => {
      const [path, q = ''] = u.split('?')
      const parts = q ? q.split('&') : []
      if (parts.length > 1) parts.push(parts.splice(n % parts.length, 1)[0]!)
      return parts.length ? `${path}?${parts.join('&')}` : path!
    }),
    fc.nat().map((n) => {
      const [path, q = ''] = u.split('?')
      const parts = q ? q.split('&') : []
      if (parts.length) {
        const i = n % parts.length
        const [k, v] = parts[i]!.split('=')
        parts[i] = `${k === k!.toLowerCase() ? k!.toUpperCase() : k!.toLowerCase()}=${v}`
      }
      return parts.length ? `${path}?${parts.join('&')}` : path!
    }),
  )

describe('property: through the cache, every answer equals the uncached answer', () => {
  test('for random pairs of URLs (reordered, re-cased, repeated parameters), the second answer from the shared cache equals a fresh one, and equal ETags mean equal bodies', async () => {
    await fc.assert(
      fc.asyncProperty(url.chain((u1) => related(u1).map((u2) => [u1, u2] as const)), async ([u1, u2]) => {
        const a = await answer(cached, u1)
        const b = await answer(cached, u2)
        const truth = await answer(fresh, u2)
        expect({ u1, u2, status: b.status, body: b.body }).toEqual({ u1, u2, status: truth.status, body: truth.body })
        if (a.etag !== null && a.etag === b.etag) expect({ u1, u2, body: b.body }).toEqual({ u1, u2, body: a.body })
      }),
      { numRuns: 300, seed: 20261124 },
    )
  })
})
