import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { listPhotos, responseCacheFor } from '../src/query'
import type { Store } from '../src/store/store'
import { bruteForce, plainPhotos, type PlainPhoto } from './support/brute-force'
import { makeTestApp, testStore, type TestApp } from './setup/test-app'

/**
 * The list envelope of GET /api/v2/photos through the assembled app (interface "Response
 * envelopes"; decisions.md, Sorting and pagination): shape, absolute links that keep every
 * parameter, `next` omitted on the last page, pages past the end, no overflow at any page, and
 * the serialised-response cache.
 */
let t: TestApp
let store: Store
let all: PlainPhoto[]

beforeAll(async () => {
  store = await testStore()
  all = plainPhotos(store)
  t = await makeTestApp()
})
afterAll(() => t.close())

async function list(query: string, init?: RequestInit) {
  const res = await t.request(`/api/v2/photos?${query}`, init)
  expect(res.status).toBe(200)
  return res.json() as any
}

describe('envelope', () => {
  test('{data, meta, pagination, links} with total_count, returned_count, an ISO timestamp and cursor.next', async () => {
    const before = Date.now()
    const d = await list('rovers=curiosity&per_page=10')
    expect(Object.keys(d)).toEqual(['data', 'meta', 'pagination', 'links'])
    expect(Object.keys(d.meta)).toEqual(['total_count', 'returned_count', 'timestamp'])
    expect(d.meta.total_count).toBe(all.filter((p) => p.rover === 'curiosity').length)
    expect(d.meta.returned_count).toBe(10)
    expect(d.meta.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    expect(Date.parse(d.meta.timestamp)).toBeGreaterThanOrEqual(before - 1)
    expect(d.pagination).toMatchObject({ page: 1, per_page: 10, total_pages: Math.ceil(d.meta.total_count / 10) })
    expect(typeof d.pagination.cursor.next).toBe('string')
    expect(d.pagination.cursor.next).toMatch(/^[A-Za-z0-9_-]+$/)
  })

  test('links are absolute and keep every parameter of the request', async () => {
    const q = 'nasa_id=ncam&rovers=perseverance&mars_time_min=M10:00:00&sort=-sol&fields=sol&per_page=5&page=2'
    const d = await list(q)
    for (const name of ['self', 'first', 'last', 'next', 'prev']) {
      const u = new URL(d.links[name])
      expect(u.origin + u.pathname).toBe('http://localhost/api/v2/photos')
      for (const k of ['nasa_id', 'rovers', 'mars_time_min', 'sort', 'fields']) expect(u.searchParams.get(k)).toBe(new URLSearchParams(q).get(k))
      expect(u.searchParams.get('per_page')).toBe('5')
    }
    expect(new URL(d.links.self).searchParams.get('page')).toBe('2')
    expect(new URL(d.links.first).searchParams.get('page')).toBe('1')
    expect(new URL(d.links.next).searchParams.get('page')).toBe('3')
    expect(new URL(d.links.prev).searchParams.get('page')).toBe('1')
    expect(new URL(d.links.last).searchParams.get('page')).toBe(String(d.pagination.total_pages))
  })

  test('no link of a list carries a credential, whatever the render function is handed (api_key, feed_token, any case)', () => {
    // The app refuses these parameters on /api/v2 before rendering; the envelope must not depend on that.
    const params = new URLSearchParams('per_page=2&page=2&feed_token=SECRET_F&Api_Key=SECRET_A&FEED_TOKEN=SECRET_G&rovers=curiosity')
    const links = JSON.parse(listPhotos(store, params, 'https://mars-api.example')).links
    expect(Object.keys(links).sort()).toEqual(['first', 'last', 'next', 'prev', 'self'])
    for (const href of Object.values(links) as string[]) {
      expect(href).not.toContain('SECRET')
      expect(new URL(href).searchParams.get('rovers')).toBe('curiosity')
    }
  })

  test('behind a trusted proxy the links use X-Forwarded-Proto and X-Forwarded-Host', async () => {
    const proxied = await makeTestApp({ trustProxy: true })
    try {
      const res = await proxied.request('/api/v2/photos?per_page=1', { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.org' } })
      const d = await res.json() as any
      expect(d.links.self).toBe('https://api.example.org/api/v2/photos?per_page=1&page=1')
      expect(d.links.next.startsWith('https://api.example.org/api/v2/photos?')).toBe(true)
    } finally {
      await proxied.close()
    }
  })
})

describe('pages', () => {
  const spirit = () => bruteForce(all, new URLSearchParams('rovers=spirit')).map((p) => p.id)

  test('the last page: the remainder, no links.next, no cursor.next; the page before has both', async () => {
    const ids = spirit()
    const lastNo = Math.ceil(ids.length / 10)
    const last = await list(`rovers=spirit&per_page=10&page=${lastNo}`)
    expect(last.data.map((p: { id: number }) => p.id)).toEqual(ids.slice((lastNo - 1) * 10))
    expect(last.meta.returned_count).toBe(ids.length - (lastNo - 1) * 10)
    expect(last.links.next).toBeUndefined()
    expect(last.pagination.cursor).toBeUndefined()
    const before = await list(`rovers=spirit&per_page=10&page=${lastNo - 1}`)
    expect(before.links.next).toBeDefined()
    expect(before.pagination.cursor.next).toBeDefined()
  })

  test('per_page=1 at the very last photo, and one past it', async () => {
    const total = all.length
    const last = await list(`per_page=1&page=${total}`)
    expect(last.data.length).toBe(1)
    expect(last.data[0].id).toBe(bruteForce(all, new URLSearchParams(''))[total - 1].id)
    expect(last.links.next).toBeUndefined()
    const past = await list(`per_page=1&page=${total + 1}`)
    expect(past.data).toEqual([])
    expect(past.meta.total_count).toBe(total)
    expect(past.meta.returned_count).toBe(0)
  })

  test('a page far past the end (2147483647 at per_page 100): 200, empty data, no overflow, sane links', async () => {
    for (const q of ['page=2147483647&per_page=100', 'page=2147483647&per_page=101', 'rovers=spirit&sort=-sol&page=2147483647', 'nasa_id=ncam&page=2147483647']) {
      const d = await list(q)
      expect(d.data).toEqual([])
      expect(d.meta.total_count).toBeGreaterThan(0)
      expect(d.pagination.page).toBe(2147483647)
      expect(d.links.next).toBeUndefined()
      expect(new URL(d.links.last).searchParams.get('page')).toBe(String(d.pagination.total_pages))
    }
  })

  test('an empty result: total 0, total_pages 0, first and last point at page 1', async () => {
    const d = await list('sol=2147483647')
    expect(d.meta).toMatchObject({ total_count: 0, returned_count: 0 })
    expect(d.pagination).toMatchObject({ page: 1, total_pages: 0 })
    expect(new URL(d.links.last).searchParams.get('page')).toBe('1')
    expect(d.links.next).toBeUndefined()
  })

  test('every page of a sorted, filtered walk equals the matching slice of the brute force', async () => {
    const q = 'rovers=perseverance&sort=-date_taken_mars&per_page=100'
    const want = bruteForce(all, new URLSearchParams(q)).map((p) => p.id)
    for (let page = 1; page <= Math.ceil(want.length / 100); page += 7) {
      const d = await list(`${q}&page=${page}`)
      expect(d.data.map((p: { id: number }) => p.id)).toEqual(want.slice((page - 1) * 100, page * 100))
    }
  })
})

describe('serialised-response cache and conditional requests', () => {
  test('a repeated query is answered from the cache (same text but a fresh timestamp); another query adds an entry', async () => {
    const cache = responseCacheFor(t.deps.config)
    const q = `rovers=opportunity&per_page=7&nasa_id=${crypto.randomUUID()}`
    const a = await (await t.request(`/api/v2/photos?${q}`)).text()
    const size = cache.size
    const b = await (await t.request(`/api/v2/photos?${q}`)).text()
    expect(cache.size).toBe(size)
    const strip = (s: string) => s.replace(/"timestamp":"[^"]+"/, '')
    expect(strip(b)).toBe(strip(a))
    await t.request(`/api/v2/photos?${q}&page=2`)
    expect(cache.size).toBe(size + 1)
  })

  test('a swapped-in index empties the cache (answers belong to one index version)', async () => {
    const cache = responseCacheFor(t.deps.config)
    await t.request('/api/v2/photos?per_page=3')
    expect(cache.size).toBeGreaterThan(0)
    t.deps.stores.swap(store)
    expect(cache.size).toBe(0)
  })

  test('an ETag is sent, and If-None-Match with it gives 304 with no body', async () => {
    const res = await t.request('/api/v2/photos?rovers=spirit')
    const tag = res.headers.get('etag')
    expect(tag).toBeTruthy()
    const again = await t.request('/api/v2/photos?rovers=spirit', { headers: { 'if-none-match': tag! } })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')
  })

  test('Accept: text/plain gets the same JSON with that media type', async () => {
    const res = await t.request('/api/v2/photos?per_page=2', { headers: { accept: 'text/plain' } })
    expect(res.headers.get('content-type')).toContain('text/plain')
    expect((await res.json() as any).data.length).toBe(2)
  })
})

describe('links.self', () => {
  test('carries page in page mode (added when the request left it out) and the cursor without page in cursor mode', async () => {
    const t = await makeTestApp()
    try {
      const plain = (await (await t.request('/api/v2/photos?rovers=spirit&per_page=5')).json()) as any
      expect(plain.links.self).toBe('http://localhost/api/v2/photos?rovers=spirit&per_page=5&page=1')
      const second = (await (await t.request('/api/v2/photos?page=2&rovers=spirit&per_page=5')).json()) as any
      expect(second.links.self).toBe('http://localhost/api/v2/photos?page=2&rovers=spirit&per_page=5')
      const cursor = plain.pagination.cursor.next
      const walked = (await (await t.request(`/api/v2/photos?rovers=spirit&per_page=5&page=3&cursor=${cursor}`)).json()) as any
      for (const l of Object.values<string>(walked.links).filter((l) => l.includes('cursor='))) expect(new URL(l).searchParams.has('page')).toBe(false)
      expect(new URL(walked.links.self).searchParams.get('cursor')).toBe(cursor)
    } finally {
      await t.close()
    }
  })
})
