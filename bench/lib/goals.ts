import type { BenchResult, GoalCheck, PeerResult } from './result'
import { round3 } from './measure'

const pct = (x: number) => `${Math.round(x * 100)}%`

function peerGoal(name: string, goal: number, r: BenchResult['scenarios']['duckdb']): GoalCheck[] {
  const label = `every shape >= ${goal}x faster than ${name}`
  if (!r) return []
  if (r.status !== 'ok') return [{ goal: label, measured: `not measured (${r.status === 'skipped' ? r.reason : r.error})`, met: null }]
  const shapes = (r as PeerResult).shapes
  const timed = shapes.filter((s) => s.check === 'equal')
  const bad = shapes.filter((s) => s.check === 'mismatch' || s.check === 'failed')
  const missed = timed.filter((s) => !s.met)
  const worst = timed.reduce<(typeof timed)[number] | undefined>((a, s) => (!a || (s.speedup ?? Infinity) < (a.speedup ?? Infinity) ? s : a), undefined)
  const parts = [`${timed.length - missed.length}/${timed.length} shapes met`]
  if (worst) parts.push(`lowest x${worst.speedup} (${worst.name})`)
  if (missed.length) parts.push(`missed: ${missed.map((s) => `${s.name} x${s.speedup}`).join(', ')}`)
  if (bad.length) parts.push(`${bad.length} shape(s) not comparable: ${bad.map((s) => `${s.name} ${s.check}`).join(', ')}`)
  return [{ goal: label, measured: parts.join('; '), met: timed.length > 0 && missed.length === 0 && bad.length === 0 }]
}

/** The issue's goals, each compared with the same run's baselines. */
export function checkGoals(r: BenchResult): GoalCheck[] {
  const goals: GoalCheck[] = []
  const e = r.scenarios.engine
  if (e?.status === 'ok') {
    for (const [group, limit] of [['narrow', 1], ['scan', 15]] as const) {
      const shapes = e.shapes.filter((s) => s.group === group && s.status === 'ok')
      const missed = shapes.filter((s) => !s.met)
      goals.push({
        goal: `engine p99 <= ${limit} ms for ${group === 'narrow' ? 'shapes narrowed by rover/sol/camera/date' : 'full-scan shapes'} (issue 3)`,
        measured: `${shapes.length - missed.length}/${shapes.length} met` + (missed.length ? `; missed: ${missed.map((s) => `${s.name} ${s.p99_ms} ms`).join(', ')}` : ''),
        met: shapes.length > 0 && missed.length === 0,
      })
    }
  }
  goals.push(...peerGoal('DuckDB', 10, r.scenarios.duckdb))
  goals.push(...peerGoal('PostgreSQL', 50, r.scenarios.postgres))
  const h = r.scenarios.http
  if (h) for (const [name, label] of [['list', 'list query (25 photos)'], ['not-modified', '304 revalidation']] as const) {
    const t = h?.status === 'ok' ? h.targets.find((x) => x.name === name) : undefined
    const goal = name === 'list' ? 0.6 : 0.8
    goals.push({
      goal: `${label} >= ${pct(goal)} of the bare Bun.serve ceiling`,
      measured: t?.ratio !== undefined ? `${pct(t.ratio)} (${t.rps} vs ${t.ceiling_rps} req/s)${t.error ? `; ${t.error}` : ''}` : `not measured${h && h.status !== 'ok' ? ` (${h.status === 'skipped' ? h.reason : h.error})` : ''}`,
      met: t?.met ?? null,
    })
  }
  const s = r.scenarios['start-size']
  if (s?.status === 'ok') {
    goals.push({ goal: 'index load <= 1 s', measured: `${round3(s.load_ms / 1000)} s (${s.photos} photos)`, met: s.load_ms <= 1000 })
    goals.push({ goal: 'RSS after load <= 1 GB', measured: `${round3(s.rss_mb)} MiB`, met: s.rss_mb <= 1024 })
  } else if (s) {
    const why = s.status === 'skipped' ? s.reason : s.error
    goals.push({ goal: 'index load <= 1 s', measured: `not measured (${why})`, met: null })
    goals.push({ goal: 'RSS after load <= 1 GB', measured: `not measured (${why})`, met: null })
  }
  const x = r.scenarios.export
  if (x?.status === 'ok') {
    for (const [format, goal] of [['arrow', 5e6], ['ndjson', 1e6], ['csv', 1e6]] as const) {
      const f = x.formats[format]
      if (!f) continue
      goals.push({ goal: `${format} export >= ${goal / 1e6}M rows/s end to end`, measured: `${(f.rows_per_s / 1e6).toFixed(2)}M rows/s (${f.rows} rows in ${f.ms} ms; ${f.peer}: ${f.peer_ms} ms, ours x${f.ratio_vs_peer})`, met: f.rows_per_s >= goal })
    }
    const worst = Math.max(...Object.values(x.formats).map((f) => f.rss_growth_mb))
    goals.push({ goal: 'server RSS growth during a full export <= 64 MB', measured: `${worst} MB (largest of the formats)`, met: worst <= 64 })
  }
  return goals
}
