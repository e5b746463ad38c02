import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { makeTestApp, type TestApp } from './setup/test-app'

/** Response JSON, untyped (tests assert on its fields). */
const json = (r: Response): Promise<any> => r.json()

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(() => t.close())

describe('GET /health', () => {
  test('needs no key and reports the loaded index: version, kind, photo count, build time, that it is a sample; uptime; the counter store', async () => {
    const r = await t.anonymous('/health')
    expect(r.status).toBe(200)
    const body = await json(r)
    const store = t.deps.stores.current
    expect(body.status).toBe('ok')
    expect(body.index).toEqual({
      version: store.version,
      kind: store.manifest.kind,
      photos: store.manifest.rows.photos,
      locations: store.manifest.rows.locations,
      panoramas: store.manifest.rows.panoramas,
      built_at: store.manifest.built_at,
      load_ms: store.loadMs,
      // The real test index holds about 1% of what NASA's manifests state (test/rovers.test.ts, catalogue_share).
      sample: true,
      note: `a sample of ${store.manifest.rows.photos.toLocaleString('en-US')} photos; \`npm run fetch -- --all\` mirrors the rest (Opportunity and Spirit: docs/pds-index-tables.md)`,
    })
    expect(body.uptime_s).toBeGreaterThanOrEqual(0)
    expect(Date.parse(body.timestamp)).not.toBeNaN()
    expect(body.rate_limits).toEqual({ store: 'memory' })
  })

  test('is not counted, even with a key, and carries no rate-limit headers', async () => {
    const before = (await t.request('/api/v2')).headers.get('x-ratelimit-remaining')
    for (let i = 0; i < 5; i++) {
      const r = await t.request('/health')
      expect(r.headers.get('x-ratelimit-limit')).toBeNull()
    }
    expect(Number((await t.request('/api/v2')).headers.get('x-ratelimit-remaining'))).toBe(Number(before) - 1)
  })

  test('reports the snapshot swapped in by a reload', async () => {
    const u = await makeTestApp()
    try {
      const s = u.deps.stores.current
      u.deps.stores.swap({ ...s, version: 'next-version' })
      expect((await json(await u.anonymous('/health'))).index.version).toBe('next-version')
    } finally {
      await u.close()
    }
  })
})
