import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import type { HalfSaturation, HttpResult, HttpTarget, OpenLoopFigures, OpenLoopRun } from './lib/result'
import { GOALS } from './lib/goals'
import { runProbe } from './lib/probe'
import { median, round3 } from './lib/measure'
import { freePort, stopProcess, waitReady } from './lib/processes'
import type { ScenarioOptions } from './lib/scenario-options'
import { ensureWrk, runWrk, wrkVersion, type WrkRun } from './http/wrk'
import { ScenarioSkip } from './lib/scenario-skip'
import { answerDifferences, answerFields, rawGet, type CeilingAnswer, type RawAnswer } from './http/raw-answer'
import { pinCpus, pinNote } from './lib/cpu-pin'

/** The goals as shares of the bare Bun.serve ceiling's req/s (bench/lib/goals.ts). */
export const HTTP_GOALS: Record<string, number | undefined> = { list: GOALS.listShare, 'not-modified': GOALS.notModifiedShare, health: undefined, 'list-gzip': undefined }
/** The compressed list's share of its ceiling may fall at most this far below the plain list's share. */
export const COMPRESSED_SHARE_SLACK = 0.05

const BIG = '1000000000'

/**
 * Scenario 3: HTTP on loopback. The service (bun app/server.ts on the index, keys and limits
 * on, one key whose limits are raised for the bench) against a bare Bun.serve answering the
 * same bytes (status, header fields and body captured from the service's own answers, checked
 * equal before timing): a typical list query (25 photos), its 304 revalidation, and /health.
 * The same bare server also answers header-less (media type and ETag only, the ceiling of
 * earlier runs), reported beside it. Runs of the servers alternate; each figure is the median
 * over the runs.
 */
export async function benchHttp(o: ScenarioOptions): Promise<HttpResult> {
  const wrk = ensureWrk(o.log)
  if (!wrk.path) throw new ScenarioSkip(wrk.reason)
  const runs = o.quick ? 1 : 3
  // BENCH_HTTP_TARGETS=list,list-gzip runs only those targets (a comma list of names below).
  const only = (process.env.BENCH_HTTP_TARGETS ?? '').split(',').map((s) => s.trim()).filter(Boolean)
  const durationS = o.quick ? 1 : 5
  const wrkOpts = { threads: 1, connections: o.quick ? 8 : 32, durationS }
  const tmp = mkdtempSync(join(tmpdir(), 'mars-bench-http-'))
  let server: Subprocess | undefined
  let ceiling: Subprocess | undefined
  const pin = pinCpus()
  try {
    const env = {
      ...process.env,
      INDEX_DIR: o.indexDir,
      KEYS_DB: join(tmp, 'keys.sqlite'),
      WATCH_INDEX: 'false',
      REDIS_URL: '',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
    }
    const keys = Bun.spawnSync(
      [process.execPath, 'scripts/keys.ts', 'create', '--email', 'bench@example.invalid', '--hourly', BIG, '--daily', BIG, '--concurrent', '100000'],
      { cwd: o.root, env, stdout: 'pipe', stderr: 'pipe' },
    )
    const key = keys.stdout.toString().trim().split('\n').pop()?.trim()
    if (keys.exitCode !== 0 || !key) throw new Error(`keys CLI failed: ${keys.stderr.toString().trim().split('\n').pop()}`)

    const port = await freePort()
    const origin = `http://127.0.0.1:${port}`
    server = Bun.spawn([process.execPath, 'app/server.ts'], { cwd: o.root, env: { ...env, PORT: String(port) }, stdout: 'ignore', stderr: 'pipe' })
    pin.server(server.pid)
    await waitReady(`${origin}/health`, server)
    const auth = { 'X-API-Key': key }

    const listPath = await typicalListPath(origin, auth)
    const first = await fetch(origin + listPath, { headers: auth })
    const etag = first.headers.get('etag')
    if (first.status !== 200) throw new Error(`GET ${listPath} gave ${first.status}: ${(await first.text()).slice(0, 200)}`)
    if (!etag) throw new Error(`GET ${listPath} sent no ETag`)
    await first.arrayBuffer()

    // The service's answers, captured once from the wire: the ceiling answers each with the same
    // status, fields and body bytes. Each target's request is asked exactly as wrk will ask it.
    const requests = {
      list: { path: listPath, headers: auth },
      'not-modified': { path: listPath, headers: { ...auth, 'If-None-Match': etag } },
      health: { path: '/health', headers: {} as Record<string, string> },
    }
    const captured = {
      list: await rawGet(origin, requests.list.path, requests.list.headers),
      'not-modified': await rawGet(origin, requests['not-modified'].path, requests['not-modified'].headers),
      health: await rawGet(origin, requests.health.path, requests.health.headers),
    }
    if (captured['not-modified'].status !== 304) throw new Error(`If-None-Match with the ETag gave ${captured['not-modified'].status}, not 304`)
    if (captured.health.status !== 200) throw new Error(`GET /health gave ${captured.health.status}`)
    const listBytes = captured.list.body
    const healthBytes = captured.health.body
    const same = (a: RawAnswer) => ({ status: a.status, headers: answerFields(a), body: a.status === 304 ? null : Buffer.from(a.body).toString('base64') })
    const answers: Record<string, CeilingAnswer> = {
      '/list': same(captured.list),
      '/not-modified': same(captured['not-modified']),
      '/health': same(captured.health),
      // The header-less ceiling of earlier runs (media type and ETag only), kept for comparison.
      '/bare/list': { status: 200, headers: [['content-type', 'application/json'], ['etag', etag]], body: Buffer.from(listBytes).toString('base64') },
      '/bare/not-modified': { status: 304, headers: [['etag', etag]], body: null },
      '/bare/health': { status: 200, headers: [['content-type', 'application/json']], body: Buffer.from(healthBytes).toString('base64') },
    }
    writeFileSync(join(tmp, 'answers.json'), JSON.stringify(answers))

    const cport = await freePort()
    ceiling = Bun.spawn([process.execPath, join(import.meta.dir, 'http', 'ceiling-server.ts'), String(cport), join(tmp, 'answers.json')], { stdout: 'ignore', stderr: 'pipe' })
    pin.server(ceiling.pid)
    const corigin = `http://127.0.0.1:${cport}`
    await waitReady(`${corigin}/health`, ceiling)
    // The ceiling must keep answering what the service answers now: asked again, the two differ
    // at most in the volatile fields' values (request id, rate-limit counts and seconds).
    for (const [name, r] of Object.entries(requests)) {
      const diff = answerDifferences(await rawGet(origin, r.path, r.headers), await rawGet(corigin, `/${name}`, r.headers))
      if (diff.length > 0) throw new Error(`the ceiling's ${name} answer is not the service's: ${diff.join('; ')}`)
    }

    const targets = [
      { name: 'list', ...requests.list, ceiling: '/list', bytes: listBytes.length },
      { name: 'not-modified', ...requests['not-modified'], ceiling: '/not-modified', bytes: 0 },
      { name: 'health', ...requests.health, ceiling: '/health', bytes: healthBytes.length },
      // The same list asked gzip-encoded, against the same bare ceiling as `list` (which sends it
      // uncompressed): the two shares side by side say what compression costs or saves per request.
      { name: 'list-gzip', path: listPath, headers: { ...auth, 'Accept-Encoding': 'gzip' }, ceiling: '/list', bytes: Bun.gzipSync(listBytes).length },
    ].filter((t) => only.length === 0 || only.includes(t.name))
    // Each round runs the service, the same-bytes ceiling and the header-less ceiling in turn.
    const ours = new Map<string, WrkRun[]>(targets.map((t) => [t.name, []]))
    const bare = new Map<string, WrkRun[]>(targets.map((t) => [t.name, []]))
    const headerless = new Map<string, WrkRun[]>(targets.map((t) => [t.name, []]))
    for (let r = 0; r < runs; r++)
      for (const t of targets) {
        ours.get(t.name)!.push(await runWrk(wrk.path, origin + t.path, { ...wrkOpts, headers: t.headers }))
        bare.get(t.name)!.push(await runWrk(wrk.path, corigin + t.ceiling, { ...wrkOpts, headers: t.headers }))
        headerless.get(t.name)!.push(await runWrk(wrk.path, corigin + '/bare' + t.ceiling, { ...wrkOpts, headers: t.headers }))
        const a = ours.get(t.name)!.at(-1)!
        const b = bare.get(t.name)!.at(-1)!
        const c = headerless.get(t.name)!.at(-1)!
        o.log(`  ${t.name} run ${r + 1}: ${round3(a.rps)} req/s (same-bytes ceiling ${round3(b.rps)}, header-less ceiling ${round3(c.rps)})`)
      }

    // Targets sharing a ceiling path are compared with the same ceiling: every run against it.
    const ceilingRuns = (runsOf: Map<string, WrkRun[]>, path: string) => targets.filter((x) => x.ceiling === path).flatMap((x) => runsOf.get(x.name)!)
    const out: HttpTarget[] = targets.map((t) => {
      const a = ours.get(t.name)!
      const b = ceilingRuns(bare, t.ceiling)
      const bad = a.reduce((s, x) => s + x.bad_status + x.socket_errors, 0)
      const rps = median(a.map((x) => x.rps))
      const crps = median(b.map((x) => x.rps))
      const hrps = median(ceilingRuns(headerless, t.ceiling).map((x) => x.rps))
      const goal = HTTP_GOALS[t.name]
      return {
        name: t.name,
        path: t.path,
        status: bad > 0 ? 'failed' : 'ok',
        error: bad > 0 ? `${bad} responses outside 2xx/3xx or socket errors` : undefined,
        rps: round3(rps),
        p50_ms: round3(median(a.map((x) => x.p50_ms))),
        p99_ms: round3(median(a.map((x) => x.p99_ms))),
        ceiling_rps: round3(crps),
        ceiling_p50_ms: round3(median(b.map((x) => x.p50_ms))),
        ceiling_p99_ms: round3(median(b.map((x) => x.p99_ms))),
        ratio: round3(rps / crps),
        headerless_ceiling_rps: round3(hrps),
        headerless_ratio: round3(rps / hrps),
        goal_ratio: goal,
        met: goal === undefined ? undefined : bad === 0 && rps / crps >= goal,
        body_bytes: t.bytes,
        runs,
      }
    })
    const plain = out.find((t) => t.name === 'list')
    const gz = out.find((t) => t.name === 'list-gzip')
    if (plain && gz) o.log(`  list-gzip share ${gz.ratio} vs list ${plain.ratio}: ${(gz.ratio ?? 0) >= (plain.ratio ?? 0) - COMPRESSED_SHARE_SLACK ? 'within' : 'NOT within'} ${COMPRESSED_SHARE_SLACK * 100} points`)
    const listTarget = targets.find((t) => t.name === 'list')
    const half = plain && listTarget && plain.status === 'ok' && plain.rps && plain.ceiling_rps
      ? await halfSaturation(o, { name: 'list', path: listTarget.path, headers: listTarget.headers, ceilingPath: listTarget.ceiling }, origin, corigin, plain.rps, { runs, durationS, connections: wrkOpts.connections })
      : undefined
    return { generator: wrkVersion(wrk.path), placement: pinNote(pin), connections: wrkOpts.connections, threads: wrkOpts.threads, duration_s: durationS, runs, targets: out, ...(half ? { half_saturation: half } : {}) }
  } finally {
    pin.release()
    await stopProcess(server)
    await stopProcess(ceiling)
    rmSync(tmp, { recursive: true, force: true })
  }
}

/**
 * Latency under a realistic load: the target driven at a constant rate of half its saturation
 * req/s by the open-loop generator (bench/http/open-loop.ts, each run in its own process; the C
 * generator of the same method when a compiler is at hand),
 * latencies measured from each request's intended send time, so stalls are not hidden by the
 * generator waiting (coordinated omission). The bare ceiling is driven at the same rate in
 * alternating runs: its figures are the floor the machine and the generator set. Medians over
 * the runs.
 */
async function halfSaturation(
  o: ScenarioOptions,
  t: { name: string; path: string; headers: Record<string, string>; ceilingPath: string },
  origin: string,
  corigin: string,
  saturationRps: number,
  run: { runs: number; durationS: number; connections: number },
): Promise<HalfSaturation> {
  const rate = Math.max(1, Math.round(saturationRps / 2))
  const drive = (url: string) =>
    runProbe<OpenLoopRun>(o.root, 'bench/http/open-loop.ts', [url, String(rate), String(run.durationS), String(run.connections), JSON.stringify(t.headers)])
  const ours: OpenLoopRun[] = []
  const bare: OpenLoopRun[] = []
  for (let r = 0; r < run.runs; r++) {
    ours.push(await drive(origin + t.path))
    bare.push(await drive(corigin + t.ceilingPath))
    o.log(`  ${t.name} at ${rate} req/s (half of ${round3(saturationRps)}), open loop run ${r + 1}: p50 ${ours.at(-1)!.p50_ms} ms, p99 ${ours.at(-1)!.p99_ms} ms (ceiling p99 ${bare.at(-1)!.p99_ms} ms; generator lag p99 ${ours.at(-1)!.send_lag_p99_ms} ms)`)
  }
  const figures = (xs: OpenLoopRun[]): OpenLoopFigures => ({
    achieved_rps: round3(median(xs.map((x) => x.achieved_rps))),
    p50_ms: round3(median(xs.map((x) => x.p50_ms))),
    p90_ms: round3(median(xs.map((x) => x.p90_ms))),
    p99_ms: round3(median(xs.map((x) => x.p99_ms))),
    p999_ms: round3(median(xs.map((x) => x.p999_ms))),
    max_ms: round3(Math.max(...xs.map((x) => x.max_ms))),
    // A run where every request waited for an earlier answer has no on-time send to time (null).
    send_lag_p99_ms: round3(median(xs.map((x) => x.send_lag_p99_ms).filter((v) => typeof v === 'number' && Number.isFinite(v)))),
    bad_status: xs.reduce((a, x) => a + x.bad_status, 0),
    unanswered: xs.reduce((a, x) => a + x.unanswered, 0),
  })
  const generator = [...new Set([...ours, ...bare].map((x) => x.generator ?? 'unknown'))].join(', ')
  return { target: t.name, path: t.path, saturation_rps: round3(saturationRps), rate_rps: rate, connections: run.connections, duration_s: run.durationS, runs: run.runs, generator, ours: figures(ours), ceiling: figures(bare) }
}

/** A list query of 25 photos a client would send: the busiest sol (after the landing sols) of the rover with most photos. */
async function typicalListPath(origin: string, headers: Record<string, string>): Promise<string> {
  const get = async (p: string) => {
    const r = await fetch(origin + p, { headers })
    return r.status === 200 ? ((await r.json()) as { data?: { groups?: unknown } }) : undefined
  }
  const byRover = (await get('/api/v2/photos/stats?group_by=rover'))?.data?.groups as Array<{ key: string; count: number }> | undefined
  const rover = byRover?.sort((a, b) => b.count - a.count)[0]?.key
  if (rover) {
    const bySol = (await get(`/api/v2/photos/stats?group_by=sol&rovers=${rover}`))?.data?.groups as Array<{ key: string; count: number }> | undefined
    const typical = bySol?.filter((g) => Number(g.key) >= 100)
    const sol = (typical?.length ? typical : bySol)?.sort((a, b) => b.count - a.count)[0]
    if (sol && sol.count >= 25) return `/api/v2/photos?rovers=${rover}&sol=${sol.key}`
    return `/api/v2/photos?rovers=${rover}`
  }
  return '/api/v2/photos'
}
