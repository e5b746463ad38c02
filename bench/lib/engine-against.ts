import type { Store } from '../../src/store/store'
import { GOAL_P99_MS, requestOf } from '../shapes'
import type { EngineApi } from './engine-api'
import { median, measureSync, round3, type MeasureOptions } from './measure'
import { answerDifference, ourAnswer, ourCall } from './our-call'
import type { EngineAgainst, AgainstShape, ShapeTiming } from './result'
import type { QueryShape } from '../shapes'

/** One engine with its own store (each tree's loader reads the index). */
export interface Side {
  engine: EngineApi
  store: Store
}

const ratio = (a: number, b: number) => (b > 0 ? round3(a / b) : undefined)
const geomean = (xs: number[]) => (xs.length ? round3(Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length)) : undefined)

/**
 * This tree's engine against another tree's on the same shapes and index, in one process: the
 * two answers of each shape are checked equal first, then timed in alternating rounds (this
 * tree first in even rounds, the other first in odd ones), so load on the machine and the
 * process's warmth fall on both alike. Each side's p50 and p99 are the medians of its rounds;
 * a ratio above 1 means this tree is slower.
 */
export function compareEngines(shapes: QueryShape[], ours: Side, theirs: Side, sampling: MeasureOptions, rounds: number, opts: { scaled: boolean; log: (line: string) => void }): { ours: ShapeTiming[]; against: Omit<EngineAgainst, 'ref' | 'commit'> } {
  const round: MeasureOptions = { ...sampling, rounds: 1, warmup: 0 }
  const timings: ShapeTiming[] = []
  const rows: AgainstShape[] = []
  for (const shape of shapes) {
    const goal = opts.scaled && shape.group !== 'narrow' ? undefined : GOAL_P99_MS[shape.group]
    const base = { name: shape.name, group: shape.group, work: shape.work, endpoint: shape.endpoint, request: requestOf(shape), goal_p99_ms: goal }
    const a = ourCall(shape, ours.engine, ours.store)
    const b = ourCall(shape, theirs.engine, theirs.store)
    const skip = shape.skip ?? (typeof a === 'string' ? a : typeof b === 'string' ? `the other tree: ${b}` : undefined)
    if (skip !== undefined || typeof a === 'string' || typeof b === 'string') {
      timings.push({ ...base, status: 'skipped', reason: skip })
      rows.push({ name: shape.name, group: shape.group, goal_p99_ms: goal, status: 'skipped', reason: skip })
      continue
    }
    try {
      const answer = ourAnswer(shape.endpoint, a())
      const differs = answerDifference(answer, ourAnswer(shape.endpoint, b()))
      if (differs) throw new Error(`answers differ between the trees: ${differs}`)
      for (let i = 0; i < sampling.warmup; i++) {
        a()
        b()
      }
      const sides = { a: [] as Array<{ p50: number; p99: number; n: number }>, b: [] as Array<{ p50: number; p99: number; n: number }> }
      for (let r = 0; r < rounds; r++) {
        for (const side of r % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const)) {
          const t = measureSync(side === 'a' ? a : b, round)
          sides[side].push({ p50: t.p50, p99: t.p99, n: t.samples })
        }
      }
      const sum = (xs: typeof sides.a) => ({ p50: median(xs.map((x) => x.p50)), p99: median(xs.map((x) => x.p99)), n: xs.reduce((s, x) => s + x.n, 0) })
      const A = sum(sides.a)
      const B = sum(sides.b)
      const met = (p99: number) => (goal === undefined ? undefined : p99 <= goal)
      timings.push({ ...base, status: 'ok', returned: answer.groups ? answer.groups.size : answer.ids.length, total: answer.total, p50_ms: round3(A.p50), p99_ms: round3(A.p99), samples: A.n, met: met(A.p99) })
      rows.push({
        name: shape.name,
        group: shape.group,
        goal_p99_ms: goal,
        status: 'ok',
        ours_p50_ms: round3(A.p50),
        ours_p99_ms: round3(A.p99),
        ref_p50_ms: round3(B.p50),
        ref_p99_ms: round3(B.p99),
        ratio_p50: ratio(A.p50, B.p50),
        ratio_p99: ratio(A.p99, B.p99),
        ours_met: met(A.p99),
        ref_met: met(B.p99),
      })
      opts.log(`  ${shape.name}: p50 ${round3(A.p50)} vs ${round3(B.p50)} ms (x${ratio(A.p50, B.p50)}), p99 ${round3(A.p99)} vs ${round3(B.p99)} ms`)
    } catch (e) {
      const reason = (e as Error).message.split('\n')[0]
      timings.push({ ...base, status: 'failed', reason })
      rows.push({ name: shape.name, group: shape.group, goal_p99_ms: goal, status: 'failed', reason })
      opts.log(`  ${shape.name}: FAILED ${reason}`)
    }
  }
  const ok = rows.filter((r) => r.status === 'ok' && r.ratio_p50 !== undefined && r.ratio_p99 !== undefined)
  const goalsMet = (side: 'ours_met' | 'ref_met') => rows.filter((r) => r[side] === true).length
  return {
    ours: timings,
    against: {
      rounds,
      shapes: rows,
      geomean_ratio_p50: geomean(ok.map((r) => r.ratio_p50!)),
      geomean_ratio_p99: geomean(ok.map((r) => r.ratio_p99!)),
      goals_met: { ours: goalsMet('ours_met'), ref: goalsMet('ref_met'), of: rows.filter((r) => r.status === 'ok' && r.goal_p99_ms !== undefined).length },
    },
  }
}
