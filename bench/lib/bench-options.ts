import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { DEFAULT_SEED } from '../../index-builder/sources/synthetic'

/** The scenarios of `bun run bench`, in the order they run (one script per question). */
export const SCENARIOS = ['start-size', 'engine', 'duckdb', 'postgres', 'http', 'gatekeeping', 'conventions', 'scale-out', 'export'] as const
/** Scenarios run only when named with --only (their own catalogue, minutes to hours): ingest. */
export const ON_DEMAND_SCENARIOS = ['ingest', 'fan-out'] as const
export type ScenarioName = (typeof SCENARIOS)[number] | (typeof ON_DEMAND_SCENARIOS)[number]

export interface BenchOptions {
  quick: boolean
  /** Scenarios to run (all unless --only). */
  only: ScenarioName[]
  /** Index folder (holds `current` -> <version>/). */
  indexDir: string
  /** True when indexDir is the synthetic catalogue the bench may build itself when missing. */
  synthetic: boolean
  scale: number
  seed: number
  /** Run the DuckDB and PostgreSQL peers even at a scale other than 1 (off by default there: loading 19M rows into PostgreSQL takes most of an hour). */
  peersAtScale: boolean
  /** A scale-1 result JSON to compare a scaled run with (default: the newest full scale-1 result in outDir). */
  compare?: string
  /** Where the dated JSON and Markdown go. */
  outDir: string
  /** Full runs also refresh bench/results/latest.md and the table in bench/README.md. */
  writeLatest: boolean
  /** Repository root (cwd of spawned processes). */
  root: string
  /** A git ref whose engine the engine scenario times beside this tree's, in the same process (`--against`). */
  against?: string
}

export const ROOT = resolve(import.meta.dir, '..', '..')
export const SYNTHETIC_INDEX = join(ROOT, 'data', 'index-synthetic')
/** The synthetic catalogue of a size factor: scale 1 is data/index-synthetic, scale 10 data/index-synthetic-x10. */
export const syntheticIndexDir = (scale: number) => (scale === 1 ? SYNTHETIC_INDEX : `${SYNTHETIC_INDEX}-x${scale}`)
/** Largest size factor accepted (x20 is ~38M photos: far beyond the machine's memory already). */
export const MAX_SCALE = 20
export const TEST_INDEX = join(ROOT, 'data', 'index-test')
/** Synthetic size factor: 1 = the full catalogue (~1.9M photos); --quick builds 1% when it has no test index. */
export const FULL_SCALE = 1
export const QUICK_SCALE = 0.01
/** The builder's default seed, so the bench measures the same index `npm run build-index -- --synthetic` makes. */
export const SEED = DEFAULT_SEED

export const USAGE = `usage: npm run bench -- [--quick] [--only NAME[,NAME]] [--index DIR] [--scale F] [--peers] [--compare FILE] [--out DIR]
scenarios: ${SCENARIOS.join(', ')}; on demand (--only): ${ON_DEMAND_SCENARIOS.join(', ')}
  --quick         short smoke run (real test index, else a small synthetic one; results to a temp folder)
  --only NAME     run one scenario (or a comma list)
  --index DIR     index folder to measure (default data/index-synthetic, built in full if missing)
  --scale F       size factor of the synthetic catalogue (default 1 = ~1.9M photos; 10 = ~19M photos in
                  data/index-synthetic-x10, built if missing); at F != 1 the goals are the scale goals and
                  the DuckDB/PostgreSQL peers are skipped unless --peers
  --peers         run the peers at a scale other than 1 too
  --compare FILE  scale-1 result JSON a scaled run's scan growth is compared with
                  (default: the newest full scale-1 result in the results folder)
  --out DIR       results folder (default bench/results; --quick: a temp folder)
  --against REF   with --only engine: also time the engine of git ref REF (a branch, tag or commit,
                  unpacked into a temporary folder) on the same shapes and index, answers checked
                  equal, rounds alternated; reports each shape's ratio (this tree / REF)`

/** Parses argv (without the runtime and script). Throws with the usage text on bad input. */
export function parseBenchArgs(argv: string[], env = process.env): BenchOptions {
  let quick = false
  let only: ScenarioName[] = [...SCENARIOS]
  let onlyGiven = false
  let indexDir: string | undefined
  let scale: number | undefined
  let outDir: string | undefined
  let peersAtScale = false
  let compare: string | undefined
  let against: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined]
    const value = () => {
      const v = inline ?? argv[++i]
      if (v === undefined) throw new Error(`${flag} needs a value\n${USAGE}`)
      return v
    }
    if (flag === '--quick') quick = true
    else if (flag === '--only') {
      const names = value().split(',').map((s) => s.trim()).filter(Boolean)
      for (const n of names) if (![...SCENARIOS, ...ON_DEMAND_SCENARIOS].includes(n as ScenarioName)) throw new Error(`unknown scenario "${n}"\n${USAGE}`)
      only = names as ScenarioName[]
      onlyGiven = true
    } else if (flag === '--index') indexDir = resolve(value())
    else if (flag === '--scale') {
      scale = Number(value())
      if (!(scale > 0 && scale <= MAX_SCALE)) throw new Error(`--scale must be a number in (0, ${MAX_SCALE}]\n${USAGE}`)
    } else if (flag === '--peers') peersAtScale = true
    else if (flag === '--compare') compare = resolve(value())
    else if (flag === '--out') outDir = resolve(value())
    else if (flag === '--against') against = value()
    else if (flag === '--help' || flag === '-h') throw new Error(USAGE)
    else throw new Error(`unknown argument "${a}"\n${USAGE}`)
  }
  if (against !== undefined && (only.length !== 1 || only[0] !== 'engine')) throw new Error(`--against compares engines: use it with --only engine\n${USAGE}`)
  let synthetic = false
  if (!indexDir) {
    if (quick && env.INDEX_DIR && existsSync(env.INDEX_DIR)) indexDir = resolve(env.INDEX_DIR)
    else if (quick && existsSync(TEST_INDEX)) indexDir = TEST_INDEX
    else if (quick) {
      indexDir = join(tmpdir(), `mars-bench-quick-index-${scale ?? QUICK_SCALE}`)
      synthetic = true
    } else {
      indexDir = syntheticIndexDir(scale ?? FULL_SCALE)
      synthetic = true
    }
  }
  return {
    quick,
    only,
    indexDir,
    synthetic,
    scale: scale ?? (quick ? QUICK_SCALE : FULL_SCALE),
    seed: SEED,
    peersAtScale,
    compare,
    outDir: outDir ?? (quick ? join(tmpdir(), 'mars-bench-results') : join(ROOT, 'bench', 'results')),
    // Only a full run at scale 1 replaces the committed table (a scaled run has its own table: bench/scale-table.ts).
    writeLatest: !quick && !onlyGiven && !outDir && (scale ?? FULL_SCALE) === FULL_SCALE,
    root: ROOT,
    ...(against !== undefined ? { against } : {}),
  }
}
