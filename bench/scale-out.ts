/**
 * Scale-out: what sharing the limits through Redis costs, and what a second worker process buys.
 * Over HTTP on loopback (wrk), the same route and key on three deployments started here:
 *   memory   — one `bun app/server.ts`, in-memory counters (the baseline)
 *   redis    — one process, counters in Redis (leased blocks: src/limits/redis-counter-store.ts)
 *   workers2 — WORKERS=2 on one port, counters in Redis
 * at 32 connections and at 1, runs alternating, medians. Goals: redis ≥ 80% of memory at 32 in
 * flight and ≥ 50% at 1. `bun bench/run.ts --only scale-out`.
 *
 * Each process holds its own copy of the index (about 5 GB at --scale 10), so four of them at
 * once do not fit beside the bench above scale ONE_AT_A_TIME_ABOVE: there each deployment is
 * started, measured and stopped before the next, and the table says so. Readiness waits grow
 * with the scale, since loading is linear in the rows.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { ensureWrk, runWrk, type WrkRun } from './http/wrk'
import { median, round3 } from './lib/measure'
import { freePort, stopProcess, waitReady } from './lib/processes'
import type { ScenarioOptions } from './lib/scenario-options'
import { ScenarioSkip } from './lib/scenario-skip'

const BIG = '1000000000'
/** Above this synthetic scale, deployments run one at a time (memory), not side by side. */
const ONE_AT_A_TIME_ABOVE = 2
const ROUTE = '/api/v2/rovers'
export const SCALE_OUT_GOALS = { redis_32: 0.8, redis_1: 0.5 }

type Deployment = 'memory' | 'redis' | 'workers2'
const DEPLOYMENTS: Deployment[] = ['memory', 'redis', 'workers2']

export interface ScaleOutResult {
  route: string
  runs: number
  duration_s: number
  rps: Record<'memory' | 'redis' | 'workers2', { c32: number; c1: number }>
  ratios: { redis_32: number; redis_1: number; workers2_32: number }
  met: { redis_32: boolean; redis_1: boolean }
  markdown: string
}

export async function benchScaleOut(o: ScenarioOptions): Promise<{ result: ScaleOutResult }> {
  const wrk = ensureWrk(o.log)
  if (!wrk.path) throw new ScenarioSkip(wrk.reason ?? 'wrk is not installed')
  const redisBin = Bun.which('redis-server')
  if (!redisBin) throw new ScenarioSkip('redis-server is not installed')
  const runs = o.quick ? 1 : 3
  const durationS = o.quick ? 1 : 4
  const tmp = mkdtempSync(join(tmpdir(), 'mars-bench-scale-'))
  const procs: Subprocess[] = []
  try {
    const rport = await freePort()
    procs.push(Bun.spawn([redisBin, '--port', String(rport), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdout: 'ignore', stderr: 'ignore' }))
    const redisUrl = `redis://127.0.0.1:${rport}`
    const env = { ...process.env, INDEX_DIR: o.indexDir, KEYS_DB: join(tmp, 'keys.sqlite'), WATCH_INDEX: 'false', LOG_LEVEL: 'warn', REDIS_URL: '' }
    const made = Bun.spawnSync([process.execPath, 'scripts/keys.ts', 'create', '--email', 'scale@example.invalid', '--hourly', BIG, '--daily', BIG, '--concurrent', '100000'], { cwd: o.root, env })
    const key = made.stdout.toString().trim().split('\n').pop()?.trim()
    if (made.exitCode !== 0 || !key) throw new Error(`keys CLI failed: ${made.stderr.toString().trim()}`)

    const readyMs = 60_000 * Math.max(1, o.scale)
    const start = async (name: Deployment) => {
      const port = await freePort()
      const extra = name === 'memory' ? {} : name === 'redis' ? { REDIS_URL: redisUrl } : { REDIS_URL: redisUrl, WORKERS: '2' }
      const p = Bun.spawn([process.execPath, 'app/server.ts'], { cwd: o.root, env: { ...env, ...extra, PORT: String(port) }, stdout: 'ignore', stderr: 'ignore' })
      procs.push(p)
      await waitReady(`http://127.0.0.1:${port}/health`, p, readyMs)
      return { url: `http://127.0.0.1:${port}${ROUTE}`, proc: p }
    }
    const seen: Record<string, WrkRun[]> = {}
    const measure = async (name: Deployment, url: string, c: number, r: number) => {
      const run = await runWrk(wrk.path!, url, { threads: 1, connections: c, durationS, headers: { 'X-API-Key': key } })
      if (run.bad_status + run.socket_errors > 0) throw new Error(`${name} at ${c} connections: ${run.bad_status} bad statuses, ${run.socket_errors} socket errors`)
      ;(seen[`${name}/${c}`] ??= []).push(run)
      o.log(`  scale-out run ${r + 1} ${name} c${c}: ${Math.round(run.rps)} req/s`)
    }
    const oneAtATime = o.scale > ONE_AT_A_TIME_ABOVE
    if (oneAtATime) {
      for (const name of DEPLOYMENTS) {
        const d = await start(name)
        for (let r = 0; r < runs; r++) for (const c of [32, 1]) await measure(name, d.url, c, r)
        await stopProcess(d.proc)
      }
    } else {
      const urls = { memory: (await start('memory')).url, redis: (await start('redis')).url, workers2: (await start('workers2')).url }
      for (let r = 0; r < runs; r++) for (const c of [32, 1]) for (const name of DEPLOYMENTS) await measure(name, urls[name], c, r)
    }
    const rps = (name: string, c: number) => round3(median(seen[`${name}/${c}`]!.map((x) => x.rps)))
    const table = {
      memory: { c32: rps('memory', 32), c1: rps('memory', 1) },
      redis: { c32: rps('redis', 32), c1: rps('redis', 1) },
      workers2: { c32: rps('workers2', 32), c1: rps('workers2', 1) },
    }
    const ratios = { redis_32: round3(table.redis.c32 / table.memory.c32), redis_1: round3(table.redis.c1 / table.memory.c1), workers2_32: round3(table.workers2.c32 / table.memory.c32) }
    const met = { redis_32: ratios.redis_32 >= SCALE_OUT_GOALS.redis_32, redis_1: ratios.redis_1 >= SCALE_OUT_GOALS.redis_1 }
    const pct = (x: number) => `${Math.round(x * 100)}%`
    const markdown = [
      `\`GET ${ROUTE}\` over HTTP (wrk, 1 thread, ${runs} ${oneAtATime ? '' : 'alternating '}run(s) of ${durationS} s, medians), one key with limits raised for the bench.` +
        (oneAtATime ? ` At scale ${o.scale} each process holds its own copy of the index, so the deployments ran one at a time (each started, measured, stopped), not side by side.` : ''),
      '',
      '| deployment | req/s, 32 connections | req/s, 1 connection |',
      '|---|---:|---:|',
      `| memory: one process, in-memory counters | ${Math.round(table.memory.c32)} | ${Math.round(table.memory.c1)} |`,
      `| redis: one process, Redis counters (leased blocks) | ${Math.round(table.redis.c32)} (${pct(ratios.redis_32)}, goal ≥ 80%) | ${Math.round(table.redis.c1)} (${pct(ratios.redis_1)}, goal ≥ 50%) |`,
      `| workers2: WORKERS=2 on one port, Redis counters | ${Math.round(table.workers2.c32)} (${pct(ratios.workers2_32)}) | ${Math.round(table.workers2.c1)} |`,
      '',
      'wrk runs on the same 2 cores as the servers, so WORKERS=2 competes with the load generator for them.',
    ].join('\n')
    return { result: { route: ROUTE, runs, duration_s: durationS, rps: table, ratios, met, markdown } }
  } finally {
    for (const p of procs.reverse()) await stopProcess(p)
    rmSync(tmp, { recursive: true, force: true })
  }
}
