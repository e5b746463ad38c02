/**
 * npm run fuzz -- [--requests N] [--concurrency C] [--seed S] [--wire-share F] [--index DIR]
 *
 * The long hostile-input run (docs/reliability.md, "Hostile input"): N requests (default 100,000)
 * against `bun app/server.ts` spawned on a free loopback port, from the arbitraries of
 * test/support/fuzz-arbitraries.ts: most sent with fetch (keep-alive), a share (default 12%) as raw
 * bytes over fresh connections (malformed framing, raw bytes in the target, odd versions).
 * Properties: no 5xx from the app; every app answer holds checkAnswer (problem documents, and
 * never HTML outside the docs page, a stack frame or a server path); a request without a valid
 * key never reaches a keyed handler (keyViolations); one ETag never stands for two different
 * bodies; a sample of cached answers (--diff-every) equals the answer of a second server that
 * runs without the response cache; the server stays up and logs no `request.failed`.
 * Security classes (test/support/security-probes.ts, --security-share of the requests, default
 * 3%): the dashboard's sign-in POST under hostile Host/Origin/forwarded headers and spellings of
 * a few victims' addresses (a mailed link not at PUBLIC_URL, a mail to anything but one canonical
 * mailbox, or more mails to one mailbox than its limits is a violation), and CSV exports of an
 * index built from a feed whose texts begin with `=`, `+`, `-`, `@` (a field that would run as a
 * formula is a violation).
 * MCP class (--mcp-share, default 5%): POSTs to /mcp of malformed JSON-RPC (wrong ids, huge batches,
 * unknown methods, oversized and wrong-typed arguments for the tools tools/list names, wrong media
 * types and keys): besides the property, no tool may fail on the server and no answer may be a
 * JSON-RPC internal error (mcpViolations). The MCP requests run last, as a phase of their own
 * after the mixed run: the server's RSS growing more than --rss-growth-mb (default 100) across that
 * phase (start to peak) is a failure.
 * Requests include Host fuzzing with path prefixes, parameter names in other cases, repeated
 * parameters in any order and 15,000-character values for every parameter. Each request's time
 * is measured and reported against --budget-ms (reported, not asserted: the machine may be shared).
 * Prints the figures and exits 1 on any violation; the first violations are written to
 * <tmpdir>/mv-fuzz-violations-<seed>.json. Builds the index first when none exists.
 */
import fc from 'fast-check'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { KeyStore } from '../src/keys/key-store'
import { spawnServer } from '../test/setup/test-app'
import {
  carriesKey,
  describe,
  keyViolations,
  siblingTarget,
  discoverContext,
  fuzzRequest,
  judgeHttpAnswer,
  mcpRequest,
  mcpViolations,
  rawExchange,
  reachesApp,
  wireRequest,
  type FuzzRequest,
  type RawAnswer,
  type WireRequest,
} from '../test/support/fuzz-arbitraries'
import { buildIndex } from '../index-builder/build-index'
import { csvViolations, exportJob, mailViolations, runSignIn, SECURITY_ENV, signInJob, writeFormulaFeed, type SecurityJob } from '../test/support/security-probes'

const ROOT = resolve(import.meta.dir, '..')
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(`usage: npm run fuzz -- [--requests N] [--concurrency C] [--seed S] [--wire-share F] [--index DIR]
  Hostile-input run against bun app/server.ts on a free port: no 5xx, every answer well formed.
  --requests N      requests (default 100000)   --concurrency C   in flight (default 16)
  --seed S          fast-check seed             --wire-share F    share sent as raw bytes (default 0.12)
  --index DIR       index folder                --security-share F  share of security-class requests (default 0.03)
  --mcp-share F     share of MCP JSON-RPC requests, run last (default 0.05)   --rss-growth-mb M  RSS growth allowed across the MCP phase (default 100)`)
  process.exit(0)
}
const { values: opts } = parseArgs({
  options: {
    requests: { type: 'string', default: '100000' },
    concurrency: { type: 'string', default: '16' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    'wire-share': { type: 'string', default: '0.12' },
    index: { type: 'string' },
    'diff-every': { type: 'string', default: '10' },
    'budget-ms': { type: 'string', default: '250' },
    'security-share': { type: 'string', default: '0.03' },
    'mcp-share': { type: 'string', default: '0.05' },
    'rss-growth-mb': { type: 'string', default: '100' },
  },
})
const DIFF_EVERY = Math.max(1, Number(opts['diff-every']))
const BUDGET_MS = Number(opts['budget-ms'])
const TOTAL = Number(opts.requests)
const CONCURRENCY = Number(opts.concurrency)
const SEED = Number(opts.seed)
const WIRE_SHARE = Number(opts['wire-share'])
const SECURITY_SHARE = Number(opts['security-share'])
const MCP_SHARE = Number(opts['mcp-share'])
const RSS_GROWTH_MB = Number(opts['rss-growth-mb'])
const MCP_TOTAL = Math.round(TOTAL * MCP_SHARE)
const MIXED_TOTAL = TOTAL - MCP_TOTAL
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

const server = await spawnServer({ KEYS_DB: keysDb, INDEX_DIR: INDEX, LOG_LEVEL: 'info', SMTP_URL: '', ...SECURITY_ENV }, ROOT)
// The reference for the differential check: the same index and keys, no response cache.
const fresh = await spawnServer({ KEYS_DB: keysDb, INDEX_DIR: INDEX, LOG_LEVEL: 'info', RESPONSE_CACHE_ENTRIES: '0', SMTP_URL: '', ...SECURITY_ENV }, ROOT)
// The export class runs against an index built from a feed of formula-leading texts.
const feed = writeFormulaFeed(join(work, 'formula-feed'), 2_000, SEED)
await buildIndex({ out: join(work, 'formula-index'), sources: [feed.file], progress: false })
const formulaServer = await spawnServer({ KEYS_DB: keysDb, INDEX_DIR: join(work, 'formula-index'), LOG_LEVEL: 'info' }, ROOT)
let securityJobs = 0
const ctx = await discoverContext((p, init) => fetch(server.url + p, { ...init, headers: { ...(init?.headers as Record<string, string>), 'x-api-key': valid } }), { valid, limited, revoked })
process.stderr.write(`fuzz: ${TOTAL} requests, concurrency ${CONCURRENCY}, seed ${SEED}, index ${INDEX}, ${ctx.routes.length} routes, server pid ${server.proc.pid}\n`)

type Job = { kind: 'fetch'; r: FuzzRequest; mcp?: boolean } | { kind: 'wire'; w: WireRequest } | { kind: 'security'; s: SecurityJob }
const statuses = new Map<string, number>()
/** The MCP class's own statuses, and how many of its 200s answered a tool call. */
const mcpStatuses = new Map<string, number>()
let mcpJobs = 0
const layers = { app: 0, http: 0 }
const violations: Array<{ request: string; violations: string[] }> = []
let violationCount = 0
let done = 0
/** ETag -> hash of the body it was sent with (timestamp blanked, origin removed). */
const bodiesByTag = new Map<string, number>()
let tagChecks = 0
let diffChecks = 0
let goodGets = 0
const times: number[] = []
const slowest: Array<{ ms: number; label: string }> = []

/** The body as it would be from any server and at any time: meta.timestamp blanked, the origin cut. */
function comparable(body: string, origin: string): string {
  return body.replace(/"timestamp":"[^"]*"/, '"timestamp":""').replaceAll(origin, '')
}

function tally(key: string) {
  statuses.set(key, (statuses.get(key) ?? 0) + 1)
}

async function runOne(job: Job): Promise<void> {
  let answer: RawAnswer | undefined
  let judged: ReturnType<typeof judgeHttpAnswer>
  let label: string
  const t0 = performance.now()
  if (job.kind === 'security') {
    securityJobs++
    const sj = job.s
    if (sj.kind === 'sign-in') {
      answer = await runSignIn(server.port, sj)
      label = `security sign-in Host ${sj.host} Origin ${sj.origin}${sj.forwarded ? ' forwarded' : ''} email ${JSON.stringify(sj.address)}`
    } else {
      try {
        const res = await fetch(formulaServer.url + sj.target, { headers: { 'x-api-key': valid } })
        answer = { status: res.status, headers: res.headers, body: await res.text() }
      } catch {
        answer = undefined
      }
      label = `security export ${sj.target}`
    }
    judged = { layer: 'app', violations: [] }
    if (!answer) judged.violations.push('no answer')
    else if (answer.status >= 500) judged.violations.push(`answered ${answer.status}`)
    else if (sj.kind === 'export' && answer.status === 200) judged.violations.push(...csvViolations(answer.body, feed.texts))
  } else if (job.kind === 'wire') {
    answer = await rawExchange(server.port, job.w.bytes)
    judged = judgeHttpAnswer(job.w, answer)
    label = `wire(${job.w.label}) ${new TextDecoder().decode(job.w.bytes.slice(0, 300))}`
    if (answer && judged.layer === 'app') judged.violations.push(...keyViolations(job.w.target, job.w.validKey, answer.status, answer.body, job.w.badHost))
  } else {
    const r = job.r
    try {
      const res = await fetch(server.url + r.target, { method: r.method, headers: r.headers, body: r.method === 'GET' || r.method === 'HEAD' ? undefined : r.body })
      answer = { status: res.status, headers: res.headers, body: await res.text() }
    } catch {
      answer = undefined
    }
    judged = judgeHttpAnswer({ method: r.method, framed: reachesApp(r), target: r.target }, answer)
    label = describe(r)
    if (job.mcp) {
      mcpJobs++
      const k = answer ? String(answer.status) : 'closed'
      mcpStatuses.set(k, (mcpStatuses.get(k) ?? 0) + 1)
      if (answer) judged.violations.push(...mcpViolations(answer.body))
    }
    if (answer && judged.layer === 'app') {
      judged.violations.push(...keyViolations(r.target, carriesKey(r.headers, [ctx.keys.valid, ctx.keys.limited]), answer.status, answer.body))
      if (r.method === 'GET' && answer.status === 200 && !job.mcp) {
        judged.violations.push(...(await differential(r, answer)))
        judged.violations.push(...(await sibling(r)))
      }
    }
  }
  const ms = performance.now() - t0
  times.push(ms)
  if (slowest.length < 10 || ms > slowest[slowest.length - 1]!.ms) {
    slowest.push({ ms, label: label.slice(0, 200) })
    slowest.sort((a, b) => b.ms - a.ms)
    if (slowest.length > 10) slowest.pop()
  }
  layers[judged.layer]++
  tally(answer ? `${answer.status}${judged.layer === 'http' ? ' (http layer)' : ''}` : 'closed (http layer)')
  if (judged.violations.length) {
    violationCount++
    if (violations.length < 50) violations.push({ request: label, violations: judged.violations })
  }
}

/**
 * The cache checks on a 200 GET: one ETag never stands for two bodies; and every DIFF_EVERY-th
 * answer equals the uncached server's answer to the same request.
 */
async function differential(r: FuzzRequest, a: RawAnswer): Promise<string[]> {
  const v: string[] = []
  const body = comparable(a.body, server.url)
  const tag = a.headers.get('etag')
  if (tag) {
    tagChecks++
    const h = Number(Bun.hash.wyhash(body) & 0xffffffffn)
    const seen = bodiesByTag.get(tag)
    if (seen === undefined) {
      if (bodiesByTag.size < 200_000) bodiesByTag.set(tag, h)
    } else if (seen !== h) v.push(`ETag ${tag} stood for two different bodies`)
  }
  // Only cacheable answers (they carry an ETag): /health, for one, moves by itself.
  if (!tag || !carriesKey(r.headers, [ctx.keys.valid]) || ++goodGets % DIFF_EVERY !== 0) return v
  try {
    const headers = r.headers.filter(([k]) => k.toLowerCase() !== 'if-none-match')
    const res = await fetch(fresh.url + r.target, { headers })
    const text = await res.text()
    diffChecks++
    if (res.status !== 200) v.push(`uncached server answered ${res.status} where the cached one answered 200`)
    else if (comparable(text, fresh.url) !== body) v.push('cached answer differs from the uncached answer')
  } catch (e) {
    v.push(`uncached server failed: ${e instanceof Error ? e.message : String(e)}`)
  }
  return v
}

/**
 * Asks, right after a 200 GET, for a sibling URL a careless cache key would share an entry with
 * (siblingTarget: a name re-cased, parameters reordered, a parameter repeated), and checks it
 * like any 200: its own answer, one body per ETag, equal to the uncached server's.
 */
let siblings = 0
async function sibling(r: FuzzRequest): Promise<string[]> {
  const target = siblingTarget(r.target, siblings + done)
  if (target === undefined) return []
  siblings++
  try {
    const headers = r.headers.filter(([k]) => k.toLowerCase() !== 'if-none-match')
    const res = await fetch(server.url + target, { headers })
    const a = { status: res.status, headers: res.headers, body: await res.text() }
    tally(String(a.status))
    return a.status === 200 ? (await differential({ ...r, target, headers }, a)).map((v) => `sibling ${target.slice(0, 200)}: ${v}`) : []
  } catch {
    return []
  }
}

const started = performance.now()
let peakRss = 0
let warmRss = 0
let endRss = 0
const rssOf = async (): Promise<number> => {
  try {
    const status = await Bun.file(`/proc/${server.proc.pid}/status`).text()
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024
  } catch {
    return 0
  }
}
async function runJobs(jobs: Job[]): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < jobs.length) await runOne(jobs[next++]!)
    }),
  )
  done += jobs.length
  endRss = await rssOf()
  peakRss = Math.max(peakRss, endRss)
  if (done % 10_000 === 0 || done === TOTAL)
    process.stderr.write(`fuzz: ${done}/${TOTAL} in ${((performance.now() - started) / 1000).toFixed(1)} s, violations ${violationCount}, server rss ${(peakRss / 2 ** 20).toFixed(0)} MB\n`)
}

// The mixed run: every class but MCP, in batches.
for (let b = 0; b * BATCH < MIXED_TOTAL && server.proc.exitCode === null; b++) {
  const n = Math.min(BATCH, MIXED_TOTAL - b * BATCH)
  const wireN = Math.round(n * WIRE_SHARE)
  const securityN = Math.round(n * SECURITY_SHARE)
  await runJobs([
    ...fc.sample(fuzzRequest(ctx), { numRuns: n - wireN - securityN, seed: SEED + 3 * b }).map((r) => ({ kind: 'fetch' as const, r })),
    ...fc.sample(wireRequest(ctx), { numRuns: wireN, seed: SEED + 3 * b + 1 }).map((w) => ({ kind: 'wire' as const, w })),
    ...fc.sample(fc.oneof({ arbitrary: signInJob, weight: 3 }, { arbitrary: exportJob, weight: 1 }), { numRuns: securityN, seed: SEED + 3 * b + 2 }).map((s) => ({ kind: 'security' as const, s })),
  ])
  if (b === 0) warmRss = endRss
}
// The MCP phase last, on its own, so the server's RSS growth across it is the MCP messages' alone.
const mcpStartRss = await rssOf()
let mcpPeakRss = mcpStartRss
for (let b = 0; b * BATCH < MCP_TOTAL && server.proc.exitCode === null; b++) {
  await runJobs(fc.sample(mcpRequest(ctx), { numRuns: Math.min(BATCH, MCP_TOTAL - b * BATCH), seed: SEED + 7 * b + 5 }).map((r) => ({ kind: 'fetch' as const, r, mcp: true })))
  mcpPeakRss = Math.max(mcpPeakRss, endRss)
}
const seconds = (performance.now() - started) / 1000

let healthy = false
try {
  healthy = (await fetch(`${server.url}/health`)).status === 200
} catch {
  healthy = false
}
const alive = server.proc.exitCode === null
const failedLogs = [...server.lines, ...formulaServer.lines].filter((l) => l.includes('"request.failed"'))
// The mail the run caused: every link at PUBLIC_URL, one canonical mailbox each, no mailbox over its limits.
const mailed = server.lines.filter((l) => l.includes('"mail.sign-in-link"')).length
for (const v of mailViolations(server.lines)) {
  violationCount++
  if (violations.length < 50) violations.push({ request: 'mail sent during the run', violations: [v] })
}
const code = alive ? await server.stop('SIGTERM') : server.proc.exitCode
await fresh.stop('SIGTERM')
await formulaServer.stop('SIGTERM')
rmSync(work, { recursive: true, force: true })

const app5xx = [...statuses].filter(([k]) => /^5\d\d$/.test(k)).reduce((n, [, c]) => n + c, 0)
const toolFailures = server.lines.filter((l) => l.includes('"mcp.tool-failed"')).length
const mcpGrowth = mcpPeakRss - mcpStartRss
const rssOk = mcpGrowth <= RSS_GROWTH_MB * 2 ** 20
const ok = violationCount === 0 && app5xx === 0 && alive && healthy && failedLogs.length === 0 && code === 0 && toolFailures === 0 && rssOk
const rows = [...statuses].sort(([a], [b]) => a.localeCompare(b))
console.log(`fuzz run: ${done} requests in ${seconds.toFixed(1)} s (${Math.round(done / seconds)}/s), seed ${SEED}, concurrency ${CONCURRENCY}`)
console.log(`  reached the app: ${layers.app}; refused by the HTTP layer (Bun's parser: closed, bare 400/431/505): ${layers.http}`)
console.log(`  statuses: ${rows.map(([k, c]) => `${k}: ${c}`).join(', ')}`)
console.log(`  5xx from the app: ${app5xx}; property violations: ${violationCount}; request.failed logged: ${failedLogs.length}`)
times.sort((a, b) => a - b)
const pct = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]?.toFixed(1)
console.log(`  MCP class: ${mcpJobs} requests to /mcp (statuses ${[...mcpStatuses].sort(([a], [b]) => a.localeCompare(b)).map(([k, c]) => `${k}: ${c}`).join(', ')}); tools fuzzed: ${ctx.tools.map((t) => t.name).join(', ')}; tool failures logged: ${toolFailures}`)
console.log(`  sibling requests (re-cased, reordered, repeated parameters): ${siblings}`)
console.log(`  security classes: ${securityJobs} requests (hostile Host/Origin and address spellings on sign-in, formula-leading CSV exports); ${mailed} sign-in mails, checked for origin, mailbox and limits`)
console.log(`  cache checks: ${tagChecks} ETag/body pairs checked for one body per tag; ${diffChecks} cached answers compared with the uncached server`)
console.log(`  time per request (client side, concurrency ${CONCURRENCY}, shared machine): p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms, max ${pct(1)} ms; over the ${BUDGET_MS} ms budget: ${times.filter((t) => t > BUDGET_MS).length}`)
for (const s of slowest.slice(0, 3)) console.log(`    slow: ${s.ms.toFixed(0)} ms ${s.label}`)
console.log(`  server alive after the run: ${alive}, /health: ${healthy ? 200 : 'failed'}, exit on SIGTERM: ${code}, peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MB`)
const mb = (n: number) => `${(n / 2 ** 20).toFixed(0)} MB`
console.log(`  server RSS: ${mb(warmRss)} after the first ${BATCH} requests, ${mb(mcpStartRss)} after the mixed run; across the MCP phase (${MCP_TOTAL} requests) ${mb(mcpStartRss)} -> peak ${mb(mcpPeakRss)}: grew ${mb(mcpGrowth)} (allowed ${RSS_GROWTH_MB} MB)${rssOk ? '' : ' FAIL'}`)
if (violations.length || failedLogs.length) {
  const out = join(tmpdir(), `mv-fuzz-violations-${SEED}.json`)
  writeFileSync(out, JSON.stringify({ seed: SEED, violations, failedLogs: failedLogs.slice(0, 50) }, null, 2))
  console.log(`  first violations: ${out}`)
  for (const v of violations.slice(0, 5)) console.log(`  - ${v.request.slice(0, 300)}\n    -> ${v.violations.join('; ').slice(0, 300)}`)
}
console.log(ok ? 'fuzz: PASS' : 'fuzz: FAIL')
process.exit(ok ? 0 : 1)
