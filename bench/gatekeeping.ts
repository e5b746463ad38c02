/**
 * Gatekeeping cost: throughput of `GET /api/v2/rovers` through the assembled app (errors,
 * content type, auth, ETag, rate limit, body limit: every plugin of app/app.ts) against the same
 * route plugin alone (with only the JsonBody -> Response step it cannot answer without), in the
 * same process and the same run, rounds alternating so drift hits both alike. In process via
 * app.handle: it measures the plugins' own CPU cost, without the network in the figure. When
 * redis-server is installed, a third variant uses the Redis counter store (leased blocks).
 *
 * Self-contained: `bun bench/gatekeeping.ts [--quick] [--index DIR]`, or benchGatekeeping(opts)
 * from bench/run.ts. Uses its own temporary key file; never touches data/keys.sqlite.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { RouteDocs } from '../src/http/route-docs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Elysia } from 'elysia'
import { createApp } from '../app/app'
import type { AppDeps } from '../src/app-deps'
import { loadConfig } from '../src/config'
import { JsonBody } from '../src/http/json-body'
import { KeyStore } from '../src/keys/key-store'
import type { CounterStore } from '../src/limits/counter-store'
import { MemoryCounterStore } from '../src/limits/memory-counter-store'
import { RedisCounterStore } from '../src/limits/redis-counter-store'
import { loadStore } from '../src/store/load-store'
import { StoreHolder } from '../src/store/store-holder'
import { roversPlugin } from '../plugins/rovers'

export interface GatekeepingOptions {
  quick?: boolean
  /** Index folder (holds `current`); default INDEX_DIR, else data/index-test. */
  indexDir?: string
  log?: (line: string) => void
}

export interface GatekeepingVariant {
  name: string
  description: string
  /** Median over rounds of requests per second (sequential app.handle calls). */
  rps: number
  /** Median µs per request. */
  us_per_request: number
  /** Same with 32 requests in flight (Promise.all batches). */
  rps_concurrent_32: number
  status: number
}

export interface GatekeepingResult {
  route: string
  index_version: string
  rounds: number
  requests_per_round: number
  variants: GatekeepingVariant[]
  /** µs the gatekeeping adds per request (memory counters), and the throughput ratio gated/bare. */
  overhead_us: number
  ratio: number
  redis?: { overhead_us: number; ratio: number } | { skipped: string }
  /** The same two apps behind Bun.serve on 127.0.0.1, loaded by wrk (when installed). */
  http?: { generator: string; connections: number; duration_s: number; runs: number; bare_rps: number; gated_rps: number; ratio: number } | { skipped: string }
  machine: { cpus: number; model: string; bun: string }
  markdown: string
}

const ROUTE = '/api/v2/rovers'
const HUGE = 1_000_000_000

type Handle = (r: Request) => Promise<Response> | Response

export async function benchGatekeeping(opts: GatekeepingOptions = {}): Promise<GatekeepingResult> {
  const log = opts.log ?? ((l: string) => process.stderr.write(l + '\n'))
  const quick = opts.quick ?? false
  const indexDir = resolve(opts.indexDir ?? process.env.INDEX_DIR ?? join(import.meta.dir, '..', 'data', 'index-test'))
  // Many short alternating blocks: on a shared machine, load swings hit every variant alike and the
  // per-round paired difference (gated - bare) stays meaningful; medians over the rounds.
  const rounds = quick ? 4 : 40
  const perRound = quick ? 250 : 1_000
  const tmp = mkdtempSync(join(tmpdir(), 'mv-bench-gate-'))
  const closers: Array<() => unknown> = []
  try {
    const store = await loadStore(indexDir)
    const config = loadConfig({ indexDir, keysDb: join(tmp, 'keys.sqlite'), redisUrl: undefined })
    const keys = KeyStore.open(config.keysDb)
    closers.push(() => keys.close())
    const key = keys.create('bench@example.invalid', { hourly: HUGE, daily: HUGE, concurrent: 100_000 })
    const quiet = { log() {} }
    const deps = (limits: CounterStore): AppDeps => ({ config, stores: new StoreHolder(store), keys, limits, log: quiet })

    const gated = createApp(deps(new MemoryCounterStore()))
    const bareDeps = { ...deps(new MemoryCounterStore()), routes: new RouteDocs() }
    const bare = new Elysia()
      .mapResponse(({ response }) =>
        response instanceof JsonBody ? new Response(response.text, { status: response.status, headers: { 'content-type': 'application/json; charset=utf-8', ...response.headers } }) : undefined,
      )
      .use(roversPlugin(bareDeps))

    const variants: Array<{ name: string; description: string; handle: Handle }> = [
      { name: 'bare', description: 'rovers plugin alone (+ JsonBody -> Response)', handle: (r) => bare.handle(r) },
      { name: 'gated-memory', description: 'assembled app, in-memory counters', handle: (r) => gated.handle(r) },
    ]

    let redisNote: GatekeepingResult['redis'] = { skipped: 'redis-server not installed' }
    const redisBin = Bun.which('redis-server')
    if (redisBin && !quick) {
      const port = 20_000 + Math.floor(Math.random() * 20_000)
      const proc = Bun.spawn([redisBin, '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdout: 'ignore', stderr: 'ignore' })
      closers.push(() => proc.kill())
      await Bun.sleep(300)
      const limits = await RedisCounterStore.open(`redis://127.0.0.1:${port}`, quiet)
      closers.push(() => limits.close())
      if (limits.connected) {
        const app = createApp(deps(limits))
        variants.push({ name: 'gated-redis', description: 'assembled app, Redis counters (leased blocks, loopback)', handle: (r) => app.handle(r) })
      } else redisNote = { skipped: 'redis-server did not start' }
    } else if (quick) redisNote = { skipped: 'not in --quick runs' }

    const url = `http://localhost${ROUTE}`
    const make = () => new Request(url, { headers: { 'x-api-key': key } })
    const statuses: Record<string, number> = {}
    for (const v of variants) {
      const r = await v.handle(make())
      statuses[v.name] = r.status
      await r.arrayBuffer()
      if (r.status !== 200) throw new Error(`${v.name}: GET ${ROUTE} answered ${r.status}`)
      for (let i = 0; i < 300; i++) await (await v.handle(make())).arrayBuffer() // warm-up
    }

    const seq: Record<string, number[]> = {} // µs per request, per round
    const conc: Record<string, number[]> = {}
    for (let round = 0; round < rounds; round++) {
      for (const v of round % 2 ? [...variants].reverse() : variants) {
        let t0 = performance.now()
        for (let i = 0; i < perRound; i++) await (await v.handle(make())).arrayBuffer()
        ;(seq[v.name] ??= []).push(((performance.now() - t0) * 1000) / perRound)
        t0 = performance.now()
        for (let i = 0; i < perRound; i += 32) await Promise.all(Array.from({ length: 32 }, async () => (await v.handle(make())).arrayBuffer()))
        ;(conc[v.name] ??= []).push(((performance.now() - t0) * 1000) / (Math.ceil(perRound / 32) * 32))
      }
      if ((round + 1) % 10 === 0 || round + 1 === rounds)
        log(`gatekeeping: round ${round + 1}/${rounds} ` + variants.map((v) => `${v.name} ${round1(seq[v.name]!.at(-1)!)} µs`).join(', '))
    }

    const out: GatekeepingVariant[] = variants.map((v) => {
      const us = median(seq[v.name]!)
      return { name: v.name, description: v.description, rps: Math.round(1e6 / us), us_per_request: round1(us), rps_concurrent_32: Math.round(1e6 / median(conc[v.name]!)), status: statuses[v.name]! }
    })
    const by = Object.fromEntries(out.map((v) => [v.name, v]))
    /** Median over rounds of the same-round difference to bare, µs. */
    const paired = (name: string) => round1(median(seq[name]!.map((us, i) => us - seq.bare![i]!)))
    const overhead = paired('gated-memory')
    const ratio = round3(by['gated-memory']!.rps / by.bare!.rps)
    if (by['gated-redis']) redisNote = { overhead_us: paired('gated-redis'), ratio: round3(by['gated-redis'].rps / by.bare!.rps) }
    const http = await overHttp(bare, gated, key, quick, log)
    const cpus = navigator.hardwareConcurrency
    const model = (await Bun.file('/proc/cpuinfo').text().catch(() => '')).match(/model name\s*:\s*(.+)/)?.[1]?.trim() ?? 'unknown'
    const result: Omit<GatekeepingResult, 'markdown'> = {
      route: ROUTE,
      index_version: store.version,
      rounds,
      requests_per_round: perRound,
      variants: out,
      overhead_us: overhead,
      ratio,
      redis: redisNote,
      http,
      machine: { cpus, model, bun: Bun.version },
    }
    return { ...result, markdown: markdown(result) }
  } finally {
    for (const c of closers.reverse()) await c()
    rmSync(tmp, { recursive: true, force: true })
  }
}

function markdown(r: Omit<GatekeepingResult, 'markdown'>): string {
  const lines = [
    `\`GET ${r.route}\` in process (app.handle), index ${r.index_version}, ${r.rounds} alternating rounds of ${r.requests_per_round} requests per variant, medians over the rounds (overhead: median of the same-round differences); ${r.machine.cpus} CPUs (${r.machine.model}), Bun ${r.machine.bun}.`,
    '',
    '| variant | req/s (1 in flight) | µs/request | req/s (32 in flight) |',
    '|---|---:|---:|---:|',
    ...r.variants.map((v) => `| ${v.name}: ${v.description} | ${v.rps} | ${v.us_per_request} | ${v.rps_concurrent_32} |`),
    '',
    `Gatekeeping (errors, content type, auth, ETag, rate limit with in-memory counters) adds **${r.overhead_us} µs** per request: the gated route runs at **${Math.round(r.ratio * 100)}%** of the bare route's throughput.`,
  ]
  if (r.http && 'ratio' in r.http)
    lines.push(
      `Over HTTP (Bun.serve on 127.0.0.1, ${r.http.generator}, ${r.http.connections} connections, ${r.http.runs} alternating runs of ${r.http.duration_s} s, medians): bare ${r.http.bare_rps} req/s, gated ${r.http.gated_rps} req/s (**${Math.round(r.http.ratio * 100)}%**).`,
    )
  else if (r.http) lines.push(`HTTP variant: skipped (${r.http.skipped}).`)
  if (r.redis && 'overhead_us' in r.redis) lines.push(`With the Redis counter store: +${r.redis.overhead_us} µs per request, ${Math.round(r.redis.ratio * 100)}% of bare (counters leased from Redis in blocks).`)
  else if (r.redis) lines.push(`Redis variant: skipped (${r.redis.skipped}).`)
  return lines.join('\n')
}

/** Both apps behind Bun.serve, loaded in turn by wrk (a separate process; loopback only). */
async function overHttp(
  bare: { fetch: (r: Request) => Response | Promise<Response> },
  gated: { fetch: (r: Request) => Response | Promise<Response> },
  key: string,
  quick: boolean,
  log: (l: string) => void,
): Promise<GatekeepingResult['http']> {
  const wrk = Bun.which('wrk')
  if (!wrk) return { skipped: 'wrk is not installed (apt-get install -y wrk)' }
  if (quick) return { skipped: 'not in --quick runs' }
  const runs = 3
  const durationS = 3
  const connections = 16
  const servers = [bare, gated].map((app) => Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (r) => app.fetch(r) }))
  try {
    const rps: number[][] = [[], []]
    for (let run = 0; run < runs; run++) {
      for (const i of run % 2 ? [1, 0] : [0, 1]) {
        // Asynchronous spawn: the servers answer from this process's event loop while wrk runs.
        const p = Bun.spawn([wrk, '-t1', `-c${connections}`, `-d${durationS}s`, '-H', `X-API-Key: ${key}`, `http://127.0.0.1:${servers[i]!.port}${ROUTE}`], { stdout: 'pipe', stderr: 'pipe' })
        const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
        const m = out.match(/Requests\/sec:\s*([\d.]+)/)
        if (code !== 0 || !m) return { skipped: `wrk failed: ${(err || out).trim().split('\n').pop()}` }
        if (/Non-2xx or 3xx responses/.test(out)) return { skipped: `wrk saw non-2xx answers: ${out.trim().split('\n').pop()}` }
        rps[i]!.push(Number(m[1]))
      }
      log(`gatekeeping: http run ${run + 1}/${runs} bare ${Math.round(rps[0]!.at(-1)!)} req/s, gated ${Math.round(rps[1]!.at(-1)!)} req/s`)
    }
    const b = median(rps[0]!)
    const g = median(rps[1]!)
    return { generator: 'wrk', connections, duration_s: durationS, runs, bare_rps: Math.round(b), gated_rps: Math.round(g), ratio: round3(g / b) }
  } finally {
    for (const s of servers) s.stop(true)
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}
const round1 = (x: number) => Math.round(x * 10) / 10
const round3 = (x: number) => Math.round(x * 1000) / 1000

if (import.meta.main) {
  const args = process.argv.slice(2)
  const i = args.indexOf('--index')
  const r = await benchGatekeeping({ quick: args.includes('--quick'), indexDir: i >= 0 ? args[i + 1] : undefined })
  console.log(r.markdown)
}
