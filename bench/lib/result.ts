import type { Machine } from './machine'

/** The shapes of bench/results/<date>.json. Times in ms unless the name says otherwise. */

export type Outcome<T> = ({ status: 'ok' } & T) | { status: 'skipped'; reason: string } | { status: 'failed'; error: string }

export interface ShapeTiming {
  name: string
  /** What the shape stands for (narrow: rover/sol/camera/date; scan: full scans; other). */
  group: 'narrow' | 'scan' | 'other'
  endpoint: string
  /** The request as a client sends it (path and query). */
  request: string
  status: 'ok' | 'skipped' | 'failed'
  reason?: string
  returned?: number
  total?: number
  p50_ms?: number
  p99_ms?: number
  samples?: number
  /** The p99 goal for the shape's group. */
  goal_p99_ms?: number
  met?: boolean
}

export interface EngineResult {
  shapes: ShapeTiming[]
}

export interface PeerShape {
  name: string
  /** equal: same ids in the same order and the same counts; mismatch: fails the shape. */
  check: 'equal' | 'mismatch' | 'skipped' | 'failed'
  detail?: string
  ours_p50_ms?: number
  peer_p50_ms?: number
  peer_p99_ms?: number
  /** peer p50 / our p50: how many times faster we are. */
  speedup?: number
  goal_speedup: number
  met?: boolean
}

export interface PeerResult {
  peer: string
  version: string
  setup: Record<string, number | string>
  shapes: PeerShape[]
}

export interface HttpTarget {
  name: string
  path: string
  status: 'ok' | 'failed'
  error?: string
  rps?: number
  p50_ms?: number
  p99_ms?: number
  ceiling_rps?: number
  ceiling_p50_ms?: number
  ceiling_p99_ms?: number
  /** rps / ceiling_rps. */
  ratio?: number
  goal_ratio?: number
  met?: boolean
  body_bytes?: number
  runs?: number
}

export interface HttpResult {
  generator: string
  connections: number
  threads: number
  duration_s: number
  runs: number
  targets: HttpTarget[]
}

export interface StartSizeResult {
  index_dir: string
  index_bytes: number
  photos: number
  load_ms: number
  load_runs: number
  rss_mb: number
  /** RSS of the same probe process before loading anything: the runtime's own share. */
  baseline_rss_mb: number
  /** scale: the synthetic size factor (1 = the full ~1.9M-photo catalogue). */
  build?: { scale: number; runs: number; seconds: number; photos?: number } | { skipped: string }
}

export interface GoalCheck {
  goal: string
  measured: string
  met: boolean | null
}

export interface BenchResult {
  schema: 1
  date: string
  started_at: string
  duration_s: number
  /** 1-minute load average when the run ended. */
  load_avg_1m_end?: number
  command: string
  quick: boolean
  machine: Machine
  index: { dir: string; version?: string; kind?: string; photos?: number; built_by_bench?: boolean }
  scenarios: {
    'start-size'?: Outcome<StartSizeResult>
    engine?: Outcome<EngineResult>
    duckdb?: Outcome<PeerResult>
    postgres?: Outcome<PeerResult>
    http?: Outcome<HttpResult>
    gatekeeping?: Outcome<{ result: unknown }>
    'scale-out'?: Outcome<{ result: unknown }>
    conventions?: Outcome<import('../conventions').ConventionsResult>
    export?: Outcome<ExportResult>
  }
  goals: GoalCheck[]
}

/** bench/export.ts: one full export per format over loopback, best of the rounds, with its peer. */
export interface ExportResult {
  rounds: number
  formats: Record<string, { rows: number; bytes: number; ms: number; rows_per_s: number; rss_growth_mb: number; peer: string; peer_ms: number; ratio_vs_peer: number }>
}
