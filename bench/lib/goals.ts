import type { BenchResult, BuildFigures, GoalCheck, PeerResult, ShapeWork, StartSizeResult } from './result'
import { round3 } from './measure'
import { scanGrowth } from './scale-compare'

/**
 * The goals `bun run bench` checks, each against figures of the same run. A full run at scale 1
 * (~1.9M synthetic photos) is checked against the first set; a run at another `--scale` against
 * the scale set, whose scan goal compares with a scale-1 result.
 */
export const GOALS = {
  /** Every shape at least this many times faster than each peer at p50. */
  duckdbSpeedup: 10,
  postgresSpeedup: 10,
  /** Sort, scan and stats shapes: at least this many times faster than PostgreSQL. */
  postgresHeavySpeedup: 50,
  /** Engine p99 in process: shapes narrowed by rover/sol/camera/date, and full scans. */
  narrowP99Ms: 1,
  scanP99Ms: 15,
  /** A page of 100 photos rendered in process (every engine shape answering 100 photos), p50. */
  page100P50Ms: 0.1,
  /** HTTP req/s as a share of a bare Bun.serve answering the same bytes. */
  listShare: 0.65,
  notModifiedShare: 0.85,
  /** HTTP list p99 when driven open-loop at half its saturation rate. */
  halfSaturationP99Ms: 1,
  loadMs: 1000,
  rssMb: 1024,
  /** The synthetic catalogue's build at scale 1, seconds. */
  buildS: 60,
  scaled: { loadMs: 5000, rssMb: 6 * 1024, buildS: 600, buildPeakRssMb: 8 * 1024 },
} as const

/** Works that carry the higher PostgreSQL bar. */
export const HEAVY_WORK: readonly ShapeWork[] = ['sort', 'scan', 'stats']

/** The speedup a shape must reach against a peer. */
export function peerGoalFor(peer: 'DuckDB' | 'PostgreSQL', work: ShapeWork | undefined): number {
  if (peer === 'DuckDB') return GOALS.duckdbSpeedup
  return work && HEAVY_WORK.includes(work) ? GOALS.postgresHeavySpeedup : GOALS.postgresSpeedup
}

/** True when the result is a scaled run (checked against the scale goals). */
export const isScaled = (r: BenchResult) => r.scale !== undefined && r.scale !== 1

const pct = (x: number) => `${Math.round(x * 100)}%`
const notMeasured = (label: string, o: { status: string; reason?: string; error?: string }): GoalCheck => ({
  goal: label,
  measured: `not measured (${o.status === 'skipped' ? o.reason : o.error})`,
  met: null,
})

function peerGoal(r: PeerResult | undefined, outcome: BenchResult['scenarios']['duckdb'], label: string, goalOf: (work: ShapeWork | undefined) => number, applies: (work: ShapeWork | undefined) => boolean): GoalCheck[] {
  if (!outcome) return []
  if (!r) return [notMeasured(label, outcome)]
  const shapes = r.shapes.filter((s) => applies(s.work))
  const timed = shapes.filter((s) => s.check === 'equal')
  const bad = shapes.filter((s) => s.check === 'mismatch' || s.check === 'failed')
  const missed = timed.filter((s) => !((s.speedup ?? 0) >= goalOf(s.work)))
  const worst = timed.reduce<(typeof timed)[number] | undefined>((a, s) => (!a || (s.speedup ?? Infinity) < (a.speedup ?? Infinity) ? s : a), undefined)
  const parts = [`${timed.length - missed.length}/${timed.length} shapes met`]
  if (worst) parts.push(`lowest x${worst.speedup} (${worst.name})`)
  if (missed.length) parts.push(`missed: ${missed.map((s) => `${s.name} x${s.speedup}`).join(', ')}`)
  if (bad.length) parts.push(`${bad.length} shape(s) not comparable: ${bad.map((s) => `${s.name} ${s.check}`).join(', ')}`)
  return [{ goal: label, measured: parts.join('; '), met: timed.length > 0 && missed.length === 0 && bad.length === 0 }]
}

function engineGoals(r: BenchResult, scaled: boolean): GoalCheck[] {
  const e = r.scenarios.engine
  const out: GoalCheck[] = []
  const limits = scaled ? ([['narrow', GOALS.narrowP99Ms]] as const) : ([['narrow', GOALS.narrowP99Ms], ['scan', GOALS.scanP99Ms]] as const)
  for (const [group, limit] of limits) {
    const label = `engine p99 <= ${limit} ms for ${group === 'narrow' ? 'shapes narrowed by rover/sol/camera/date' : 'full-scan shapes'}`
    if (!e) continue
    if (e.status !== 'ok') { out.push(notMeasured(label, e)); continue }
    const shapes = e.shapes.filter((s) => s.group === group && s.status === 'ok')
    const missed = shapes.filter((s) => !((s.p99_ms ?? Infinity) <= limit))
    out.push({
      goal: label,
      measured: `${shapes.length - missed.length}/${shapes.length} met` + (missed.length ? `; missed: ${missed.map((s) => `${s.name} ${s.p99_ms} ms`).join(', ')}` : ''),
      met: shapes.length > 0 && missed.length === 0,
    })
  }
  if (!scaled && e?.status === 'ok') {
    const label = `a page of 100 photos <= ${GOALS.page100P50Ms} ms p50 in process (every shape answering 100 photos)`
    const pages = e.shapes.filter((s) => s.status === 'ok' && (s.endpoint === 'photos' || s.endpoint === 'batch') && s.returned === 100)
    const missed = pages.filter((s) => !((s.p50_ms ?? Infinity) <= GOALS.page100P50Ms))
    out.push({
      goal: label,
      measured: pages.length === 0 ? 'no shape answered 100 photos on this index' : `${pages.length - missed.length}/${pages.length} met: ${pages.map((s) => `${s.name} ${s.p50_ms} ms`).join(', ')}`,
      met: pages.length === 0 ? null : missed.length === 0,
    })
  }
  return out
}

function httpGoals(r: BenchResult): GoalCheck[] {
  const h = r.scenarios.http
  if (!h) return []
  const out: GoalCheck[] = []
  for (const [name, label, goal] of [['list', 'list query (25 photos)', GOALS.listShare], ['not-modified', '304 revalidation', GOALS.notModifiedShare]] as const) {
    const t = h.status === 'ok' ? h.targets.find((x) => x.name === name) : undefined
    const full = `${label} >= ${pct(goal)} of the bare Bun.serve ceiling`
    if (h.status !== 'ok') { out.push(notMeasured(full, h)); continue }
    if (!t || t.ratio === undefined) { out.push({ goal: full, measured: 'not measured (target not run)', met: null }); continue }
    out.push({
      goal: full,
      measured: `${pct(t.ratio)} (${t.rps} vs ${t.ceiling_rps} req/s)${t.error ? `; ${t.error}` : ''}`,
      met: t.status === 'ok' && t.ratio >= goal,
    })
  }
  const label = `HTTP list p99 <= ${GOALS.halfSaturationP99Ms} ms at half its saturation rate (open loop, corrected for coordinated omission)`
  const hs = h.status === 'ok' ? h.half_saturation : undefined
  if (h.status !== 'ok') out.push(notMeasured(label, h))
  else if (!hs) out.push({ goal: label, measured: 'not measured (list target not run)', met: null })
  else {
    const o = hs.ours
    const errors = o.bad_status + o.unanswered
    out.push({
      goal: label,
      measured: `p99 ${o.p99_ms} ms, p50 ${o.p50_ms} ms at ${hs.rate_rps} req/s (saturation ${hs.saturation_rps}); bare ceiling at the same rate p99 ${hs.ceiling.p99_ms} ms; generator lag p99 ${Number.isFinite(o.send_lag_p99_ms ?? NaN) ? `${o.send_lag_p99_ms} ms` : '– (no request went out on an idle connection)'}` +
        (errors ? `; ${errors} bad or unanswered requests` : ''),
      met: errors === 0 && o.p99_ms <= GOALS.halfSaturationP99Ms,
    })
  }
  return out
}

const buildOf = (s: StartSizeResult): BuildFigures | undefined => (s.build && 'seconds' in s.build ? s.build : undefined)

function startGoals(r: BenchResult, scaled: boolean): GoalCheck[] {
  const s = r.scenarios['start-size']
  if (!s) return []
  const g = scaled ? GOALS.scaled : GOALS
  const labels = [`index load <= ${g.loadMs / 1000} s`, `RSS after load <= ${g.rssMb / 1024} GB`, `synthetic build <= ${scaled ? `${GOALS.scaled.buildS / 60} min` : `${GOALS.buildS} s`}`]
  if (scaled) labels.push(`build peak RSS <= ${GOALS.scaled.buildPeakRssMb / 1024} GB`)
  if (s.status !== 'ok') {
    // The measured index's own build died: nothing could be loaded, and the build goals are missed.
    const died = r.index.build && 'failed' in r.index.build ? r.index.build.failed : undefined
    return labels.map((l, i) => (died && i >= 2 ? { goal: l, measured: `build failed: ${died}`, met: false } : notMeasured(l, s)))
  }
  const b = buildOf(s)
  const failed = s.build && 'failed' in s.build ? s.build.failed : undefined
  const why = failed ? `build failed: ${failed}` : s.build && 'skipped' in s.build ? s.build.skipped : 'no build figure'
  const out: GoalCheck[] = [
    { goal: labels[0], measured: `${round3(s.load_ms / 1000)} s (${s.photos} photos)`, met: s.load_ms <= g.loadMs },
    { goal: labels[1], measured: `${round3(s.rss_mb)} MiB`, met: s.rss_mb <= g.rssMb },
    b
      ? { goal: labels[2], measured: `${b.seconds} s at scale ${b.scale}${b.photos ? ` (${b.photos} photos)` : ''}`, met: b.scale === (r.scale ?? b.scale) ? b.seconds <= (scaled ? GOALS.scaled.buildS : GOALS.buildS) : null }
      : { goal: labels[2], measured: failed ? why : `not measured (${why})`, met: failed ? false : null },
  ]
  if (scaled)
    out.push(b?.peak_rss_mb !== undefined
      ? { goal: labels[3], measured: `${b.peak_rss_mb} MiB`, met: b.peak_rss_mb <= GOALS.scaled.buildPeakRssMb }
      : { goal: labels[3], measured: failed ? why : `not measured (${b ? 'no peak RSS figure' : why})`, met: failed ? false : null })
  return out
}

function exportGoals(r: BenchResult): GoalCheck[] {
  const x = r.scenarios.export
  if (x?.status !== 'ok') return []
  const out: GoalCheck[] = []
  for (const [format, goal] of [['arrow', 5e6], ['ndjson', 1e6], ['csv', 1e6]] as const) {
    const f = x.formats[format]
    if (!f) continue
    out.push({ goal: `${format} export >= ${goal / 1e6}M rows/s end to end`, measured: `${(f.rows_per_s / 1e6).toFixed(2)}M rows/s (${f.rows} rows in ${f.ms} ms${f.share_of_ceiling !== undefined ? `, ${pct(f.share_of_ceiling)} of the same client's bare Bun.serve ceiling, ${((f.ceiling_rows_per_s ?? 0) / 1e6).toFixed(2)}M rows/s` : ''}${f.server_cpu_ms !== undefined ? `, server CPU ${f.server_cpu_ms} ms: ${((f.rows_per_cpu_s ?? 0) / 1e6).toFixed(2)}M rows per CPU second` : ''}; ${f.peer}: ${f.peer_ms} ms, ours x${f.ratio_vs_peer})`, met: f.rows_per_s >= goal })
  }
  const worst = Math.max(...Object.values(x.formats).map((f) => f.rss_growth_mb))
  out.push({ goal: 'server RSS growth during a full export <= 64 MB', measured: `${worst} MB (largest of the formats)`, met: worst <= 64 })
  return out
}

/**
 * The goals, each compared with the same run's baselines. `base` is the scale-1 result a scaled
 * run's scan growth is compared with (ignored at scale 1).
 */
export function checkGoals(r: BenchResult, base?: BenchResult): GoalCheck[] {
  const scaled = isScaled(r)
  const goals = engineGoals(r, scaled)
  if (scaled) {
    const e = r.scenarios.engine
    if (e) {
      const label = 'scan shapes grow no faster than the rows (p50 ratio to the scale-1 run <= rows ratio)'
      if (e.status !== 'ok') goals.push(notMeasured(label, e))
      else if (!base) goals.push({ goal: label, measured: 'not measured (no scale-1 result to compare with: --compare FILE)', met: null })
      else {
        const g = scanGrowth(base, r)
        goals.push({
          goal: label,
          measured: g.shapes.length === 0 ? 'no scan shape timed in both runs'
            : `rows x${g.rowsRatio}; ${g.shapes.length - g.missed.length}/${g.shapes.length} within; largest x${g.worst?.ratio} (${g.worst?.name})` +
              (g.missed.length ? `; faster than the rows: ${g.missed.map((s) => `${s.name} x${s.ratio}`).join(', ')}` : '') +
              (g.incomparable.length ? `; not compared (another request at this scale): ${g.incomparable.map((s) => s.name).join(', ')}` : ''),
          met: g.shapes.length === 0 ? null : g.missed.length === 0,
        })
      }
    }
  } else {
    const duck = r.scenarios.duckdb?.status === 'ok' ? r.scenarios.duckdb : undefined
    const pg = r.scenarios.postgres?.status === 'ok' ? r.scenarios.postgres : undefined
    goals.push(...peerGoal(duck, r.scenarios.duckdb, `every shape >= ${GOALS.duckdbSpeedup}x faster than DuckDB`, () => GOALS.duckdbSpeedup, () => true))
    goals.push(...peerGoal(pg, r.scenarios.postgres, `every shape >= ${GOALS.postgresSpeedup}x faster than PostgreSQL`, () => GOALS.postgresSpeedup, () => true))
    goals.push(...peerGoal(pg, r.scenarios.postgres, `every sort, scan and stats shape >= ${GOALS.postgresHeavySpeedup}x faster than PostgreSQL`, () => GOALS.postgresHeavySpeedup, (w) => w !== undefined && HEAVY_WORK.includes(w)))
    goals.push(...httpGoals(r))
  }
  goals.push(...startGoals(r, scaled))
  if (!scaled) goals.push(...exportGoals(r))
  return goals
}
