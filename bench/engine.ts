import type { EngineResult, ShapeTiming } from './lib/result'
import { loadEngine } from './lib/engine-api'
import { prepareShapes } from './lib/prepare-shapes'
import { measureInterleaved, round3 } from './lib/measure'
import { ourAnswer, ourCall } from './lib/our-call'
import { againstRounds, engineSampling, type ScenarioOptions } from './lib/scenario-options'
import { compareEngines } from './lib/engine-against'
import { GOAL_P99_MS, requestOf } from './shapes'

/**
 * Scenario 1: the query engine in process. Each shape of the fixed mix is answered by its
 * pure render function (parameters to JSON text, no response cache), timed call by call:
 * p50 and p99 per round, the medians of five rounds reported. The rounds are interleaved across
 * the shapes (round 1 of every shape, then round 2, ...: measure.ts measureInterleaved), so a
 * shape's rounds are spread over the whole run instead of falling together into one slow spell
 * of a shared machine. With `--against REF` the same
 * shapes are answered by REF's engine too (answers checked equal, rounds alternated:
 * bench/lib/engine-against.ts), so a refactor's cost is a ratio measured in one run.
 */
export async function benchEngine(o: ScenarioOptions): Promise<EngineResult> {
  const engine = await loadEngine()
  const store = await engine.loadStore(o.indexDir)
  const shapes = prepareShapes(engine, store)
  const sampling = engineSampling(o.quick)
  if (o.against) {
    // The other tree's engine on its own copy of the index, loaded by its own loader.
    const theirs = await loadEngine(o.against.root, { partial: true })
    const theirStore = await theirs.loadStore(o.indexDir)
    o.log(`  against ${o.against.ref} (${o.against.commit.slice(0, 12)})${theirs.missing.length ? `: its engine face lacks ${theirs.missing.join(', ')}` : ''}`)
    const r = compareEngines(shapes, { engine, store }, { engine: theirs, store: theirStore }, sampling, againstRounds(o.quick), { scaled: o.scale !== 1 && !o.quick, log: o.log })
    return { shapes: r.ours, against: { ref: o.against.ref, commit: o.against.commit, ...r.against } }
  }
  // Every shape's call and first answer, then all of them timed in interleaved rounds.
  const out: ShapeTiming[] = []
  const timed: Array<{ at: number; call: () => unknown }> = []
  for (const shape of shapes) {
    // At a scale other than 1 only the narrowed shapes keep their p99 goal; scans are compared with a scale-1 run instead.
    const goal = o.scale !== 1 && !o.quick && shape.group !== 'narrow' ? undefined : GOAL_P99_MS[shape.group]
    const base = { name: shape.name, group: shape.group, work: shape.work, endpoint: shape.endpoint, request: requestOf(shape), goal_p99_ms: goal }
    const call = ourCall(shape, engine, store)
    if (shape.skip || typeof call === 'string') {
      out.push({ ...base, status: 'skipped', reason: shape.skip ?? (call as string) })
      continue
    }
    try {
      const answer = ourAnswer(shape.endpoint, call())
      out.push({ ...base, status: 'ok', returned: answer.groups ? answer.groups.size : answer.ids.length, total: answer.total })
      timed.push({ at: out.length - 1, call })
    } catch (e) {
      out.push({ ...base, status: 'failed', reason: (e as Error).message.split('\n')[0] })
      o.log(`  ${shape.name}: FAILED ${(e as Error).message.split('\n')[0]}`)
    }
  }
  const timings = measureInterleaved(timed.map((x) => x.call), sampling)
  timed.forEach(({ at }, k) => {
    const s = out[at]
    const t = timings[k]
    if (t instanceof Error) {
      out[at] = { ...s, status: 'failed', returned: undefined, total: undefined, reason: t.message.split('\n')[0] }
      o.log(`  ${s.name}: FAILED ${t.message.split('\n')[0]}`)
      return
    }
    out[at] = { ...s, p50_ms: round3(t.p50), p99_ms: round3(t.p99), samples: t.samples, met: s.goal_p99_ms === undefined ? undefined : t.p99 <= s.goal_p99_ms }
    o.log(`  ${s.name}: p50 ${round3(t.p50)} ms (rounds ${round3(t.p50Lo)}-${round3(t.p50Hi)}), p99 ${round3(t.p99)} ms (${t.samples} calls)`)
  })
  return { shapes: out }
}
