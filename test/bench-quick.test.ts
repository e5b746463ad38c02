import { describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { BenchResult } from '../bench/lib/result'

/**
 * `bun run bench --quick` is part of the tests so the bench never rots: it must run every
 * scenario on the real test index and write a well-formed result. Its figures are not checked
 * against goals (no timing assertions in tests); its answers are: every peer shape must give
 * the same ids and counts as our engine.
 */
const ROOT = resolve(import.meta.dir, '..')

describe('bench --quick', () => {
  const out = mkdtempSync(join(tmpdir(), 'bench-quick-test-'))
  let result: BenchResult
  let markdown = ''
  let exitCode = -1
  let stderr = ''

  test('runs every scenario on the test index and writes the dated JSON and Markdown', () => {
    const run = Bun.spawnSync([process.execPath, 'bench/run.ts', '--quick', '--out', out], { cwd: ROOT, env: process.env, stdout: 'pipe', stderr: 'pipe' })
    exitCode = run.exitCode
    stderr = run.stderr.toString()
    const files = readdirSync(out)
    const json = files.find((f) => f.endsWith('-quick.json'))
    const md = files.find((f) => f.endsWith('-quick.md'))
    expect(json, stderr.slice(-2000)).toBeDefined()
    expect(md).toBeDefined()
    result = JSON.parse(readFileSync(join(out, json!), 'utf8'))
    markdown = readFileSync(join(out, md!), 'utf8')
    expect(result.quick).toBe(true)
    expect(result.index.dir).toBe(resolve(process.env.INDEX_DIR!))
    expect(Object.keys(result.scenarios).sort()).toEqual(['conventions', 'duckdb', 'engine', 'export', 'gatekeeping', 'http', 'postgres', 'scale-out', 'start-size'])
    expect(existsSync(join(out, 'latest.md'))).toBe(false) // a quick run never replaces the committed table
  }, 180_000)

  test('no scenario failed (skips only for a missing tool, each with its reason) and the run exits 0', () => {
    for (const [name, o] of Object.entries(result.scenarios)) {
      expect({ name, status: o.status, why: o.status === 'failed' ? o.error : undefined }).not.toMatchObject({ status: 'failed' })
      if (o.status === 'skipped') expect(o.reason.length).toBeGreaterThan(0)
    }
    for (const name of ['engine', 'duckdb', 'start-size'] as const) expect(result.scenarios[name]!.status).toBe('ok')
    expect(exitCode, stderr.slice(-2000)).toBe(0)
  })

  test('the engine scenario times at least 20 query shapes, each with p50 <= p99', () => {
    const e = result.scenarios.engine!
    if (e.status !== 'ok') throw new Error('engine not ok')
    expect(e.shapes.length).toBeGreaterThanOrEqual(20)
    const ok = e.shapes.filter((s) => s.status === 'ok')
    expect(ok.length).toBeGreaterThanOrEqual(20)
    for (const s of ok) {
      expect(s.p50_ms!).toBeGreaterThan(0)
      expect(s.p50_ms!).toBeLessThanOrEqual(s.p99_ms!)
      expect(typeof s.met).toBe(s.goal_p99_ms === undefined ? 'undefined' : 'boolean')
    }
    for (const s of e.shapes.filter((x) => x.status !== 'ok')) expect(s.status).toBe('skipped')
  })

  test('every peer shape gives the same ids and counts as our engine before it is timed', () => {
    for (const name of ['duckdb', 'postgres'] as const) {
      const p = result.scenarios[name]!
      if (p.status !== 'ok') continue // PostgreSQL may be absent on a bare machine: reported as skipped
      const compared = p.shapes.filter((s) => s.check !== 'skipped')
      expect(compared.length).toBeGreaterThanOrEqual(20)
      expect(p.shapes.filter((s) => s.check === 'mismatch' || s.check === 'failed').map((s) => `${s.name}: ${s.detail}`)).toEqual([])
      // The speedup is computed from unrounded p50s; the report rounds each figure (round3: 3
      // significant digits, at most 3 decimals), so it must lie within what the rounded figures allow.
      for (const s of compared) {
        const [ours, peer, speedup] = [s.ours_p50_ms!, s.peer_p50_ms!, s.speedup!]
        const lo = (peer - halfUnit(peer)) / (ours + halfUnit(ours)) - halfUnit(speedup)
        const hi = (peer + halfUnit(peer)) / Math.max(1e-9, ours - halfUnit(ours)) + halfUnit(speedup)
        expect(speedup).toBeGreaterThanOrEqual(lo)
        expect(speedup).toBeLessThanOrEqual(hi)
      }
    }
  })

  test('HTTP, start-size and goals are well formed, and the Markdown quotes the goals table', () => {
    const h = result.scenarios.http!
    if (h.status === 'ok') {
      expect(h.targets.map((t) => t.name)).toEqual(['list', 'not-modified', 'health', 'list-gzip'])
      for (const t of h.targets) {
        expect(t.status).toBe('ok')
        expect(t.rps!).toBeGreaterThan(0)
        expect(t.ceiling_rps!).toBeGreaterThan(0)
      }
      // The list driven open-loop at half its saturation rate: no error answer, and every request
      // intended in the window was sent (answered, or counted unanswered: never dropped).
      const hs = h.half_saturation!
      expect(hs.rate_rps).toBe(Math.round(h.targets[0].rps! / 2))
      for (const f of [hs.ours, hs.ceiling]) {
        expect(f.bad_status).toBe(0)
        expect(f.achieved_rps * hs.duration_s + f.unanswered).toBeGreaterThanOrEqual(hs.rate_rps * hs.duration_s * 0.95)
        expect(f.p50_ms).toBeGreaterThan(0)
        expect(f.p50_ms).toBeLessThanOrEqual(f.p99_ms)
      }
      expect(result.goals.some((g) => g.goal.includes('half its saturation rate'))).toBe(true)
    }
    const s = result.scenarios['start-size']!
    if (s.status !== 'ok') throw new Error('start-size not ok')
    expect(s.load_ms).toBeGreaterThan(0)
    expect(s.rss_mb).toBeGreaterThan(0)
    expect(s.photos).toBeGreaterThan(0)
    expect(result.goals.length).toBeGreaterThanOrEqual(6)
    for (const g of result.goals) expect([true, false, null]).toContain(g.met)
    expect(markdown).toContain('## Goals')
    expect(markdown).toContain('## 1. Query engine in process')
    const c = result.scenarios.conventions!
    expect(c.status).toBe('ok')
    if (c.status === 'ok') {
      for (const v of Object.values(c.us_per_request)) expect(v).toBeGreaterThan(0)
      expect(c.isolated.log_line_us).toBeGreaterThan(0)
      expect(c.isolated.metrics_observe_us).toBeGreaterThan(0)
    }
    expect(markdown).toContain('## Conventions: access log, metrics, RateLimit fields')
    rmSync(out, { recursive: true, force: true })
  })
})

/** Half a unit in the last place round3 (bench/lib/measure.ts) keeps for a reported figure. */
function halfUnit(x: number): number {
  const digits = Math.max(0, Math.min(3, 2 - Math.floor(Math.log10(Math.abs(x)))))
  return 0.5 * 10 ** -digits
}
