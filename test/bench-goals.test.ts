import { describe, expect, test } from 'bun:test'
import { checkGoals, GOALS, peerGoalFor } from '../bench/lib/goals'
import { scanGrowth } from '../bench/lib/scale-compare'
import type { BenchResult, HalfSaturation, HttpTarget, OpenLoopFigures, PeerShape, ShapeTiming, StartSizeResult } from '../bench/lib/result'
import { parseBenchArgs, syntheticIndexDir } from '../bench/lib/bench-options'
import { scaleTable, withScaleBlock } from '../bench/scale-table'

/**
 * The bench's goal checks on synthetic results: each goal is met by figures inside it and
 * missed by figures just outside it, so no goal in the report can only ever say "met".
 */
const shape = (name: string, group: ShapeTiming['group'], work: ShapeTiming['work'], p50: number, p99: number, extra: Partial<ShapeTiming> = {}): ShapeTiming =>
  ({ name, group, work, endpoint: 'photos', request: '/photos', status: 'ok', p50_ms: p50, p99_ms: p99, returned: 25, ...extra })
const peer = (name: string, work: PeerShape['work'], speedup: number): PeerShape => ({ name, work, check: 'equal', ours_p50_ms: 0.1, peer_p50_ms: 0.1 * speedup, speedup, goal_speedup: 0 })
const figures = (p99: number, extra: Partial<OpenLoopFigures> = {}): OpenLoopFigures =>
  ({ achieved_rps: 10000, p50_ms: p99 / 4, p90_ms: p99 / 2, p99_ms: p99, p999_ms: p99 * 2, max_ms: p99 * 3, send_lag_p99_ms: 0.05, bad_status: 0, unanswered: 0, ...extra })
const target = (name: string, ratio: number): HttpTarget => ({ name, path: '/p', status: 'ok', rps: ratio * 1000, ceiling_rps: 1000, ratio })

function result(o: {
  scale?: number
  shapes?: ShapeTiming[]
  duck?: PeerShape[]
  pg?: PeerShape[]
  http?: { list: number; notModified: number; halfP99?: number; half?: Partial<OpenLoopFigures> }
  start?: Partial<StartSizeResult>
  photos?: number
}): BenchResult {
  const half: HalfSaturation | undefined = o.http?.halfP99 === undefined ? undefined
    : { target: 'list', path: '/p', saturation_rps: 20000, rate_rps: 10000, connections: 32, duration_s: 5, runs: 3, ours: figures(o.http.halfP99, o.http.half), ceiling: figures(0.2) }
  return {
    schema: 1, date: '2026-11-24', started_at: '2026-11-24T00:00:00Z', duration_s: 1, command: 'npm run bench', quick: false,
    ...(o.scale !== undefined ? { scale: o.scale } : {}),
    machine: { cpu_model: 'x', nproc: 2, mem_total_gb: 1, mem_free_gb: 1, os: 'linux', bun: '1', load_avg_1m: 0 },
    index: { dir: '/i', photos: o.photos ?? 1_900_000 },
    scenarios: {
      ...(o.shapes ? { engine: { status: 'ok' as const, shapes: o.shapes } } : {}),
      ...(o.duck ? { duckdb: { status: 'ok' as const, peer: 'DuckDB', version: '1', setup: {}, shapes: o.duck } } : {}),
      ...(o.pg ? { postgres: { status: 'ok' as const, peer: 'PostgreSQL', version: '15', setup: {}, shapes: o.pg } } : {}),
      ...(o.http ? { http: { status: 'ok' as const, generator: 'wrk', connections: 32, threads: 1, duration_s: 5, runs: 3, targets: [target('list', o.http.list), target('not-modified', o.http.notModified)], ...(half ? { half_saturation: half } : {}) } } : {}),
      ...(o.start ? { 'start-size': { status: 'ok' as const, index_dir: '/i', index_bytes: 1, photos: o.photos ?? 1_900_000, load_ms: 500, load_runs: 5, rss_mb: 500, baseline_rss_mb: 40, ...o.start } } : {}),
    },
    goals: [],
  }
}

const verdict = (r: BenchResult, base?: BenchResult) => (fragment: string) => {
  const g = checkGoals(r, base).filter((x) => x.goal.includes(fragment))
  expect(g.length, `one goal mentions "${fragment}": ${checkGoals(r, base).map((x) => x.goal).join(' | ')}`).toBe(1)
  return g[0].met
}

describe('bench goals at scale 1', () => {
  test('engine p99: narrowed shapes at 1 ms and scans at 15 ms are met; 1.01 ms and 15.1 ms are missed', () => {
    const ok = verdict(result({ shapes: [shape('a', 'narrow', 'filter', 0.2, 1), shape('b', 'scan', 'scan', 5, 15)] }))
    expect(ok('narrowed')).toBe(true)
    expect(ok('full-scan')).toBe(true)
    const bad = verdict(result({ shapes: [shape('a', 'narrow', 'filter', 0.2, 1.01), shape('b', 'scan', 'scan', 5, 15.1)] }))
    expect(bad('narrowed')).toBe(false)
    expect(bad('full-scan')).toBe(false)
  })

  test('a 100-photo page: p50 0.1 ms is met, 0.11 ms is missed, and shapes answering fewer photos are not judged', () => {
    const pages = (p50: number) => [shape('p100', 'other', 'sort', p50, p50 * 2, { returned: 100 }), shape('p25', 'other', 'sort', 5, 6, { returned: 25 }), shape('b', 'other', 'lookup', p50, p50, { endpoint: 'batch', returned: 100 })]
    expect(verdict(result({ shapes: pages(0.1) }))('100 photos')).toBe(true)
    expect(verdict(result({ shapes: pages(0.11) }))('100 photos')).toBe(false)
    expect(verdict(result({ shapes: [shape('p25', 'other', 'sort', 5, 6)] }))('100 photos')).toBeNull()
  })

  test('peers: 10x DuckDB and 10x PostgreSQL on every shape, 50x PostgreSQL on sort, scan and stats shapes', () => {
    expect(peerGoalFor('PostgreSQL', 'filter')).toBe(10)
    expect(peerGoalFor('PostgreSQL', 'lookup')).toBe(10)
    for (const w of ['sort', 'scan', 'stats'] as const) expect(peerGoalFor('PostgreSQL', w)).toBe(50)
    expect(peerGoalFor('DuckDB', 'scan')).toBe(10)
    const met = verdict(result({ duck: [peer('a', 'filter', 10)], pg: [peer('a', 'filter', 10), peer('s', 'sort', 50), peer('t', 'stats', 50), peer('c', 'scan', 50)] }))
    expect(met('DuckDB')).toBe(true)
    expect(met('every shape >= 10x faster than PostgreSQL')).toBe(true)
    expect(met('50x')).toBe(true)
    // A narrowed shape at 12x meets both PostgreSQL goals (50x does not apply to it); a sort at 49x misses only the 50x one.
    const mixed = verdict(result({ duck: [peer('a', 'filter', 9.9)], pg: [peer('a', 'filter', 12), peer('s', 'sort', 49)] }))
    expect(mixed('DuckDB')).toBe(false)
    expect(mixed('every shape >= 10x faster than PostgreSQL')).toBe(true)
    expect(mixed('50x')).toBe(false)
    expect(verdict(result({ pg: [peer('a', 'lookup', 9.9)] }))('every shape >= 10x faster than PostgreSQL')).toBe(false)
    // A shape whose answers differ is never counted as met.
    expect(verdict(result({ duck: [peer('a', 'filter', 100), { name: 'm', work: 'filter', check: 'mismatch', goal_speedup: 10 }] }))('DuckDB')).toBe(false)
  })

  test('HTTP: list 65% and 304 85% of the ceiling; list p99 at half saturation 1 ms', () => {
    const ok = verdict(result({ http: { list: 0.65, notModified: 0.85, halfP99: 1 } }))
    expect(ok('list query')).toBe(true)
    expect(ok('304')).toBe(true)
    expect(ok('half its saturation')).toBe(true)
    const bad = verdict(result({ http: { list: 0.64, notModified: 0.84, halfP99: 1.01 } }))
    expect(bad('list query')).toBe(false)
    expect(bad('304')).toBe(false)
    expect(bad('half its saturation')).toBe(false)
    // Unanswered requests fail the latency goal whatever the percentiles say.
    expect(verdict(result({ http: { list: 1, notModified: 1, halfP99: 0.5, half: { unanswered: 3 } } }))('half its saturation')).toBe(false)
    expect(verdict(result({ http: { list: 1, notModified: 1 } }))('half its saturation')).toBeNull()
  })

  test('start and size: load 1 s, RSS 1 GB, synthetic build 60 s', () => {
    const build = (seconds: number) => ({ scale: 1, runs: 1, seconds, peak_rss_mb: 3000 })
    const ok = verdict(result({ scale: 1, start: { load_ms: 1000, rss_mb: 1024, build: build(60) } }))
    expect(ok('index load <= 1 s')).toBe(true)
    expect(ok('RSS after load <= 1 GB')).toBe(true)
    expect(ok('synthetic build <= 60 s')).toBe(true)
    const bad = verdict(result({ scale: 1, start: { load_ms: 1001, rss_mb: 1025, build: build(61) } }))
    expect(bad('index load')).toBe(false)
    expect(bad('RSS after load')).toBe(false)
    expect(bad('synthetic build')).toBe(false)
    expect(checkGoals(result({ scale: 1, start: {} })).some((g) => g.goal.includes('peak RSS'))).toBe(false)
  })
})

describe('bench export goals', () => {
  const withExport = (arrowRps: number, growth: number): BenchResult => {
    const r = result({})
    const f = (rows_per_s: number) => ({ rows: 1, bytes: 1, ms: 1, rows_per_s, rss_growth_mb: growth, peer: 'p', peer_ms: 1, ratio_vs_peer: 1 })
    r.scenarios.export = { status: 'ok', rounds: 1, formats: { arrow: f(arrowRps), ndjson: f(1e6), csv: f(1e6) } }
    return r
  }
  test('arrow 5M rows/s, NDJSON and CSV 1M rows/s, RSS growth 64 MB: met at the bar, missed just below or above it', () => {
    expect(verdict(withExport(5e6, 64))('arrow export')).toBe(true)
    expect(verdict(withExport(5e6, 64))('RSS growth')).toBe(true)
    expect(verdict(withExport(4.99e6, 64.1))('arrow export')).toBe(false)
    expect(verdict(withExport(4.99e6, 64.1))('RSS growth')).toBe(false)
  })
  test('an export measured beside its bare ceiling quotes its share of it, the ceiling rows/s and the server CPU time', () => {
    const r = withExport(5e6, 10)
    r.scenarios.export = { ...(r.scenarios.export as Extract<NonNullable<BenchResult['scenarios']['export']>, { status: 'ok' }>) }
    const x = r.scenarios.export as Extract<NonNullable<BenchResult['scenarios']['export']>, { status: 'ok' }>
    x.formats.arrow = { ...x.formats.arrow!, ceiling_ms: 0.6, ceiling_rows_per_s: 8e6, share_of_ceiling: 0.625, server_cpu_ms: 250, rows_per_cpu_s: 7.6e6 }
    const arrow = checkGoals(r).find((g) => g.goal.startsWith('arrow export'))!
    expect(arrow.measured).toContain("63% of the same client's bare Bun.serve ceiling, 8.00M rows/s, server CPU 250 ms: 7.60M rows per CPU second")
    expect(checkGoals(withExport(5e6, 10)).find((g) => g.goal.startsWith('arrow export'))!.measured).not.toContain('ceiling')
  })
})

describe('bench goals at scale 10', () => {
  const base = result({ scale: 1, photos: 1_900_000, shapes: [shape('n', 'narrow', 'filter', 0.1, 0.3), shape('s', 'scan', 'scan', 2, 3), shape('deep-page-2000', 'other', 'sort', 0.1, 0.2)] })
  const scaled = (scanP50: number, narrowP99: number, start: Partial<StartSizeResult> = {}) =>
    result({ scale: 10, photos: 19_000_000, shapes: [shape('n', 'narrow', 'filter', 0.1, narrowP99), shape('s', 'scan', 'scan', scanP50, scanP50 * 2), shape('deep-page-2000', 'other', 'sort', 0.1, 0.2)], start: { photos: 19_000_000, ...start } })

  test('narrowed p99 stays 1 ms; scans may grow with the rows (x10) but not faster', () => {
    const ok = verdict(scaled(20, 1), base)
    expect(ok('narrowed')).toBe(true)
    expect(ok('grow no faster')).toBe(true)
    const bad = verdict(scaled(20.1, 1.01), base)
    expect(bad('narrowed')).toBe(false)
    expect(bad('grow no faster')).toBe(false)
    expect(verdict(scaled(1, 1))('grow no faster')).toBeNull() // no scale-1 result to compare with
    const g = scanGrowth(base, scaled(20.1, 1))
    expect(g.rowsRatio).toBe(10)
    expect(g.missed.map((s) => s.name)).toEqual(['s'])
    expect(g.all.map((s) => s.name)).toEqual(['n', 's', 'deep-page-2000'])
    // A scan that asked something else at the other scale (a value picked from the data) is shown, not judged.
    const other = scaled(40, 1)
    const e = other.scenarios.engine!
    if (e.status === 'ok') e.shapes[1].request = '/photos?nasa_id=other'
    expect(verdict(other, base)('grow no faster')).toBeNull()
    expect(scanGrowth(base, other).incomparable.map((s) => s.name)).toEqual(['s'])
  })

  test('load 5 s, RSS 6 GB, build 10 min at peak RSS 8 GB; a build that died misses; no peer or HTTP goal', () => {
    const build = (seconds: number, peak: number) => ({ scale: 10, runs: 1, seconds, peak_rss_mb: peak })
    const ok = verdict(scaled(20, 1, { load_ms: 5000, rss_mb: 6144, build: build(600, 8192) }), base)
    expect(ok('index load <= 5 s')).toBe(true)
    expect(ok('RSS after load <= 6 GB')).toBe(true)
    expect(ok('build <= 10 min')).toBe(true)
    expect(ok('peak RSS <= 8 GB')).toBe(true)
    const bad = verdict(scaled(20, 1, { load_ms: 5001, rss_mb: 6145, build: build(601, 8193) }), base)
    expect(bad('index load')).toBe(false)
    expect(bad('RSS after load')).toBe(false)
    expect(bad('build <= 10 min')).toBe(false)
    expect(bad('peak RSS')).toBe(false)
    const died = verdict(scaled(20, 1, { build: { failed: 'build-probe.ts exited 137: Out of memory' } }), base)
    expect(died('build <= 10 min')).toBe(false)
    expect(died('peak RSS')).toBe(false)
    // The measured index's own build died (nothing to load): the build goals are missed, load and RSS unmeasured.
    const noIndex: BenchResult = { ...scaled(20, 1), index: { dir: '/i', build: { failed: 'Out of memory' } }, scenarios: { 'start-size': { status: 'failed', error: 'no index' } } }
    const v = verdict(noIndex, base)
    expect(v('build <= 10 min')).toBe(false)
    expect(v('peak RSS')).toBe(false)
    expect(v('index load')).toBeNull()
    const goals = checkGoals({ ...scaled(20, 1), scenarios: { ...scaled(20, 1).scenarios, http: result({ http: { list: 0.1, notModified: 0.1, halfP99: 9 } }).scenarios.http } }, base).map((g) => g.goal)
    expect(goals.filter((g) => /DuckDB|PostgreSQL|ceiling|saturation|100 photos|full-scan/.test(g))).toEqual([])
  })

  test('--scale accepts 10 and measures data/index-synthetic-x10; --scale 1 keeps data/index-synthetic', () => {
    const o = parseBenchArgs(['--scale', '10', '--only', 'engine'], {})
    expect(o.scale).toBe(10)
    expect(o.indexDir).toBe(syntheticIndexDir(10))
    expect(o.indexDir.endsWith('data/index-synthetic-x10')).toBe(true)
    expect(o.writeLatest).toBe(false)
    expect(parseBenchArgs([], {}).indexDir.endsWith('data/index-synthetic')).toBe(true)
    expect(() => parseBenchArgs(['--scale', '0'], {})).toThrow()
    expect(() => parseBenchArgs(['--scale', '1000'], {})).toThrow()
    expect(GOALS.scaled.buildS).toBe(600)
  })

  test('the scale table puts every figure beside the scale-1 one, marks scans that outgrow the rows, and replaces only its own block', () => {
    const md = scaleTable(base, scaled(20.1, 0.5, { load_ms: 900, rss_mb: 5000, build: { scale: 10, runs: 1, seconds: 300, peak_rss_mb: 7000 } }))
    expect(md).toContain('Rows x10.')
    expect(md).toMatch(/\| s \| scan \| 2 \| 20\.1 \| x10\.1 ✗ \|/)
    expect(md).toMatch(/\| n \| narrow \| 0\.1 \| 0\.1 \| x1 \|/)
    expect(md).toMatch(/\| build peak RSS MiB \| – \| 7000 \|/)
    expect(md).toMatch(/scan shapes grow no faster than the rows .*\| \*\*missed\*\* \|/)
    const readme = 'intro\n<!-- scale:start -->\nold\n<!-- scale:end -->\ntail\n'
    const out = withScaleBlock(readme, 'new table')
    expect(out).toBe('intro\n<!-- scale:start -->\nnew table\n<!-- scale:end -->\ntail\n')
    expect(withScaleBlock('intro\n', 'x')).toContain('## Scale\n\n<!-- scale:start -->\nx\n<!-- scale:end -->')
  })
})
