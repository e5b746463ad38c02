/**
 * `bun run bench` (also `npm run bench`): runs each question's script in a fresh process,
 * in order, and writes bench/results/<date>.json and <date>.md (and latest.md).
 *   --quick        short smoke run (see bench/lib/bench-options.ts)
 *   --only NAME    one scenario: start-size, engine, duckdb, postgres, http, gatekeeping, export;
 *                  or ingest (run only when named: the feed-to-index path at 1.5 million records)
 *   --against REF  with --only engine: REF's engine timed beside this tree's, ratios per shape
 *   --scale F      the synthetic catalogue at F times the full size (data/index-synthetic-xF), checked
 *                  against the scale goals; bench/scale-table.ts puts it beside a scale-1 run
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { ON_DEMAND_SCENARIOS, parseBenchArgs, SCENARIOS, USAGE, type BenchOptions } from './lib/bench-options'
import type { BenchResult, BuildFigures } from './lib/result'
import { buildSynthetic } from './start-size'
import { newestScaleOneResult } from './lib/scale-compare'
import { machineInfo } from './lib/machine'
import { checkGoals } from './lib/goals'
import { renderMarkdown, renderSummary, withLatestBlock } from './lib/report'
import type { ScenarioOptions } from './lib/scenario-options'
import { withRuntimeEnv } from '../src/runtime-env'
import { unpackRef, type RefTree } from './lib/ref-tree'

const log = (line: string) => process.stderr.write(line + '\n')

/** Builds the synthetic catalogue when the bench owns the index folder and it is missing (its figures when it did). */
async function ensureIndex(o: BenchOptions, result: BenchResult): Promise<BuildFigures | undefined> {
  if (existsSync(join(o.indexDir, 'current', 'manifest.json')) || existsSync(join(o.indexDir, 'manifest.json'))) return undefined
  if (!o.synthetic) throw new Error(`no index at ${o.indexDir}`)
  log(`bench: building the synthetic catalogue (scale ${o.scale}, seed ${o.seed}) into ${o.indexDir}`)
  try {
    const b = await buildSynthetic(o.root, o.indexDir, o.scale, o.seed)
    log(`bench: built ${b.photos} photos in ${b.seconds} s, peak RSS ${b.peak_rss_mb ?? '?'} MiB`)
    return { ...b, index_build: true }
  } catch (e) {
    result.index.build = { failed: (e as Error).message.split('\n')[0] }
    throw e
  }
}

/** Why the peers do not run at a scale other than 1, with what their setup took at scale 1 when known. */
function peersAtScaleReason(o: BenchOptions, base: BenchResult | undefined): string {
  const setup = (name: 'duckdb' | 'postgres') => {
    const p = base?.scenarios[name]
    return p?.status === 'ok' ? p.setup : undefined
  }
  const d = setup('duckdb')
  const p = setup('postgres')
  const s = (x: unknown) => (typeof x === 'number' ? x / 1000 : NaN)
  const setupS = s(d?.load_ms) + s(p?.load_ms) + s(p?.index_analyze_ms)
  const estimate = Number.isFinite(setupS)
    ? `; at scale 1 their setup took ${Math.round(setupS)} s (DuckDB load, PostgreSQL COPY, indexes and ANALYZE, besides the CSV export), so at scale ${o.scale} at least ~${Math.round((setupS * o.scale) / 60)} min before any query, and PostgreSQL's ~${o.scale}x larger table no longer fits its 1 GB of shared buffers`
    : ''
  return `peers are not run at scale ${o.scale} (--peers runs them)${estimate}`
}

function readManifest(dir: string): { version?: string; kind?: string; rows?: { photos?: number } } {
  for (const p of [join(dir, 'current', 'manifest.json'), join(dir, 'manifest.json')])
    if (existsSync(p)) return JSON.parse(readFileSync(p, 'utf8'))
  return {}
}

async function runScenario(name: string, options: Omit<ScenarioOptions, 'log'>, tmp: string): Promise<unknown> {
  const file = join(tmp, `${name}.json`)
  log(`\n== ${name}`)
  const t0 = Date.now()
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, 'scenario-main.ts'), name, JSON.stringify(options), file], {
    cwd: options.root,
    // The scenarios, and the servers and ceilings they start, run under the server's runtime settings.
    // Bun's fetch opens at most 256 connections at once unless told more: the fan-out holds 1,000 streams.
    env: withRuntimeEnv(name === 'fan-out' ? { BUN_CONFIG_MAX_HTTP_REQUESTS: '4096', ...process.env } : process.env),
    stdout: 'inherit',
    stderr: 'inherit',
  })
  const code = await proc.exited
  log(`== ${name}: ${((Date.now() - t0) / 1000).toFixed(1)} s`)
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'))
  return { status: 'failed', error: `scenario process exited ${code} without a result` }
}

async function main(): Promise<number> {
  let o: BenchOptions
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    console.log(USAGE)
    return 0
  }
  try {
    o = parseBenchArgs(process.argv.slice(2))
  } catch (e) {
    console.error((e as Error).message)
    return 2
  }
  const started = new Date()
  const result: BenchResult = {
    schema: 1,
    date: started.toISOString().slice(0, 10),
    started_at: started.toISOString(),
    duration_s: 0,
    command: ['npm run bench --', ...process.argv.slice(2)].join(' '),
    quick: o.quick,
    ...(o.quick ? {} : { scale: o.scale }),
    machine: machineInfo(),
    index: { dir: o.indexDir },
    scenarios: {},
    goals: [],
  }
  const tmp = mkdtempSync(join(tmpdir(), 'mars-bench-run-'))
  chmodSync(tmp, 0o755) // the PostgreSQL server (another user) reads the shared CSV export from here
  // A scaled run compares with a scale-1 result (its scan growth, the peers' setup times).
  const scaled = !o.quick && o.scale !== 1
  const basePath = scaled ? (o.compare ?? newestScaleOneResult(o.outDir)) : undefined
  const base = basePath && existsSync(basePath) ? (JSON.parse(readFileSync(basePath, 'utf8')) as BenchResult) : undefined
  if (base) result.compared_with = basePath
  let ref: RefTree | undefined
  try {
    // The on-demand scenarios (ingest) build their own catalogue: no served index needed for them alone.
    const needsIndex = o.only.some((n) => (SCENARIOS as readonly string[]).includes(n))
    const built = needsIndex ? await ensureIndex(o, result) : undefined
    if (needsIndex) {
      const m = readManifest(o.indexDir)
      result.index = { dir: o.indexDir, version: m.version, kind: m.kind, photos: m.rows?.photos, ...(built ? { built_by_bench: true, build: built } : {}) }
    }
    if (o.against !== undefined) {
      ref = unpackRef(o.root, o.against)
      log(`bench: the engine of ${o.against} (${ref.commit.slice(0, 12)}) unpacked into ${ref.dir}`)
    }
    const against = ref && { ref: ref.ref, commit: ref.commit, root: ref.dir }
    const scenarioOptions = { quick: o.quick, indexDir: o.indexDir, scale: o.scale, seed: o.seed, root: o.root, workDir: tmp, ...(built ? { indexBuild: built } : {}), ...(against ? { against } : {}) }
    for (const name of [...SCENARIOS, ...ON_DEMAND_SCENARIOS].filter((s) => o.only.includes(s))) {
      if (scaled && !o.peersAtScale && (name === 'duckdb' || name === 'postgres')) {
        const reason = peersAtScaleReason(o, base)
        result.scenarios[name] = { status: 'skipped', reason }
        log(`\n== ${name}: skipped: ${reason}`)
        continue
      }
      (result.scenarios as Record<string, unknown>)[name] = await runScenario(name, scenarioOptions, tmp)
    }
  } catch (e) {
    for (const name of o.only) (result.scenarios as Record<string, unknown>)[name] ??= { status: 'failed', error: (e as Error).message.split('\n')[0] }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
    ref?.remove()
  }
  result.duration_s = Math.round((Date.now() - started.getTime()) / 100) / 10
  result.load_avg_1m_end = Math.round(loadavg()[0] * 100) / 100
  result.goals = checkGoals(result, base)

  const md = renderMarkdown(result)
  const stem = result.date + (scaled ? `-x${o.scale}` : '') + (o.only.length < SCENARIOS.length ? `-only-${o.only.join('-')}` : '') + (o.quick ? '-quick' : '') + (ref ? `-against-${ref.commit.slice(0, 12)}` : '')
  mkdirSync(o.outDir, { recursive: true })
  writeFileSync(join(o.outDir, `${stem}.json`), JSON.stringify(result, null, 2) + '\n')
  writeFileSync(join(o.outDir, `${stem}.md`), md)
  if (o.writeLatest) {
    writeFileSync(join(o.outDir, 'latest.md'), md)
    const readme = join(o.root, 'bench', 'README.md')
    if (existsSync(readme)) writeFileSync(readme, withLatestBlock(readFileSync(readme, 'utf8'), renderSummary(result)))
  }
  console.log(md)
  log(`bench: wrote ${join(o.outDir, stem)}.json and .md${o.writeLatest ? ' and latest.md' : ''}`)
  const failed = Object.entries(result.scenarios).filter(([, v]) => (v as { status: string }).status === 'failed')
  if (failed.length) log(`bench: failed scenarios: ${failed.map(([k]) => k).join(', ')}`)
  return failed.length ? 1 : 0
}

process.exit(await main())
