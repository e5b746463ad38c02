/**
 * npm run fuzz -- [--requests N] [--concurrency C] [--seed S] [--wire-share F] [--index DIR]
 *
 * The long hostile-input run (docs/reliability.md, "Hostile input"): N requests (default 100,000)
 * against `bun src/server.ts` spawned on a free loopback port, from the arbitraries of
 * test/support/fuzz-arbitraries.ts: most sent with fetch (keep-alive), a share (default 12%) as raw
 * bytes over fresh connections (malformed framing, raw bytes in the target, odd versions).
 * Property: no 5xx from the app, every app answer holds checkAnswer, the server stays up and logs
 * no `request.failed`. Prints the figures (requests, statuses, layer, duration) and exits 1 on any
 * violation; the first violations are written to <tmpdir>/mv-fuzz-violations-<seed>.json.
 */
import fc from 'fast-check'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { KeyStore } from '../src/keys/key-store'
import { spawnServer } from '../test/setup/test-app'
import {
  describe,
  discoverContext,
  fuzzRequest,
  judgeHttpAnswer,
  rawExchange,
  reachesApp,
  wireRequest,
  type FuzzRequest,
  type RawAnswer,
  type WireRequest,
} from '../test/support/fuzz-arbitraries'

const ROOT = resolve(import.meta.dir, '..')
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(`usage: npm run fuzz -- [--requests N] [--concurrency C] [--seed S] [--wire-share F] [--index DIR]
  Hostile-input run against bun src/server.ts on a free port: no 5xx, every answer well formed.
  --requests N      requests (default 100000)   --concurrency C   in flight (default 16)
  --seed S          fast-check seed             --wire-share F    share sent as raw bytes (default 0.12)
  --index DIR       index folder`)
  process.exit(0)
}
const { values: opts } = parseArgs({
  options: {
    requests: { type: 'string', default: '100000' },
    concurrency: { type: 'string', default: '16' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    'wire-share': { type: 'string', default: '0.12' },
    index: { type: 'string' },
  },
})
const TOTAL = Number(opts.requests)
const CONCURRENCY = Number(opts.concurrency)
const SEED = Number(opts.seed)
const WIRE_SHARE = Number(opts['wire-share'])
const INDEX = opts.index ?? process.env.INDEX_DIR ?? join(ROOT, 'data/index')
const BATCH = 1000

// On a fresh clone no index exists yet: build it (from ../shared/data) like `npm start` does.
if (!existsSync(join(INDEX, 'current')) && !existsSync(join(INDEX, 'manifest.json'))) {
  process.stderr.write(`fuzz: no index at ${INDEX}; building it (index-builder/cli.ts --if-missing)\n`)
  const built = Bun.spawnSync([process.execPath, join(ROOT, 'index-builder/cli.ts'), '--if-missing', '--out', INDEX], { cwd: ROOT, stdout: 'inherit', stderr: 'inherit' })
  if (built.exitCode !== 0) {
    process.stderr.write(`fuzz: building the index into ${INDEX} failed (exit ${built.exitCode})\n`)
    process.exit(1)
  }
}

const work = mkdtempSync(join(tmpdir(), 'mv-fuzz-run-'))
const keysDb = join(work, 'keys.sqlite')
const keys = KeyStore.open(keysDb)
const valid = keys.create('fuzz@example.com', { hourly: 1_000_000_000, daily: 1_000_000_000, concurrent: 10_000 })
const limited = keys.create('fuzz-limited@example.com', { hourly: 200 })
const revoked = keys.create('fuzz-revoked@example.com')
keys.revoke('fuzz-revoked@example.com')
keys.close()

const server = await spawnServer({ KEYS_DB: keysDb, INDEX_DIR: INDEX, LOG_LEVEL: 'info' }, ROOT)
const ctx = await discoverContext((p) => fetch(server.url + p, { headers: { 'x-api-key': valid } }), { valid, limited, revoked })
process.stderr.write(`fuzz: ${TOTAL} requests, concurrency ${CONCURRENCY}, seed ${SEED}, index ${INDEX}, ${ctx.routes.length} routes, server pid ${server.proc.pid}\n`)

type Job = { kind: 'fetch'; r: FuzzRequest } | { kind: 'wire'; w: WireRequest }
const statuses = new Map<string, number>()
const layers = { app: 0, http: 0 }
const violations: Array<{ request: string; violations: string[] }> = []
let violationCount = 0
let done = 0

function tally(key: string) {
  statuses.set(key, (statuses.get(key) ?? 0) + 1)
}

async function runOne(job: Job): Promise<void> {
  let answer: RawAnswer | undefined
  let judged: ReturnType<typeof judgeHttpAnswer>
  let label: string
  if (job.kind === 'wire') {
    answer = await rawExchange(server.port, job.w.bytes)
    judged = judgeHttpAnswer(job.w, answer)
    label = `wire(${job.w.label}) ${new TextDecoder().decode(job.w.bytes.slice(0, 300))}`
  } else {
    const r = job.r
    try {
      const res = await fetch(server.url + r.target, { method: r.method, headers: r.headers, body: r.method === 'GET' || r.method === 'HEAD' ? undefined : r.body })
      answer = { status: res.status, headers: res.headers, body: await res.text() }
    } catch {
      answer = undefined
    }
    judged = judgeHttpAnswer({ method: r.method, framed: reachesApp(r) }, answer)
    label = describe(r)
  }
  layers[judged.layer]++
  tally(answer ? `${answer.status}${judged.layer === 'http' ? ' (http layer)' : ''}` : 'closed (http layer)')
  if (judged.violations.length) {
    violationCount++
    if (violations.length < 50) violations.push({ request: label, violations: judged.violations })
  }
}

const started = performance.now()
let peakRss = 0
const rssOf = async (): Promise<number> => {
  try {
    const status = await Bun.file(`/proc/${server.proc.pid}/status`).text()
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024
  } catch {
    return 0
  }
}
for (let b = 0; b * BATCH < TOTAL && server.proc.exitCode === null; b++) {
  const n = Math.min(BATCH, TOTAL - b * BATCH)
  const wireN = Math.round(n * WIRE_SHARE)
  const jobs: Job[] = [
    ...fc.sample(fuzzRequest(ctx), { numRuns: n - wireN, seed: SEED + 2 * b }).map((r) => ({ kind: 'fetch' as const, r })),
    ...fc.sample(wireRequest(ctx), { numRuns: wireN, seed: SEED + 2 * b + 1 }).map((w) => ({ kind: 'wire' as const, w })),
  ]
  let next = 0
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < jobs.length) await runOne(jobs[next++]!)
    }),
  )
  done += jobs.length
  peakRss = Math.max(peakRss, await rssOf())
  if (done % 10_000 === 0 || done === TOTAL)
    process.stderr.write(`fuzz: ${done}/${TOTAL} in ${((performance.now() - started) / 1000).toFixed(1)} s, violations ${violationCount}, server rss ${(peakRss / 2 ** 20).toFixed(0)} MB\n`)
}
const seconds = (performance.now() - started) / 1000

let healthy = false
try {
  healthy = (await fetch(`${server.url}/health`)).status === 200
} catch {
  healthy = false
}
const alive = server.proc.exitCode === null
const failedLogs = server.lines.filter((l) => l.includes('"request.failed"'))
const code = alive ? await server.stop('SIGTERM') : server.proc.exitCode
rmSync(work, { recursive: true, force: true })

const app5xx = [...statuses].filter(([k]) => /^5\d\d$/.test(k)).reduce((n, [, c]) => n + c, 0)
const ok = violationCount === 0 && app5xx === 0 && alive && healthy && failedLogs.length === 0 && code === 0
const rows = [...statuses].sort(([a], [b]) => a.localeCompare(b))
console.log(`fuzz run: ${done} requests in ${seconds.toFixed(1)} s (${Math.round(done / seconds)}/s), seed ${SEED}, concurrency ${CONCURRENCY}`)
console.log(`  reached the app: ${layers.app}; refused by the HTTP layer (Bun's parser: closed, bare 400/431/505): ${layers.http}`)
console.log(`  statuses: ${rows.map(([k, c]) => `${k}: ${c}`).join(', ')}`)
console.log(`  5xx from the app: ${app5xx}; property violations: ${violationCount}; request.failed logged: ${failedLogs.length}`)
console.log(`  server alive after the run: ${alive}, /health: ${healthy ? 200 : 'failed'}, exit on SIGTERM: ${code}, peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MB`)
if (violations.length || failedLogs.length) {
  const out = join(tmpdir(), `mv-fuzz-violations-${SEED}.json`)
  writeFileSync(out, JSON.stringify({ seed: SEED, violations, failedLogs: failedLogs.slice(0, 50) }, null, 2))
  console.log(`  first violations: ${out}`)
  for (const v of violations.slice(0, 5)) console.log(`  - ${v.request.slice(0, 300)}\n    -> ${v.violations.join('; ').slice(0, 300)}`)
}
console.log(ok ? 'fuzz: PASS' : 'fuzz: FAIL')
process.exit(ok ? 0 : 1)
