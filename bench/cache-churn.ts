/**
 * How large does the server grow while clients keep asking for pages it has not cached?
 * Usage: bun bench/cache-churn.ts [--index DIR] [--seconds N] [--clients N] [--pages N]
 *
 * The server is `bun app/server.ts` on the index (default data/index-synthetic, the 1.9M-photo
 * synthetic catalogue, built first when missing), with its runtime settings and default response
 * cache. Clients walk, round after round, every 100-photo page of one sol of the rover with most
 * photos (sols with at least 100 photos), so most answers are computed, cached and later evicted.
 * The server's VmRSS is sampled every 100 ms; the figure is its peak growth over the VmRSS just
 * before the walk (the baseline, same run), beside the requests answered and the response cache's
 * turnovers (each a full collection of the texts it dropped: src/query/response-cache.ts).
 * Prints one JSON line.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { withRuntimeEnv } from '../app/runtime-env'
import { KeyStore } from '../src/keys/key-store'
import { freePort, stopProcess, waitReady } from './lib/processes'
import { buildSynthetic } from './start-size'

const args = process.argv.slice(2)
const opt = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback
}
const root = join(import.meta.dir, '..')
const indexDir = opt('index', join(root, 'data/index-synthetic'))
const seconds = Number(opt('seconds', '20'))
const clients = Number(opt('clients', '8'))
/** Only the first N pages (0: all): a set small enough to stay cached, each page asked again and again. */
const pageLimit = Number(opt('pages', '0'))
if (!(seconds > 0 && seconds <= 600) || !(clients >= 1 && clients <= 64)) throw new Error('--seconds 1..600, --clients 1..64')

if (!existsSync(join(indexDir, 'current', 'manifest.json'))) await buildSynthetic(root, indexDir, 1, 20120806)

const dir = mkdtempSync(join(tmpdir(), 'mars-bench-churn-'))
const keys = KeyStore.open(join(dir, 'keys.sqlite'))
const key = keys.create('bench@example.com')
keys.close()
const port = await freePort()
const token = crypto.randomUUID()
const server = Bun.spawn([process.execPath, 'app/server.ts'], {
  cwd: root,
  env: withRuntimeEnv({ ...process.env, PORT: String(port), INDEX_DIR: indexDir, KEYS_DB: join(dir, 'keys.sqlite'), WATCH_INDEX: '0', LOG_LEVEL: 'warn', RATE_LIMIT_HOURLY: '1000000000', RATE_LIMIT_DAILY: '1000000000', REDIS_URL: '', METRICS_TOKEN: token }),
  stdout: 'ignore',
  stderr: 'inherit',
})
const origin = `http://127.0.0.1:${port}`
const auth = { 'x-api-key': key }

const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))![1]) / 1024
const turnovers = async () => {
  const text = await (await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text()
  return Number(/^response_cache_turnovers_total(?:\{\})? (\d+)/m.exec(text)?.[1] ?? NaN)
}

try {
  await waitReady(`${origin}/health`, server)
  const stats = async (q: string) => ((await (await fetch(`${origin}/api/v2/photos/stats?${q}`, { headers: auth })).json()) as { data: { groups: Array<{ key: string; count: number }> } }).data.groups
  const rover = (await stats('group_by=rover')).sort((a, b) => b.count - a.count)[0].key
  const pages: string[] = []
  for (const g of await stats(`group_by=sol&rovers=${rover}`))
    for (let p = 1; g.count >= 100 && p <= Math.ceil(g.count / 100); p++) pages.push(`/api/v2/photos?rovers=${rover}&sol=${g.key}&per_page=100&page=${p}`)
  if (pageLimit > 0) pages.length = Math.min(pages.length, pageLimit)
  if (pages.length === 0) throw new Error('no sol with 100 photos in this index')

  const before = rssMb()
  const turnoversBefore = await turnovers()
  let peak = before
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb())), 100)
  const end = performance.now() + seconds * 1000
  let next = 0
  let answered = 0
  let failed = 0
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const r = await fetch(origin + pages[next++ % pages.length], { headers: auth })
        await r.arrayBuffer()
        if (r.status === 200) answered++
        else failed++
      }
    }),
  )
  clearInterval(sampler)
  peak = Math.max(peak, rssMb())
  console.log(JSON.stringify({
    index: indexDir, rover, distinct_pages: pages.length, seconds, clients, answered, failed,
    rps: Math.round(answered / seconds), rss_before_mb: Math.round(before), rss_peak_mb: Math.round(peak),
    rss_growth_mb: Math.round(peak - before), rss_after_mb: Math.round(rssMb()), cache_turnovers: (await turnovers()) - turnoversBefore,
  }))
} finally {
  await stopProcess(server)
  rmSync(dir, { recursive: true, force: true })
}
