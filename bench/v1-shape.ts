/**
 * The v1 photos-by-sol shape beside the v2 one, for the same work (`npx bun bench/v1-shape.ts`;
 * INDEX_DIR picks the index, default the real test index built by `npm test`'s preload):
 *   v2  GET /api/v2/photos?rovers=R&sol=S&per_page=25        (default order)
 *   v1  GET /api/v1/rovers/R/photos?sol=S&page=1             (v1 order: camera id, id)
 *   v1  GET /api/v1/rovers/R/photos?sol=S                    (the whole day, v1's default)
 * Each through the assembled app in process (app.handle: auth, limits, ETag, routing), first with
 * the response cache off (engine + rendering every time), then with it on (the hot path). The
 * ratio v1/v2 is measured in the same run; absolute figures depend on the machine's load.
 */
import { makeTestApp } from '../test/setup/test-app'
import { measureAsync, round3 } from './lib/measure'

const INDEX = process.env.INDEX_DIR ?? 'data/index-test'
const OPTS = { rounds: 5, budgetMs: 400, minSamples: 50, maxSamples: 20_000, warmup: 200 }

async function main(): Promise<void> {
  const { testStore } = await import('../test/setup/test-app')
  const store = await testStore(INDEX)
  // The busiest (rover, sol) of the index: the day with the most photos.
  const { roverManifests } = await import('../src/query/stats/rover-manifest')
  const { ROVERS } = await import('../src/catalog/rovers')
  let best = { slug: '', sol: -1, total: -1 }
  roverManifests(store).forEach((m, code) => {
    for (const d of m.days) if (d.total > best.total && d.total <= 10_000) best = { slug: ROVERS[code]!.slug, sol: d.sol, total: d.total }
  })
  const shapes: Array<[string, string]> = [
    ['v2 photos rovers+sol, 25', `/api/v2/photos?rovers=${best.slug}&sol=${best.sol}&per_page=25`],
    ['v1 photos by sol, page 1 (25)', `/api/v1/rovers/${best.slug}/photos?sol=${best.sol}&page=1`],
    ['v1 photos by sol, whole day', `/api/v1/rovers/${best.slug}/photos?sol=${best.sol}`],
  ]
  console.log(`index ${store.version} (${store.photos.length} photos); day ${best.slug} sol ${best.sol}: ${best.total} photos`)
  for (const cache of [0, 2000]) {
    const t = await makeTestApp({ store, responseCacheEntries: cache, rateLimitHourly: 1e9, rateLimitDaily: 1e9, keyLimits: { hourly: 1e9, daily: 1e9 } as never })
    const figures: number[] = []
    for (const [name, path] of shapes) {
      const r = await t.request(path)
      if (r.status !== 200) throw new Error(`${path}: ${r.status} ${await r.text()}`)
      const timing = await measureAsync(async () => void (await (await t.request(path)).arrayBuffer()), OPTS)
      figures.push(timing.p50)
      console.log(`${cache ? 'cache on ' : 'cache off'}  ${name.padEnd(32)} p50 ${round3(timing.p50)} ms  p99 ${round3(timing.p99)} ms  (${timing.samples} samples)`)
    }
    console.log(`${cache ? 'cache on ' : 'cache off'}  ratio v1 page / v2 page: ${(figures[1]! / figures[0]!).toFixed(2)}`)
    await t.close()
  }
}

await main()
