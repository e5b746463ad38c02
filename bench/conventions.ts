import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp } from '../app/app'
import { loadConfig, type Config } from '../src/config'
import { KeyStore } from '../src/keys/key-store'
import { MemoryCounterStore } from '../src/limits/memory-counter-store'
import { loadStore } from '../src/store/load-store'
import { StoreHolder } from '../src/store/store-holder'
import { rateLimitHeaders } from '../src/limits/limit-rules'
import { windowsAt } from '../src/limits/windows'
import { round3 } from './lib/measure'
import { accessLine } from '../src/http/access-line'
import type { ScenarioOptions } from './lib/scenario-options'
import type { ConventionsResult } from './lib/result'

/**
 * What the per-request conventions cost, in process (app.handle, no sockets, so the figures are
 * the conventions' own CPU and not the network's): the same cached 25-photo list through four
 * apps on one index, alternating rounds: bare (no access log, no metrics), access log (written
 * to /dev/null with a write(2) per line, as stdout to a file would), metrics, both. The IETF
 * RateLimit fields are timed alone: rateLimitHeaders() with and without them; so are the
 * access-log line (built and written) and one metrics observation.
 */
export async function benchConventions(o: ScenarioOptions): Promise<ConventionsResult> {
  const store = await loadStore(o.indexDir)
  const tmp = mkdtempSync(join(tmpdir(), 'mars-bench-conv-'))
  const devNull = openSync('/dev/null', 'w')
  try {
    const keys = KeyStore.open(join(tmp, 'keys.sqlite'))
    const key = keys.create('bench@example.invalid', { hourly: 1e12, daily: 1e12, concurrent: 1e6 })
    const make = (over: Partial<Config>) =>
      createApp({
        config: loadConfig({ keysDb: join(tmp, 'keys.sqlite'), redisUrl: undefined, ...over }),
        stores: new StoreHolder(store),
        keys,
        limits: new MemoryCounterStore(),
        log: { log: () => {} },
        accessLog: (line) => void writeSync(devNull, line),
      })
    const apps = {
      bare: make({ accessLog: false, metrics: false }),
      log: make({ accessLog: true, metrics: false }),
      metrics: make({ accessLog: false, metrics: true }),
      both: make({ accessLog: true, metrics: true }),
    }
    const path = 'http://127.0.0.1/api/v2/photos?rovers=curiosity&per_page=25'
    const headers = { 'x-api-key': key }
    // Many short alternating rounds, each variant's best round kept: on a shared machine other
    // work only ever adds time, so the minimum is the steadiest estimate of each variant's cost.
    const n = o.quick ? 1_000 : 3_000
    const rounds = o.quick ? 3 : 15
    const times: Record<keyof typeof apps, number[]> = { bare: [], log: [], metrics: [], both: [] }
    for (const app of Object.values(apps)) for (let i = 0; i < 500; i++) await app.handle(new Request(path, { headers })) // warm-up
    for (let r = 0; r < rounds; r++)
      for (const [name, app] of Object.entries(apps) as Array<[keyof typeof apps, (typeof apps)['bare']]>) {
        const t0 = performance.now()
        for (let i = 0; i < n; i++) {
          const res = await app.handle(new Request(path, { headers }))
          if (res.status !== 200) throw new Error(`${name}: status ${res.status}`)
        }
        times[name].push(((performance.now() - t0) * 1000) / n)
      }
    const us = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, Math.min(...v)])) as ConventionsResult['us_per_request']

    // RateLimit-Policy + RateLimit: the headers function with them against the three X-RateLimit-* alone.
    const limits = { hourly: 10_000, daily: 100_000, concurrent: 50 }
    const m = o.quick ? 50_000 : 500_000
    let sink = 0
    const withFields: number[] = []
    const without: number[] = []
    for (let r = 0; r < rounds; r++) {
      let t0 = performance.now()
      for (let i = 0; i < m; i++) sink += Object.keys(rateLimitHeaders(limits, i % 10_000, 1_795_550_000_000 + i)).length
      withFields.push(((performance.now() - t0) * 1000) / m)
      t0 = performance.now()
      for (let i = 0; i < m; i++) sink += Object.keys(xOnly(limits.hourly, i % 10_000, 1_795_550_000_000 + i)).length
      without.push(((performance.now() - t0) * 1000) / m)
    }
    if (sink === 0) throw new Error('unreachable')
    const fields = Math.max(0, Math.min(...withFields) - Math.min(...without))

    // The access-log line and the metrics observation alone, per call.
    const line = { time: 1_795_550_000_000, id: '0b7e3f4c-1d2a-4f5e-9a8b-7c6d5e4f3a2b', method: 'GET', route: '/api/v2/photos', status: 200, ms: 0.123, bytes: 11_138, key: 'key:1' }
    const metrics = apps.both.metrics
    const logCalls: number[] = []
    const observeCalls: number[] = []
    for (let r = 0; r < rounds; r++) {
      let t0 = performance.now()
      for (let i = 0; i < n * 10; i++) writeSync(devNull, accessLine({ ...line, ms: i / 1000 }))
      logCalls.push(((performance.now() - t0) * 1000) / (n * 10))
      t0 = performance.now()
      for (let i = 0; i < n * 10; i++) metrics.observe('/api/v2/photos', 'GET', 200, i / 1e6, true)
      observeCalls.push(((performance.now() - t0) * 1000) / (n * 10))
    }
    const isolated = { log_line_us: round3(Math.min(...logCalls)), metrics_observe_us: round3(Math.min(...observeCalls)) }
    o.log(`  isolated: access-log line + write ${isolated.log_line_us} µs, metrics observe ${isolated.metrics_observe_us} µs`)
    const cost = { log: us.log - us.bare, metrics: us.metrics - us.bare, both: us.both - us.bare, ratelimit_fields: fields }
    o.log(`  µs/request: bare ${round3(us.bare)}, +log ${round3(us.log)}, +metrics ${round3(us.metrics)}, +both ${round3(us.both)}; RateLimit fields ${round3(fields)} µs`)
    return {
      isolated,
      requests_per_round: n,
      rounds,
      us_per_request: Object.fromEntries(Object.entries(us).map(([k, v]) => [k, round3(v)])) as ConventionsResult['us_per_request'],
      cost_us: { log: round3(cost.log), metrics: round3(cost.metrics), both: round3(cost.both), ratelimit_fields: round3(cost.ratelimit_fields) },
      ratio_to_bare: {
        log: round3(us.log / us.bare),
        metrics: round3(us.metrics / us.bare),
        both: round3(us.both / us.bare),
        ratelimit_fields: round3((us.bare + fields) / us.bare),
      },
    }
  } finally {
    closeSync(devNull)
    rmSync(tmp, { recursive: true, force: true })
  }
}

function xOnly(hourly: number, hourCount: number, nowMs: number): Record<string, string> {
  return {
    'x-ratelimit-limit': String(hourly),
    'x-ratelimit-remaining': String(Math.max(0, hourly - hourCount)),
    'x-ratelimit-reset': String(windowsAt(nowMs).hourReset),
  }
}
