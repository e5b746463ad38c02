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
 * turnovers (each a full collection of the texts it dropped: src/query/cache/dropped-texts.ts).
 * With --pages N, only the first N pages: a hot set that stays cached, every answer a hit.
 * Prints one JSON line.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { startBenchServer } from './lib/bench-server'
import { rssMb, whileSampled } from './lib/process-usage'
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

const token = crypto.randomUUID()
const server = await startBenchServer(root, indexDir, { METRICS_TOKEN: token })
const { origin, key } = server
const auth = { 'x-api-key': key }

const turnovers = async () => {
  const text = await (await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text()
  return Number(/^response_cache_turnovers_total(?:\{\})? (\d+)/m.exec(text)?.[1] ?? NaN)
}

try {
  const stats = async (q: string) => ((await (await fetch(`${origin}/api/v2/photos/stats?${q}`, { headers: auth })).json()) as { data: { groups: Array<{ key: string; count: number }> } }).data.groups
  const rover = (await stats('group_by=rover')).sort((a, b) => b.count - a.count)[0].key
  const pages: string[] = []
  for (const g of await stats(`group_by=sol&rovers=${rover}`))
    for (let p = 1; g.count >= 100 && p <= Math.ceil(g.count / 100); p++) pages.push(`/api/v2/photos?rovers=${rover}&sol=${g.key}&per_page=100&page=${p}`)
  if (pageLimit > 0) pages.length = Math.min(pages.length, pageLimit)
  if (pages.length === 0) throw new Error('no sol with 100 photos in this index')

  const before = rssMb(server.proc.pid).rss
  const turnoversBefore = await turnovers()
  const end = performance.now() + seconds * 1000
  let next = 0
  let answered = 0
  let failed = 0
  const { usage } = await whileSampled(server.proc.pid, 100, () =>
    Promise.all(
      Array.from({ length: clients }, async () => {
        while (performance.now() < end) {
          const r = await fetch(origin + pages[next++ % pages.length], { headers: auth })
          await r.arrayBuffer()
          if (r.status === 200) answered++
          else failed++
        }
      }),
    ),
  )
  console.log(JSON.stringify({
    index: indexDir, rover, distinct_pages: pages.length, seconds, clients, answered, failed,
    rps: Math.round(answered / seconds), rss_before_mb: Math.round(before), rss_peak_mb: Math.round(before + usage.rss),
    rss_growth_mb: Math.round(usage.rss), rss_after_mb: Math.round(rssMb(server.proc.pid).rss), cache_turnovers: (await turnovers()) - turnoversBefore,
  }))
} finally {
  await server.stop()
}
