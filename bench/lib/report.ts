import type { BenchResult, ConventionsResult, EngineResult, HalfSaturation, HttpResult, OpenLoopFigures, PeerResult, StartSizeResult } from './result'

/** Renders a result as the Markdown of bench/results/<date>.md (and latest.md). */
const mark = (met: boolean | null | undefined) => (met === true ? 'met' : met === false ? '**missed**' : '–')
const ms = (x: number | null | undefined) => (typeof x !== 'number' || !Number.isFinite(x) ? '–' : `${x}`)
const cell = (s: string) => s.replaceAll('|', '\\|')
/** Numeric columns (by header) are right-aligned, text columns left-aligned. */
const NUMERIC = /ms|req\/s|rows|speedup|share|runs/
const table = (head: string[], rows: string[][]) =>
  [`| ${head.join(' | ')} |`, `|${head.map((h) => (NUMERIC.test(h) ? '---:' : '---')).join('|')}|`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n')

function outcome<T>(o: { status: string; reason?: string; error?: string } | undefined, render: (v: T) => string): string {
  if (!o) return '_not run (`--only`)_'
  if (o.status === 'ok') return render(o as unknown as T)
  return o.status === 'skipped' ? `_skipped: ${o.reason}_` : `_failed: ${o.error}_`
}

/** This tree's engine beside another commit's (`--against`), shape by shape. */
function againstSection(a: NonNullable<EngineResult['against']>): string {
  const x = (r: number | undefined) => (r === undefined ? '–' : `x${r}`)
  const rows = a.shapes.map((s) =>
    s.status === 'ok'
      ? [s.name, ms(s.ours_p50_ms), ms(s.ref_p50_ms), x(s.ratio_p50), ms(s.ours_p99_ms), ms(s.ref_p99_ms), x(s.ratio_p99), s.goal_p99_ms === undefined ? '–' : `<= ${s.goal_p99_ms}: ${mark(s.ours_met)} / ${mark(s.ref_met)}`]
      : [s.name, s.status, '–', '–', '–', '–', '–', s.reason ?? ''],
  )
  return [
    `### Against ${a.ref} (${a.commit.slice(0, 12)}), same process, ${a.rounds} alternating rounds`,
    '',
    `Ratio = this tree / ${a.ref} (above 1: this tree is slower). Geometric mean over the shapes both answered equally: p50 ${x(a.geomean_ratio_p50)}, p99 ${x(a.geomean_ratio_p99)}. p99 goals met: ${a.goals_met.ours}/${a.goals_met.of} here, ${a.goals_met.ref}/${a.goals_met.of} on ${a.ref}.`,
    '',
    table(['shape', 'p50 ms', `p50 ms (${a.ref})`, 'p50 ratio', 'p99 ms', `p99 ms (${a.ref})`, 'p99 ratio', 'p99 goal: here / ref'], rows),
  ].join('\n')
}

function engineSection(e: EngineResult): string {
  return (e.against ? `${againstSection(e.against)}\n\n### This tree\n\n` : '') + table(
    ['shape', 'request', 'rows / total', 'p50 ms', 'p99 ms', 'p99 goal', ''],
    e.shapes.map((s) =>
      s.status === 'ok'
        ? [s.name, s.request, `${s.returned} / ${s.total ?? '–'}`, ms(s.p50_ms), ms(s.p99_ms), (s.goal_p99_ms === undefined ? '–' : `<= ${s.goal_p99_ms}`), mark(s.met)]
        : [s.name, s.request, s.status, '–', '–', (s.goal_p99_ms === undefined ? '–' : `<= ${s.goal_p99_ms}`), s.reason ?? ''],
    ),
  )
}

function peerSection(duck: PeerResult | undefined, pg: PeerResult | undefined): string {
  const names = (duck ?? pg)?.shapes.map((s) => s.name) ?? []
  const fmt = (r: PeerResult | undefined, name: string) => {
    const s = r?.shapes.find((x) => x.name === name)
    if (!s) return ['–', '–', '–']
    if (s.check !== 'equal') return [`${s.check.toUpperCase()}`, s.detail ?? '', '–']
    return [ms(s.ours_p50_ms), ms(s.peer_p50_ms), `x${s.speedup} ${s.met ? '' : '**(< goal)**'}`.trim()]
  }
  const rows = names.map((n) => {
    const d = fmt(duck, n)
    const p = fmt(pg, n)
    return [n, d[0], d[1], d[2], p[0], p[1], p[2]]
  })
  const setup = (r: PeerResult | undefined) =>
    r ? `- ${r.peer} ${r.version}: ${Object.entries(r.setup).map(([k, v]) => `${k} ${v}`).join(', ')}` : ''
  return [
    table(['shape', 'ours p50 ms (vs DuckDB)', 'DuckDB p50 ms', 'speedup (goal 10x)', 'ours p50 ms (vs PG)', 'PostgreSQL p50 ms', 'speedup (goal 10x; 50x sort/scan/stats)'], rows),
    '',
    [setup(duck), setup(pg)].filter(Boolean).join('\n'),
  ].join('\n')
}

function httpSection(h: HttpResult): string {
  return [
    table(
      ['target', 'path', 'req/s', 'p50 ms', 'p99 ms', 'ceiling req/s', 'ceiling p50 / p99 ms', 'share of ceiling', 'goal', 'header-less ceiling req/s', 'share of a header-less ceiling'],
      h.targets.map((t) => [t.name, t.path, `${t.rps}`, ms(t.p50_ms), ms(t.p99_ms), `${t.ceiling_rps}`, `${t.ceiling_p50_ms} / ${t.ceiling_p99_ms}`,
        t.ratio !== undefined ? `${Math.round(t.ratio * 100)}%` : '–', t.goal_ratio ? `>= ${t.goal_ratio * 100}% ${mark(t.met)}` : (t.error ?? '–'),
        t.headerless_ceiling_rps !== undefined ? `${t.headerless_ceiling_rps}` : '–', t.headerless_ratio !== undefined ? `${Math.round(t.headerless_ratio * 100)}%` : '–']),
    ),
    '',
    'The ceiling is a bare Bun.serve answering the same bytes: the status, header fields (in order) and body the service sent, captured from its answers at the start and checked equal (but for the request id and the rate-limit counts) before timing. The header-less ceiling is the same server answering with the media type and ETag only.',
    '',
    `${h.generator}; ${h.threads} thread, ${h.connections} connections, ${h.duration_s} s per run, median of ${h.runs} run(s) per target, runs of the service and the ceiling alternating${h.placement ? `; ${h.placement}` : ''}.`,
    h.half_saturation ? '\n' + halfSaturationSection(h.half_saturation) : '',
  ].join('\n')
}

function halfSaturationSection(hs: HalfSaturation): string {
  const row = (name: string, f: OpenLoopFigures) => [name, `${f.achieved_rps}`, ms(f.p50_ms), ms(f.p90_ms), ms(f.p99_ms), ms(f.p999_ms), ms(f.max_ms), ms(f.send_lag_p99_ms), `${f.bad_status + f.unanswered}`]
  return [
    `Latency at half the saturation rate: \`${hs.path}\` at a constant ${hs.rate_rps} req/s (half of the ${hs.saturation_rps} req/s wrk measured above), open loop over ${hs.connections} connections (generator: ${hs.generator ?? 'Bun (bench/http/open-loop.ts)'}), ${hs.duration_s} s per run, median of ${hs.runs} run(s); latencies from each request's intended send time (corrected for coordinated omission). The ceiling at the same rate is the floor set by the machine and the generator.`,
    '',
    table(['server', 'achieved req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'generator lag p99 ms', 'errors'], [row('ours', hs.ours), row('bare ceiling', hs.ceiling)]),
  ].join('\n')
}

function startSection(s: StartSizeResult): string {
  const b = s.build
  const build = b && 'seconds' in b
    ? `${b.seconds} s for the synthetic catalogue at scale ${b.scale}${b.photos ? `, ${b.photos} photos` : ''}, peak RSS ${b.peak_rss_mb ?? '?'} MiB (${b.runs} run, fresh process, fresh folder${b.index_build ? ': the build of the measured index itself' : ''})`
    : b && 'failed' in b ? `**failed**: ${b.failed}` : `not measured (${b && 'skipped' in b ? b.skipped : 'n/a'})`
  return [
    `- Index: ${s.photos} photos, ${(s.index_bytes / 2 ** 20).toFixed(0)} MiB on disk`,
    `- Load (loadStore, fresh process, median of ${s.load_runs}): **${s.load_ms} ms** (goal <= 1000 ms)`,
    `- RSS after load (after a full GC, median): **${s.rss_mb} MiB** (goal <= 1024 MiB); the same process before loading: ${s.baseline_rss_mb} MiB`,
    `- Build: ${build}`,
  ].join('\n')
}

export function renderMarkdown(r: BenchResult): string {
  const m = r.machine
  const sc = r.scenarios
  const duck = sc.duckdb?.status === 'ok' ? sc.duckdb : undefined
  const pg = sc.postgres?.status === 'ok' ? sc.postgres : undefined
  const peerNote = [sc.duckdb, sc.postgres].map((o, i) => (o && o.status !== 'ok' ? `- ${i ? 'PostgreSQL' : 'DuckDB'}: ${o.status === 'skipped' ? `skipped: ${o.reason}` : `failed: ${o.error}`}` : '')).filter(Boolean).join('\n')
  return [
    `# Bench ${r.date}${r.quick ? ' (--quick smoke run: figures not meaningful)' : ''}`,
    '',
    `\`${r.command}\` on ${m.cpu_model}, ${m.nproc} cores (nproc), ${m.mem_total_gb} GiB RAM, ${m.os}, Bun ${m.bun}; ${r.duration_s} s in all; load average (1 min) ${m.load_avg_1m} at the start, ${r.load_avg_1m_end ?? '?'} at the end (2 cores shared with other work make p99s noisy).${runtimeNote(m.runtime_env)}`,
    `Index: \`${r.index.dir}\` (${r.index.kind ?? '?'}, ${r.index.photos ?? '?'} photos, version ${r.index.version ?? '?'})${r.scale !== undefined && r.scale !== 1 ? `: scale ${r.scale}, checked against the scale goals${r.compared_with ? ` and compared with \`${r.compared_with}\`` : ''}` : ''}.`,
    'Every figure is a median over repeated rounds or runs; every ratio is against a baseline measured in the same run.',
    '',
    '## Goals',
    '',
    table(['goal', 'measured', ''], r.goals.map((g) => [g.goal, g.measured, mark(g.met)])),
    '',
    '## 1. Query engine in process (render functions, no cache)',
    '',
    outcome<EngineResult>(sc.engine, engineSection),
    '',
    '## 2. Peers on the same rows and queries (answers checked equal before timing)',
    '',
    duck || pg ? peerSection(duck, pg) : '',
    peerNote,
    !sc.duckdb && !sc.postgres ? '_not run (`--only`)_' : '',
    '',
    '## 3. HTTP on loopback',
    '',
    outcome<HttpResult>(sc.http, httpSection),
    '',
    '## 4. Start and size',
    '',
    outcome<StartSizeResult>(sc['start-size'], startSection),
    '',
    '## Gatekeeping',
    '',
    outcome<{ result: unknown }>(sc.gatekeeping, (g) => gatekeepingSection(g.result)),
    '',
    '## Scale-out: Redis counters and workers',
    '',
    outcome<{ result: unknown }>(sc['scale-out'], (g) => gatekeepingSection(g.result)),
    '',
    '## Conventions: access log, metrics, RateLimit fields',
    '',
    outcome<ConventionsResult>(sc.conventions, conventionsSection),
    '',
    // Run only when named (--only ingest): no section otherwise.
    ...((sc as Record<string, unknown>).ingest ? ['## Ingest: feeds to a served index', '', outcome<IngestFigures>((sc as Record<string, IngestFigures & { status: string }>).ingest, ingestSection), ''] : []),
    // Run only when named (--only fan-out).
    ...((sc as Record<string, unknown>)['fan-out'] ? ['## Stream fan-out', '', outcome<FanOutFigures>((sc as Record<string, FanOutFigures & { status: string }>)['fan-out'], fanOutSection), ''] : []),
  ].join('\n').replace(/\n{3,}/g, '\n\n')
}

interface IngestFigures {
  stand_in: { records: number; perseverance_sols: number; per_sol: number }
  mirror: { seconds: number; peak_rss_mb: number; requests: number; images: number; feed_bytes: number; page_store_bytes?: number; reused?: string }
  build?: { seconds: number; cpu_seconds?: number; peak_rss_mb: number; photos: number }
  synthetic?: { seconds: number; cpu_seconds?: number; peak_rss_mb: number; photos: number }
  synthetic_purging_off?: { seconds: number; cpu_seconds: number; peak_rss_mb: number; ratio_wall: number; ratio_cpu: number }
  update?: { served_after_s: number | null; build_ms: number | null; rebuild_seconds?: number }
  disk?: { index_bytes: number; page_store_bytes?: number }
  goals?: Array<{ goal: string; value: number | null; limit: number; met: boolean }>
}

interface FanOutFigures {
  streams: number
  new_photos: number
  events_delivered: number
  all_delivered_s: number | null
  median_stream_s: number
  list_rps_no_streams: number
  list_rps_streams_open: number
  list_ratio: number
}

function fanOutSection(f: FanOutFigures): string {
  return table(['figure', 'measured'], [
    [`${f.new_photos} new photos to ${f.streams} open streams`, `all delivered ${f.all_delivered_s ?? '–'} s after the reload signal (median stream ${f.median_stream_s} s); ${f.events_delivered} events`],
    ['photo list, no stream open (baseline)', `${f.list_rps_no_streams} req/s`],
    [`photo list, ${f.streams} streams open`, `${f.list_rps_streams_open} req/s (${f.list_ratio} of the baseline)`],
  ])
}

function ingestSection(g: IngestFigures): string {
  const mb = (b: number) => `${Math.round(b / 1e6)} MB`
  const rows: string[][] = [
    ['stand-in feed', `${g.stand_in.perseverance_sols} Perseverance sols × ${g.stand_in.per_sol} (${g.stand_in.records} records) + the real Curiosity records`],
    ['mirror at --rate 1000', `${g.mirror.seconds} s, ${g.mirror.requests} requests, ${g.mirror.images} images, peak RSS ${g.mirror.peak_rss_mb} MiB${g.mirror.reused ? ` (an earlier run's, ${g.mirror.reused})` : ''}`],
    ['page store / feed bytes', `${mb(g.mirror.page_store_bytes ?? g.disk?.page_store_bytes ?? NaN)} / ${mb(g.mirror.feed_bytes)}`],
  ]
  if (g.build && g.synthetic) {
    const cpu = (c?: number) => (c === undefined ? '' : ` (${c} CPU s)`)
    rows.push(['build from pages (purging off, as `npm run update` runs it)', `${g.build.seconds} s${cpu(g.build.cpu_seconds)}, ${g.build.photos} photos, peak RSS ${g.build.peak_rss_mb} MiB`])
    rows.push(['synthetic build, same rows (baseline, allocator defaults)', `${g.synthetic.seconds} s${cpu(g.synthetic.cpu_seconds)}, ${g.synthetic.photos} photos, peak RSS ${g.synthetic.peak_rss_mb} MiB`])
    const same = g.synthetic_purging_off
    if (same) rows.push(['synthetic build with purging off too', `${same.seconds} s (${same.cpu_seconds} CPU s), peak RSS ${same.peak_rss_mb} MiB: build from pages ÷ it ${same.ratio_wall}× wall, ${same.ratio_cpu}× CPU`])
  }
  if (g.update) rows.push(['update after one new sol', `served after ${g.update.served_after_s ?? '–'} s (its build ${g.update.build_ms ?? '–'} ms)${g.update.rebuild_seconds !== undefined ? `; update --rebuild ${g.update.rebuild_seconds} s` : ''}`])
  if (g.disk) rows.push(['index on disk', mb(g.disk.index_bytes)])
  const goals = (g.goals ?? []).map((x) => [x.goal, `${x.value ?? '–'} (limit ${x.limit})`, mark(x.met)])
  return [table(['figure', 'measured'], rows), '', goals.length ? table(['goal', 'measured', ''], goals) : ''].join('\n')
}

function conventionsSection(c: ConventionsResult): string {
  const rows: string[][] = [
    ['bare (no access log, no metrics)', `${c.us_per_request.bare}`, '–', '1'],
    ['+ access log', `${c.us_per_request.log}`, `${c.cost_us.log}`, `${c.ratio_to_bare.log}`],
    ['+ metrics', `${c.us_per_request.metrics}`, `${c.cost_us.metrics}`, `${c.ratio_to_bare.metrics}`],
    ['+ both', `${c.us_per_request.both}`, `${c.cost_us.both}`, `${c.ratio_to_bare.both}`],
    ['RateLimit-Policy + RateLimit fields', '–', `${c.cost_us.ratelimit_fields}`, `${c.ratio_to_bare.ratelimit_fields}`],
  ]
  return [
    `The cached 25-photo list through app.handle in process, ${c.requests_per_round} requests per round, best of ${c.rounds} alternating rounds; the RateLimit fields timed alone. Alone: an access-log line built and written ${c.isolated?.log_line_us ?? '?'} µs, a metrics observation ${c.isolated?.metrics_observe_us ?? '?'} µs.`,
    '',
    table(['variant', 'µs per request', 'cost µs', 'ratio to bare'], rows),
  ].join('\n')
}

/** bench/gatekeeping.ts's own Markdown when it gives one, else its figures as JSON. */
function gatekeepingSection(result: unknown): string {
  const md = (result as { markdown?: unknown })?.markdown
  if (typeof md === 'string') return md
  return '```json\n' + JSON.stringify(result, null, 2) + '\n```'
}

/**
 * The compact table bench/README.md quotes (goals, then one line per shape with both ratios,
 * then HTTP and start/size), refreshed by every full run.
 */
export function renderSummary(r: BenchResult): string {
  const sc = r.scenarios
  const e = sc.engine?.status === 'ok' ? sc.engine : undefined
  const duck = sc.duckdb?.status === 'ok' ? sc.duckdb : undefined
  const pg = sc.postgres?.status === 'ok' ? sc.postgres : undefined
  const ratio = (p: PeerResult | undefined, name: string) => {
    const s = p?.shapes.find((x) => x.name === name)
    if (!s) return '–'
    return s.check === 'equal' ? `x${s.speedup}${s.met ? '' : ' ✗'}` : s.check
  }
  const shapes = (e?.shapes ?? []).map((s) => [
    s.name, s.group, s.work ?? '–', s.p50_ms !== undefined ? `${s.p50_ms}` : s.status, s.p99_ms !== undefined ? `${s.p99_ms}${s.met === false ? ' ✗' : ''}` : '–',
    ratio(duck, s.name), ratio(pg, s.name),
  ])
  const h = sc.http?.status === 'ok' ? sc.http : undefined
  const st = sc['start-size']?.status === 'ok' ? sc['start-size'] : undefined
  return [
    `Run of ${r.date}: \`${r.command}\`, ${r.duration_s} s, index of ${r.index.photos ?? '?'} photos, load average ${r.machine.load_avg_1m} → ${r.load_avg_1m_end ?? '?'}.`,
    '',
    table(['goal', 'measured', ''], r.goals.map((g) => [g.goal, g.measured, mark(g.met)])),
    '',
    'Per shape: our p50 and p99 in process (ms), and how many times faster than each peer at p50 (✗: below the shape\'s goal: 10x DuckDB; 10x PostgreSQL, 50x for sort, scan and stats shapes; or p99 over its group\'s goal).',
    '',
    table(['shape', 'group', 'work', 'p50 ms', 'p99 ms', 'speedup vs DuckDB', 'speedup vs PostgreSQL'], shapes),
    '',
    h ? table(['HTTP target', 'req/s', 'p50 ms', 'p99 ms', 'ceiling req/s', 'share of ceiling', 'share of a header-less ceiling'], h.targets.map((t) => [t.name, `${t.rps}`, ms(t.p50_ms), ms(t.p99_ms), `${t.ceiling_rps}`, t.ratio !== undefined ? `${Math.round(t.ratio * 100)}%` : '–', t.headerless_ratio !== undefined ? `${Math.round(t.headerless_ratio * 100)}%` : '–'])) : '',
    '',
    h?.half_saturation ? `List at half its saturation rate (${h.half_saturation.rate_rps} req/s, open loop): p50 ${h.half_saturation.ours.p50_ms} ms, p99 ${h.half_saturation.ours.p99_ms} ms; the bare ceiling at the same rate p99 ${h.half_saturation.ceiling.p99_ms} ms; generator lag p99 ${ms(h.half_saturation.ours.send_lag_p99_ms)} ms.` : '',
    '',
    st ? `Start and size: load ${st.load_ms} ms, RSS ${st.rss_mb} MiB after load (${st.baseline_rss_mb} MiB before), ${(st.index_bytes / 2 ** 20).toFixed(0)} MiB on disk; ${st.build && 'seconds' in st.build ? `build ${st.build.seconds} s, peak RSS ${st.build.peak_rss_mb ?? '?'} MiB` : 'build not measured'}.` : '',
  ].join('\n').replace(/\n{3,}/g, '\n\n')
}

const START = '<!-- latest:start -->'
const END = '<!-- latest:end -->'

/** Replaces the block between the latest markers of a README text (appends the markers when absent). */
export function withLatestBlock(readme: string, block: string): string {
  const body = `${START}\n${block.trim()}\n${END}`
  const a = readme.indexOf(START)
  const b = readme.indexOf(END)
  if (a >= 0 && b > a) return readme.slice(0, a) + body + readme.slice(b + END.length)
  return readme.trimEnd() + '\n\n' + body + '\n'
}

/** The runtime settings of the measured processes, as a sentence (absent in results older than them). */
function runtimeNote(env: Record<string, string> | undefined): string {
  const set = Object.entries(env ?? {})
  return set.length ? ` Servers and in-process scenarios ran with ${set.map(([k, v]) => `${k}=${v}`).join(' ')} (src/runtime-env.ts).` : ''
}
