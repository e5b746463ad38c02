import { describe, expect, test } from 'bun:test'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseBenchArgs } from '../bench/lib/bench-options'
import { compareEngines } from '../bench/lib/engine-against'
import { loadEngine, type EngineApi } from '../bench/lib/engine-api'
import { prepareShapes } from '../bench/lib/prepare-shapes'
import type { BenchResult } from '../bench/lib/result'
import { testStore } from './setup/test-app'

/**
 * `npm run bench -- --only engine --against REF`: this tree's engine and REF's, in one process,
 * on the same shapes and index. The two answers of a shape are checked equal before either is
 * timed (an engine that answers differently fails the shape), and the run reports each shape's
 * ratio. No figure is held to a value here (speed lives in bench/, not in tests).
 */
const ROOT = resolve(import.meta.dir, '..')
const TINY = { rounds: 1, budgetMs: 2, minSamples: 2, maxSamples: 4, warmup: 1 }

describe('bench --against', () => {
  test('is refused without --only engine (it compares engines only)', () => {
    expect(() => parseBenchArgs(['--quick', '--against', 'main'])).toThrow('--against compares engines: use it with --only engine')
    expect(parseBenchArgs(['--quick', '--only', 'engine', '--against', 'main']).against).toBe('main')
  })

  test('fails a shape whose answer differs between the two engines instead of timing it', async () => {
    const engine = await loadEngine()
    const store = await testStore()
    const shapes = prepareShapes(engine, store).filter((s) => s.endpoint === 'photos' || s.endpoint === 'stats').slice(0, 4)
    // An engine that lists nothing: every photo list differs, the statistics do not.
    const empty: EngineApi = { ...engine, listPhotos: () => JSON.stringify({ data: [], meta: { total_count: 0 } }) }
    const r = compareEngines(shapes, { engine, store }, { engine: empty, store }, TINY, 2, { scaled: false, log: () => {} })
    for (const s of r.against.shapes) {
      const shape = shapes.find((x) => x.name === s.name)!
      if (shape.skip) continue
      if (shape.endpoint === 'photos') expect({ name: s.name, status: s.status, reason: s.reason?.startsWith('answers differ between the trees: total') }).toEqual({ name: s.name, status: 'failed', reason: true })
      else expect({ name: s.name, status: s.status, ratio: typeof s.ratio_p50 }).toEqual({ name: s.name, status: 'ok', ratio: 'number' })
    }
    expect(r.ours.map((s) => s.name)).toEqual(shapes.map((s) => s.name))
  })

  test('times this tree beside the engine of a git ref unpacked for the run, answers equal, a ratio per shape, and removes the unpacked tree', () => {
    const out = mkdtempSync(join(tmpdir(), 'bench-against-test-'))
    try {
      const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim()
      const before = readdirSync(tmpdir()).filter((f) => f.startsWith(`mars-bench-ref-${head.slice(0, 12)}-`))
      const run = Bun.spawnSync([process.execPath, 'bench/run.ts', '--quick', '--only', 'engine', '--against', 'HEAD', '--out', out], { cwd: ROOT, env: process.env, stdout: 'pipe', stderr: 'pipe' })
      const stderr = run.stderr.toString()
      expect(run.exitCode, stderr.slice(-2000)).toBe(0)
      const json = readdirSync(out).find((f) => f.endsWith(`-against-${head.slice(0, 12)}.json`))
      expect(json, stderr.slice(-2000)).toBeDefined()
      const result = JSON.parse(readFileSync(join(out, json!), 'utf8')) as BenchResult
      const engine = result.scenarios.engine
      expect(engine?.status).toBe('ok')
      if (engine?.status !== 'ok') return
      const against = engine.against!
      expect({ ref: against.ref, commit: against.commit }).toEqual({ ref: 'HEAD', commit: head })
      expect(against.shapes.length).toBeGreaterThanOrEqual(20)
      for (const s of against.shapes) {
        if (s.status === 'skipped') expect(s.reason).toBeTruthy()
        else expect({ name: s.name, status: s.status, ratio: typeof s.ratio_p50, p99: typeof s.ratio_p99 }).toEqual({ name: s.name, status: 'ok', ratio: 'number', p99: 'number' })
      }
      expect(typeof against.geomean_ratio_p50).toBe('number')
      expect(readFileSync(join(out, json!.replace(/\.json$/, '.md')), 'utf8')).toContain(`### Against HEAD (${head.slice(0, 12)})`)
      const after = readdirSync(tmpdir()).filter((f) => f.startsWith(`mars-bench-ref-${head.slice(0, 12)}-`))
      expect(after).toEqual(before)
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
  }, 180_000)
})
