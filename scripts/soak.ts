/**
 * npm run soak -- [--minutes N | --seconds S] [--clients C] [--index DIR]
 *
 * Bounded loopback soak at saturation (docs/reliability.md, "Overload and soak"): `bun app/server.ts`
 * on a free 127.0.0.1 port, C keep-alive clients (default 32) asking a varied mix (filtered lists,
 * pages, cursors, stats, photos by id, batches, catalogue, locations) as fast as they can for N
 * minutes (default 10), spread over five keys: four with room to spare and one far over its hourly
 * limit (so it gets 429 throughout). Per period (a minute, or a tenth of a short run) it reports
 * requests, throughput, p50/p99/max latency, 429s, errors and the server's RSS.
 *
 * Pass criteria, printed at the end (exit 1 when one fails):
 *  - errors: no answer other than 2xx, 304 and 429 (and no failed connection);
 *  - RSS drift under 10%: the median RSS of the last period against that of the first period
 *    after warm-up (the first period loads caches and JIT-compiles, so it is not the baseline);
 *  - p99 steady: no period's p99 above 3x the median of the periods' p99.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { KeyStore } from '../src/keys/key-store'
import { spawnServer } from '../test/setup/test-app'

const ROOT = resolve(import.meta.dir, '..')
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(`usage: npm run soak -- [--minutes N | --seconds S] [--clients C] [--index DIR]
  Bounded loopback soak at saturation against bun app/server.ts on a free port; prints per-period
  throughput, latency, 429s, errors and RSS, and exits 1 when a pass criterion fails.
  --minutes N   duration (default 10)      --seconds S   duration in seconds instead
  --clients C   keep-alive clients (default 32)   --index DIR   index folder (default data/index, else data/index-test)`)
  process.exit(0)
}
const { values: opts } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    seconds: { type: 'string' },
    clients: { type: 'string', default: '32' },
    index: { type: 'string' },
  },
})
const DURATION_MS = opts.seconds ? Number(opts.seconds) * 1000 : Number(opts.minutes) * 60_000
const PERIOD_MS = DURATION_MS >= 5 * 60_000 ? 60_000 : Math.max(1000, DURATION_MS / 10)
const CLIENTS = Number(opts.clients)
const INDEX = opts.index ?? process.env.INDEX_DIR ?? (existsSync(join(ROOT, 'data/index/current')) ? join(ROOT, 'data/index') : join(ROOT, 'data/index-test'))

const work = mkdtempSync(join(tmpdir(), 'mv-soak-'))
const keysDb = join(work, 'keys.sqlite')
const store = KeyStore.open(keysDb)
const roomy = { hourly: 1_000_000_000, daily: 1_000_000_000, concurrent: 1_000 }
const keys = [0, 1, 2, 3].map((i) => store.create(`soak-${i}@example.com`, roomy))
const overLimit = store.create('soak-over@example.com', { hourly: 100, daily: 1_000_000, concurrent: 1_000 })
keys.push(overLimit)
store.close()

const server = await spawnServer({ KEYS_DB: keysDb, INDEX_DIR: INDEX, LOG_LEVEL: 'info' }, ROOT)
const pid = server.proc.pid

/** Deterministic generator (mulberry32), so two runs ask the same mix. */
function rng(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const seedRes = await fetch(`${server.url}/api/v2/photos?per_page=100&sort=-sol`, { headers: { 'x-api-key': keys[0]! } })
const seedDoc = (await seedRes.json()) as { data: Array<{ id: number }>; pagination?: { cursor?: { next?: string } } }
const ids = seedDoc.data.map((p) => p.id)
const cursor = seedDoc.pagination?.cursor?.next
const ROVERS = ['curiosity', 'perseverance', 'spirit', 'opportunity']
const CAMERAS = ['NAVCAM', 'FHAZ', 'RHAZ', 'MAST', 'NAVCAM_LEFT', 'FRONT_HAZCAM_LEFT_A', 'MCZ_LEFT']

function nextRequest(r: () => number): { path: string; init?: RequestInit } {
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!
  const x = r()
  if (x < 0.3) return { path: `/api/v2/photos?rovers=${pick(ROVERS)}&sol_min=${Math.floor(r() * 1500)}&per_page=${1 + Math.floor(r() * 100)}&page=${1 + Math.floor(r() * 5)}` }
  if (x < 0.45) return { path: `/api/v2/photos?cameras=${pick(CAMERAS)}&sort=${pick(['sol', '-sol', 'earth_date', '-id'])}&per_page=25` }
  if (x < 0.55) return { path: `/api/v2/photos/stats?group_by=${pick(['camera', 'rover', 'sol'])}&rovers=${pick(ROVERS)}` }
  if (x < 0.7) return { path: `/api/v2/photos/${pick(ids)}?field_set=${pick(['minimal', 'standard', 'extended', 'scientific', 'complete'])}` }
  if (x < 0.78) {
    const body = JSON.stringify({ ids: Array.from({ length: 1 + Math.floor(r() * 50) }, () => pick(ids)) })
    return { path: '/api/v2/photos/batch', init: { method: 'POST', body, headers: { 'content-type': 'application/json' } } }
  }
  if (x < 0.83 && cursor) return { path: `/api/v2/photos?per_page=100&sort=-sol&cursor=${cursor}` }
  if (x < 0.9) return { path: `/api/v2/locations?per_page=${1 + Math.floor(r() * 50)}&rovers=${pick(ROVERS)}` }
  if (x < 0.95) return { path: pick(['/api/v2/rovers', '/api/v2/cameras', `/api/v2/rovers/${pick(ROVERS)}`, '/api/v2/panoramas']) }
  return { path: `/api/v2/photos?earth_date=${pick(['2012-08-06', '2021-02-18', '2024-10-27', '2004-01-05'])}&per_page=50` }
}

interface Period {
  requests: number
  refused: number
  errors: number
  latencies: number[]
  rss: number[]
}
const periods: Period[] = []
const newPeriod = (): Period => ({ requests: 0, refused: 0, errors: 0, latencies: [], rss: [] })
let current = newPeriod()
const errorSamples: string[] = []
const statuses = new Map<number, number>()

const rssOf = async (): Promise<number> => {
  try {
    const status = await Bun.file(`/proc/${pid}/status`).text()
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024
  } catch {
    return 0
  }
}

const started = performance.now()
const deadline = started + DURATION_MS
let running = true
const sampler = setInterval(async () => {
  current.rss.push(await rssOf())
}, 1000)
const roller = setInterval(() => {
  periods.push(current)
  const p = current
  current = newPeriod()
  const n = periods.length
  process.stderr.write(`soak: period ${n}: ${p.requests} requests, p99 ${quantile(p.latencies, 0.99).toFixed(1)} ms, 429 ${p.refused}, errors ${p.errors}, rss ${(median(p.rss) / 2 ** 20).toFixed(0)} MB\n`)
}, PERIOD_MS)

async function client(c: number): Promise<void> {
  const r = rng(1000 + c)
  const key = keys[c % keys.length]!
  while (running && performance.now() < deadline) {
    const { path, init } = nextRequest(r)
    const headers = new Headers(init?.headers)
    headers.set('x-api-key', key)
    const t0 = performance.now()
    try {
      const res = await fetch(server.url + path, { ...init, headers })
      await res.arrayBuffer()
      const ms = performance.now() - t0
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
      current.requests++
      current.latencies.push(ms)
      if (res.status === 429) current.refused++
      else if (!(res.status >= 200 && res.status < 300) && res.status !== 304) {
        current.errors++
        if (errorSamples.length < 20) errorSamples.push(`${res.status} ${path}`)
      }
    } catch (e) {
      current.requests++
      current.errors++
      if (errorSamples.length < 20) errorSamples.push(`${(e as Error).message} ${path}`)
    }
  }
}

process.stderr.write(`soak: ${(DURATION_MS / 1000).toFixed(0)} s, ${CLIENTS} clients over ${keys.length} keys (one over its limit), index ${INDEX}, server pid ${pid}\n`)
await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)))
running = false
clearInterval(sampler)
clearInterval(roller)
if (current.requests > 0 && periods.length < Math.round(DURATION_MS / PERIOD_MS)) periods.push(current)
const seconds = (performance.now() - started) / 1000
const alive = server.proc.exitCode === null
const code = alive ? await server.stop('SIGTERM') : server.proc.exitCode
rmSync(work, { recursive: true, force: true })

function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return 0
  const s = Float64Array.from(xs).sort()
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!
}
function median(xs: number[]): number {
  return quantile(xs, 0.5)
}

const total = periods.reduce((n, p) => n + p.requests, 0)
const errors = periods.reduce((n, p) => n + p.errors, 0)
const refused = periods.reduce((n, p) => n + p.refused, 0)
const p99s = periods.map((p) => quantile(p.latencies, 0.99))
const baseline = periods.length > 2 ? median(periods[1]!.rss) : median(periods[0]!.rss)
const last = median(periods[periods.length - 1]!.rss)
const drift = (last - baseline) / baseline
const steady = Math.max(...p99s) <= 3 * median(p99s)

console.log(`soak: ${total} requests in ${seconds.toFixed(0)} s (${Math.round(total / seconds)}/s), ${CLIENTS} clients, ${keys.length} keys, index ${INDEX}`)
console.log('period  requests   req/s   p50 ms   p99 ms   max ms    429  errors   RSS MB')
periods.forEach((p, i) => {
  const secs = PERIOD_MS / 1000
  console.log(
    `${String(i + 1).padStart(6)}  ${String(p.requests).padStart(8)}  ${String(Math.round(p.requests / secs)).padStart(6)}  ${quantile(p.latencies, 0.5).toFixed(1).padStart(7)}  ${quantile(p.latencies, 0.99).toFixed(1).padStart(7)}  ${Math.max(0, ...p.latencies).toFixed(0).padStart(7)}  ${String(p.refused).padStart(5)}  ${String(p.errors).padStart(6)}  ${(median(p.rss) / 2 ** 20).toFixed(1).padStart(7)}`,
  )
})
console.log(`statuses: ${[...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`).join(', ')}`)
console.log(`errors other than 429: ${errors}${errorSamples.length ? ` (e.g. ${errorSamples.slice(0, 5).join('; ')})` : ''}; 429s: ${refused}`)
console.log(`RSS drift (last period vs first after warm-up): ${(drift * 100).toFixed(1)}% (${(baseline / 2 ** 20).toFixed(1)} -> ${(last / 2 ** 20).toFixed(1)} MB)`)
console.log(`p99 per period: ${p99s.map((x) => x.toFixed(1)).join(', ')} ms; steady (max <= 3x median): ${steady}`)
console.log(`server alive to the end: ${alive}; exit on SIGTERM: ${code}`)
const ok = errors === 0 && drift < 0.1 && steady && alive && code === 0 && refused > 0
console.log(ok ? 'soak: PASS' : 'soak: FAIL')
process.exit(ok ? 0 : 1)
