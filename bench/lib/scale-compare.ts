import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BenchResult } from './result'
import { round3 } from './measure'

/** Photos a result measured (the index's manifest, else the start-size probe's count). */
export function photosOf(r: BenchResult): number | undefined {
  const s = r.scenarios['start-size']
  return r.index.photos ?? (s?.status === 'ok' ? s.photos : undefined)
}

export interface ShapeGrowth {
  name: string
  group: string
  base_p50_ms: number
  scaled_p50_ms: number
  base_p99_ms?: number
  scaled_p99_ms?: number
  /** scaled p50 / base p50. */
  ratio: number
  /**
   * False when the shape asked something else at the other scale (values picked from the data,
   * such as a nasa_id fragment, can differ): its growth is shown but not judged.
   */
  same_request: boolean
}

export interface Growth {
  /** scaled photos / base photos. */
  rowsRatio: number
  /** Every engine shape timed in both runs, in the scaled run's order. */
  all: ShapeGrowth[]
  /** The full-scan shapes (group scan) asking the same at both scales, which must grow no faster than the rows. */
  shapes: ShapeGrowth[]
  /** Full-scan shapes whose request differs between the runs (not judged). */
  incomparable: ShapeGrowth[]
  missed: ShapeGrowth[]
  worst?: ShapeGrowth
}

/**
 * How each engine shape's p50 grew from a scale-1 run to a scaled one. A scan visits every row,
 * so its cost may grow with the rows but not faster: ratio <= rows ratio.
 */
export function scanGrowth(base: BenchResult, scaled: BenchResult): Growth {
  const rowsRatio = round3((photosOf(scaled) ?? NaN) / (photosOf(base) ?? NaN))
  const be = base.scenarios.engine?.status === 'ok' ? base.scenarios.engine.shapes : []
  const se = scaled.scenarios.engine?.status === 'ok' ? scaled.scenarios.engine.shapes : []
  // Deep-page names carry their page number, which depends on the rows: match them by prefix.
  const key = (name: string) => name.replace(/\d+/g, 'N')
  const all: ShapeGrowth[] = []
  for (const s of se) {
    const b = be.find((x) => key(x.name) === key(s.name))
    if (!b || s.status !== 'ok' || b.status !== 'ok' || !b.p50_ms || s.p50_ms === undefined) continue
    all.push({ name: s.name, group: s.group, base_p50_ms: b.p50_ms, scaled_p50_ms: s.p50_ms, base_p99_ms: b.p99_ms, scaled_p99_ms: s.p99_ms, ratio: round3(s.p50_ms / b.p50_ms), same_request: b.request === s.request })
  }
  const shapes = all.filter((s) => s.group === 'scan' && s.same_request)
  const incomparable = all.filter((s) => s.group === 'scan' && !s.same_request)
  const missed = shapes.filter((s) => !(s.ratio <= rowsRatio))
  const worst = shapes.reduce<ShapeGrowth | undefined>((a, s) => (!a || s.ratio > a.ratio ? s : a), undefined)
  return { rowsRatio, all, shapes, incomparable, missed, worst }
}

/**
 * The newest full (not --quick) scale-1 result in a results folder that timed the engine: what a
 * scaled run compares with when no --compare file is given.
 */
export function newestScaleOneResult(dir: string): string | undefined {
  if (!existsSync(dir)) return undefined
  let best: { path: string; at: string } | undefined
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.json'))) {
    try {
      const r = JSON.parse(readFileSync(join(dir, f), 'utf8')) as BenchResult
      if (!r.quick && (r.scale ?? 1) === 1 && r.scenarios?.engine?.status === 'ok' && (!best || r.started_at > best.at)) best = { path: join(dir, f), at: r.started_at }
    } catch {
      // not a result file
    }
  }
  return best?.path
}
