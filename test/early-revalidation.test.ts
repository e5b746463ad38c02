import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { makeTestApp, type TestApp } from './setup/test-app'

/**
 * A revalidation of a URL Elysia has routed before is answered at the edge
 * (src/http/early-answers.ts). It must be the very answer the pipeline gives: same status and
 * headers, not counted, and every doubt (no key, an unknown key, an old tag, a new index, `*`)
 * still decided by the pipeline.
 */
let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(() => t.close())

const PATH = '/api/v2/photos?rovers=curiosity&per_page=3'
const remaining = (r: Response) => Number(r.headers.get('x-ratelimit-remaining'))
const headerText = (r: Response) =>
  [...r.headers]
    .filter(([k]) => k !== 'x-request-id')
    .map(([k, v]) => `${k}: ${v}`)
    .sort()
    .join('\n')

describe('revalidation answered at the edge', () => {
  test('the second 304 for a URL carries exactly the headers of the first, a request id, and neither is counted', async () => {
    const first = await t.request(PATH)
    const etag = first.headers.get('etag')!
    const left = remaining(first)
    const viaPipeline = await t.request(PATH, { headers: { 'if-none-match': etag } })
    const atEdge = await t.request(PATH, { headers: { 'if-none-match': etag } })
    expect(viaPipeline.status).toBe(304)
    expect(atEdge.status).toBe(304)
    expect(await atEdge.text()).toBe('')
    expect(headerText(atEdge)).toBe(headerText(viaPipeline))
    expect(atEdge.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    expect(remaining(atEdge)).toBe(left)
    expect(remaining(await t.request('/api/v2/rovers'))).toBe(left - 1)
    const logged = t.accessLines.map((l) => JSON.parse(l)).filter((l) => l.status === 304)
    expect(logged.at(-1)).toMatchObject({ route: '/api/v2/photos', key: expect.stringMatching(/^key:/) })
  })

  test('without a key, or with an unknown one, the same revalidation is still refused with 401', async () => {
    const etag = (await t.request(PATH)).headers.get('etag')!
    await t.request(PATH, { headers: { 'if-none-match': etag } })
    expect((await t.anonymous(PATH, { headers: { 'if-none-match': etag } })).status).toBe(401)
    expect((await t.request(PATH, { headers: { 'if-none-match': etag, 'x-api-key': 'not-a-key' } })).status).toBe(401)
  })

  test('a tag that no longer matches gets the full, counted answer', async () => {
    const etag = (await t.request(PATH)).headers.get('etag')!
    await t.request(PATH, { headers: { 'if-none-match': etag } })
    const before = remaining(await t.request('/api/v2/rovers'))
    const r = await t.request(PATH, { headers: { 'if-none-match': 'W/"old"' } })
    expect(r.status).toBe(200)
    expect(remaining(r)).toBe(before - 1)
  })

  test('after a new index is swapped in, the old tag gets a 200 with the new tag', async () => {
    const u = await makeTestApp()
    try {
      const etag = (await u.request(PATH)).headers.get('etag')!
      expect((await u.request(PATH, { headers: { 'if-none-match': etag } })).status).toBe(304)
      const current = u.deps.stores.current
      u.deps.stores.swap({ ...current, version: current.version + '-rebuilt' })
      const r = await u.request(PATH, { headers: { 'if-none-match': etag } })
      expect(r.status).toBe(200)
      expect(r.headers.get('etag')).not.toBe(etag)
    } finally {
      await u.close()
    }
  })

  test('`If-None-Match: *` on a routed URL is still decided by running the request', async () => {
    const etag = (await t.request(PATH)).headers.get('etag')!
    await t.request(PATH, { headers: { 'if-none-match': etag } })
    const before = remaining(await t.request('/api/v2/rovers'))
    expect((await t.request(PATH, { headers: { 'if-none-match': '*' } })).status).toBe(304)
    expect(remaining(await t.request('/api/v2/rovers'))).toBe(before - 1)
  })
})
