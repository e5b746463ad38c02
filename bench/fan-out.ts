/**
 * Stream fan-out (docs/follow-new-photos.md): `--only fan-out`. One server, STREAMS open photo
 * streams (1,000; 100 with --quick), then an index update that brings 1,005 new photos (the bundled
 * Spirit sol 1, then Opportunity sol 1, Curiosity sol 1000 and Perseverance sol 0 added): the time
 * from the reload signal until every stream has received every new photo. Beside it, the photo
 * list's throughput with no stream open (the baseline, same run) and with the streams open.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startLoggedServer } from './lib/bench-server'
import type { ScenarioOptions } from './lib/scenario-options'

const DATA = '../shared/data/raw/elbi3__Mars-Rover-Photo-Journal'
const BEFORE = [`${DATA}/spiritSol1.json.gz`]
const AFTER = [...BEFORE, `${DATA}/opportunitySol1.json.gz`, `${DATA}/sol1000Data.json.gz`, `${DATA}/perseveranceSol0.json.gz`]

async function run(root: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const p = Bun.spawn([process.execPath, ...args], { cwd: root, env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  if (code !== 0) throw new Error(`${args.join(' ')} exited ${code}: ${err.slice(-400)}`)
  return out
}


/** Photo-list requests per second over `ms`, from `clients` loops each waiting for its answer. */
async function listThroughput(url: string, key: string, clients: number, ms: number): Promise<number> {
  const end = performance.now() + ms
  let done = 0
  const paths = ['/api/v2/photos?per_page=25', '/api/v2/photos?rovers=curiosity&per_page=10', '/api/v2/photos?sort=-added_at&per_page=25&fields=sol,added_at']
  await Promise.all(Array.from({ length: clients }, async (_, c) => {
    let i = c
    while (performance.now() < end) {
      const r = await fetch(url + paths[i++ % paths.length], { headers: { 'x-api-key': key } })
      await r.arrayBuffer()
      if (r.status !== 200) throw new Error(`list answered ${r.status}`)
      done++
    }
  }))
  return Math.round(done / (ms / 1000))
}

interface Stream { photos: number; completeAt?: number; opened: Promise<void> }

function openStream(url: string, key: string, want: number, s: Stream): void {
  let resolveOpened!: () => void
  s.opened = new Promise((r) => (resolveOpened = r))
  void (async () => {
    const r = await fetch(`${url}/api/v2/photos/stream?fields=sol`, { headers: { 'x-api-key': key } })
    if (r.status !== 200) throw new Error(`stream answered ${r.status}`)
    const reader = r.body!.getReader()
    const decoder = new TextDecoder()
    let first = true
    let tail = ''
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      if (first) { first = false; resolveOpened() }
      const text = tail + decoder.decode(value, { stream: true })
      // Count event headers only (a chunk may end inside an event: the tail is kept).
      let at = 0
      let k: number
      while ((k = text.indexOf('event: photo\n', at)) >= 0) { s.photos++; at = k + 13 }
      tail = text.slice(Math.max(at, text.length - 12))
      if (s.photos >= want && s.completeAt === undefined) {
        s.completeAt = performance.now()
        await reader.cancel()
        return
      }
    }
  })()
}

export async function benchFanOut(o: ScenarioOptions): Promise<Record<string, unknown>> {
  const streams = Number(process.env.FANOUT_STREAMS) || (o.quick ? 100 : 1000)
  const work = mkdtempSync(join(o.workDir ?? tmpdir(), 'fan-out-'))
  const index = join(work, 'index')
  const env = { KEYS_DB: join(work, 'keys.sqlite') }
  let server: { url: string; proc: ReturnType<typeof Bun.spawn> } | undefined
  try {
    await run(o.root, ['index-builder/cli.ts', '--out', index, '--only-sources', ...BEFORE])
    const key = (await run(o.root, ['scripts/keys.ts', 'create', '--email', 'fan-out@example.com'], env)).trimEnd().split('\n').at(-1)!
    server = await startLoggedServer(o.root, {
      ...env, INDEX_DIR: index, STREAMS_PER_KEY: String(streams), RATE_LIMIT_CONCURRENT: String(streams + 100),
      RATE_LIMIT_HOURLY: '100000000', RATE_LIMIT_DAILY: '1000000000', WATCH_INDEX: '0',
    })
    const listMs = o.quick ? 1000 : 5000
    await listThroughput(server.url, key, 8, 300) // warm-up
    const baseline = await listThroughput(server.url, key, 8, listMs)
    o.log(`fan-out: list ${baseline} req/s with no stream open`)
    const open: Stream[] = Array.from({ length: streams }, () => ({ photos: 0, opened: Promise.resolve() }))
    const newPhotos = 95 + 856 + 54
    for (const s of open) openStream(server.url, key, newPhotos, s)
    await Promise.all(open.map((s) => s.opened))
    const withStreams = await listThroughput(server.url, key, 8, listMs)
    o.log(`fan-out: ${streams} streams open; list ${withStreams} req/s`)
    await run(o.root, ['index-builder/cli.ts', '--out', index, '--only-sources', ...AFTER])
    const t0 = performance.now()
    server.proc.kill('SIGHUP')
    const deadline = t0 + 300_000
    while (open.some((s) => s.completeAt === undefined) && performance.now() < deadline) await Bun.sleep(20)
    const times = open.map((s) => (s.completeAt === undefined ? Infinity : (s.completeAt - t0) / 1000)).sort((a, b) => a - b)
    const all = times.at(-1)!
    o.log(`fan-out: ${newPhotos} new photos reached all ${streams} streams in ${all.toFixed(2)} s (median stream ${times[times.length >> 1]!.toFixed(2)} s)`)
    return {
      streams,
      new_photos: newPhotos,
      events_delivered: open.reduce((n, s) => n + s.photos, 0),
      all_delivered_s: Number.isFinite(all) ? Math.round(all * 100) / 100 : null,
      median_stream_s: Math.round(times[times.length >> 1]! * 100) / 100,
      list_rps_no_streams: baseline,
      list_rps_streams_open: withStreams,
      list_ratio: Math.round((withStreams / baseline) * 100) / 100,
    }
  } finally {
    server?.proc.kill()
    rmSync(work, { recursive: true, force: true })
  }
}
