/**
 * `bun bench/journeys.ts [--index DIR] [--quick]`: what the journey and traverse answers cost,
 * against GET /rovers/{slug} measured in the same run as the baseline.
 *  - render: the answer's JSON text from the query parameters, no response cache (the cost of a
 *    first request per window);
 *  - served: the whole keyed pipeline in process (app.handle: auth, ETag, limits, response cache),
 *    the cost of a repeated request.
 * Runs on the real index (the synthetic catalogue has no waypoint tables): data/index-test, built
 * by the test preload, or a fresh real build in .tmp/ when that is missing.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { buildIndex } from '../index-builder/build-index'
import { makeTestApp } from '../test/setup/test-app'
import { getRover } from '../src/resources/rovers-resource'
import { journeyAnswer } from '../plugins/journeys/journey-answer'
import { traverseAnswer } from '../plugins/journeys/traverse-answer'
import { loadStore } from '../src/store/load-store'
import { measureAsync, measureSync, round3, type MeasureOptions } from './lib/measure'

const root = join(import.meta.dir, '..')
const args = process.argv.slice(2)
const quick = args.includes('--quick')
let indexDir = args.includes('--index') ? args[args.indexOf('--index') + 1]! : join(root, 'data/index-test')
if (!existsSync(join(indexDir, 'current', 'manifest.json'))) {
  indexDir = join(root, '.tmp/bench-journeys-index')
  await buildIndex({ out: indexDir, keep: 1 })
}
const store = await loadStore(indexDir)
const o: MeasureOptions = quick ? { rounds: 1, budgetMs: 150, minSamples: 20, maxSamples: 5000, warmup: 20 } : { rounds: 3, budgetMs: 600, minSamples: 50, maxSamples: 100_000, warmup: 200 }
const base = 'http://localhost'
const q = (s: string) => new URLSearchParams(s)

const shapes: Array<[string, () => unknown]> = [
  ['baseline: GET /rovers/curiosity', () => getRover(store, 'curiosity', base)],
  ['journey curiosity, whole mission', () => journeyAnswer(store, 'curiosity', q(''), base)],
  ['journey perseverance sols 1282–1311', () => journeyAnswer(store, 'perseverance', q('sol_min=1282&sol_max=1311'), base)],
  ['traverse curiosity sols 1000–1100', () => traverseAnswer(store, 'curiosity', q('sol_min=1000&sol_max=1100'), base)],
  ['traverse curiosity, whole (1,366 points)', () => traverseAnswer(store, 'curiosity', q(''), base)],
  ['traverse spirit geojson, whole (8,528 points)', () => traverseAnswer(store, 'spirit', q('format=geojson'), base)],
  ['traverse spirit simplify=5, whole', () => traverseAnswer(store, 'spirit', q('simplify=5'), base)],
]
const rows: string[] = ['| render (no cache) | p50 ms | p99 ms | p50 / baseline |', '|---|---|---|---|']
let baseline = NaN
for (const [name, fn] of shapes) {
  const t = measureSync(fn, o)
  if (Number.isNaN(baseline)) baseline = t.p50
  rows.push(`| ${name} | ${round3(t.p50)} | ${round3(t.p99)} | ${round3(t.p50 / baseline)}× |`)
}

const app = await makeTestApp({ store, rateLimitHourly: 1e9, rateLimitDaily: 1e9 })
const served: Array<[string, string]> = [
  ['baseline: GET /api/v2/rovers/curiosity', '/api/v2/rovers/curiosity'],
  ['GET journey perseverance sols 1282–1311', '/api/v2/rovers/perseverance/journey?sol_min=1282&sol_max=1311'],
  ['GET traverse curiosity sols 1000–1100 geojson', '/api/v2/rovers/curiosity/traverse?sol_min=1000&sol_max=1100&format=geojson'],
  ['GET traverse curiosity simplify=10, whole', '/api/v2/rovers/curiosity/traverse?simplify=10'],
  ['GET traverse spirit geojson, whole (1.5 MB)', '/api/v2/rovers/spirit/traverse?format=geojson'],
]
rows.push('', '| served in process, cached (app.handle) | p50 µs | p99 µs | p50 / baseline |', '|---|---|---|---|')
baseline = NaN
for (const [name, path] of served) {
  const t = await measureAsync(async () => {
    const r = await app.request(path)
    if (r.status !== 200) throw new Error(`${path}: ${r.status}`)
    await r.arrayBuffer()
  }, o)
  if (Number.isNaN(baseline)) baseline = t.p50
  rows.push(`| ${name} | ${round3(t.p50 * 1000)} | ${round3(t.p99 * 1000)} | ${round3(t.p50 / baseline)}× |`)
}
await app.close()
console.log(rows.join('\n'))
