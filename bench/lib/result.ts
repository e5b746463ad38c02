import type { Machine } from './machine'

/** The shapes of bench/results/<date>.json. Times in ms unless the name says otherwise. */

export type Outcome<T> = ({ status: 'ok' } & T) | { status: 'skipped'; reason: string } | { status: 'failed'; error: string }

/**
 * What a shape's work is (bench/shapes.ts): a narrowing filter, an order over all photos, a
 * filter that scans every row, counts by group, or a lookup of ids or of the small derived lists.
 * Sort, scan and stats shapes carry the 50x PostgreSQL bar.
 */
export type ShapeWork = 'filter' | 'sort' | 'scan' | 'stats' | 'lookup'

export interface ShapeTiming {
  name: string
  /** What the shape stands for (narrow: rover/sol/camera/date; scan: full scans; other). */
  group: 'narrow' | 'scan' | 'other'
  work?: ShapeWork
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

/** What the per-request conventions cost (bench/conventions.ts), µs per request in process. */
export interface ConventionsResult {
  requests_per_round: number
  rounds: number
  us_per_request: Record<'bare' | 'log' | 'metrics' | 'both', number>
  cost_us: { log: number; metrics: number; both: number; ratelimit_fields: number }
  ratio_to_bare: { log: number; metrics: number; both: number; ratelimit_fields: number }
  isolated: { log_line_us: number; metrics_observe_us: number }
}

export interface EngineResult {
  shapes: ShapeTiming[]
  /** With `--against REF`: the same shapes timed on REF's engine in the same process (shapes above are this tree's side). */
  against?: EngineAgainst
}

/** One shape on this tree's engine and on another tree's, timed in alternating rounds. */
export interface AgainstShape {
  name: string
  group: 'narrow' | 'scan' | 'other'
  goal_p99_ms?: number
  status: 'ok' | 'skipped' | 'failed'
  reason?: string
  ours_p50_ms?: number
  ours_p99_ms?: number
  ref_p50_ms?: number
  ref_p99_ms?: number
  /** ours / ref: above 1 means this tree is slower. */
  ratio_p50?: number
  ratio_p99?: number
  ours_met?: boolean
  ref_met?: boolean
}

export interface EngineAgainst {
  /** As given on the command line, and the commit it named. */
  ref: string
  commit: string
  rounds: number
  shapes: AgainstShape[]
  /** Geometric means of the per-shape ratios (ours / ref) over the shapes both answered equally. */
  geomean_ratio_p50?: number
  geomean_ratio_p99?: number
  /** Shapes with a p99 goal that met it, on each side. */
  goals_met: { ours: number; ref: number; of: number }
}

export interface PeerShape {
  name: string
  work?: ShapeWork
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
  /** rps / ceiling_rps: the share of a bare Bun.serve answering the same status, fields and body. */
  ratio?: number
  /** The same bare server answering with the media type and ETag only (the ceiling of earlier runs); absent in older results. */
  headerless_ceiling_rps?: number
  /** rps / headerless_ceiling_rps. */
  headerless_ratio?: number
  goal_ratio?: number
  met?: boolean
  body_bytes?: number
  runs?: number
}

export interface HttpResult {
  generator: string
  /** Where the generators and servers ran (bench/lib/cpu-pin.ts); absent in older results. */
  placement?: string
  connections: number
  threads: number
  duration_s: number
  runs: number
  targets: HttpTarget[]
  /** The list driven open-loop at half its measured saturation rate (bench/http/open-loop.ts). */
  half_saturation?: HalfSaturation
}

/** Latency figures of one target at a constant rate, medians over the runs; corrected for coordinated omission. */
export interface OpenLoopFigures {
  achieved_rps: number
  p50_ms: number
  p90_ms: number
  p99_ms: number
  p999_ms: number
  max_ms: number
  /** The generator's own lateness (p99 of actual - intended send time), included in the latencies. */
  send_lag_p99_ms: number
  bad_status: number
  unanswered: number
}

/** One open-loop run (bench/http/open-loop.ts or its C twin): the figures the report keeps plus what the run was asked for. */
export interface OpenLoopRun extends OpenLoopFigures {
  target_rps: number
  requests: number
  connections: number
  duration_s: number
  /** Which generator measured: the C one (bench/http/native-open-loop.ts) or the JavaScript one. */
  generator?: string
}

export interface HalfSaturation {
  target: string
  path: string
  /** The list's saturation req/s (wrk, closed loop, median of the runs above). */
  saturation_rps: number
  rate_rps: number
  connections: number
  duration_s: number
  runs: number
  /** The generator that measured (open-loop.ts or its C twin); absent in older results. */
  generator?: string
  ours: OpenLoopFigures
  /** The bare Bun.serve ceiling at the same rate: the floor the machine and the generator set. */
  ceiling: OpenLoopFigures
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
  /** failed: the build process died (out of memory, a crash): the build goals are missed, not unmeasured. */
  build?: BuildFigures | { skipped: string } | { failed: string }
}

export interface BuildFigures {
  scale: number
  runs: number
  seconds: number
  photos?: number
  /** Peak RSS of the build process tree, MiB: the larger of its maxrss (wait4) and the largest sum sampled over the tree from /proc. */
  peak_rss_mb?: number
  /** True when the figures are those of the build of the measured index itself, made by this run. */
  index_build?: boolean
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
  /** Synthetic size factor of a full run (1 = ~1.9M photos); scaled runs (not 1) are checked against the scale goals. Absent in --quick runs. */
  scale?: number
  /** The scale-1 result a scaled run was compared with (its path). */
  compared_with?: string
  machine: Machine
  /** build: the figures of the measured index's own build when this run made it (or why it failed). */
  index: { dir: string; version?: string; kind?: string; photos?: number; built_by_bench?: boolean; build?: BuildFigures | { failed: string } }
  scenarios: {
    'start-size'?: Outcome<StartSizeResult>
    engine?: Outcome<EngineResult>
    duckdb?: Outcome<PeerResult>
    postgres?: Outcome<PeerResult>
    http?: Outcome<HttpResult>
    gatekeeping?: Outcome<{ result: unknown }>
    'scale-out'?: Outcome<{ result: unknown }>
    conventions?: Outcome<ConventionsResult>
    export?: Outcome<ExportResult>
  }
  goals: GoalCheck[]
}

/**
 * bench/export.ts: one full export per format over loopback, best of the rounds, beside the same
 * client's ceiling (a bare Bun.serve streaming as many bytes) and its peer.
 */
export interface ExportResult {
  rounds: number
  /** The client that read the bodies (and the ceiling's). */
  client?: string
  formats: Record<string, {
    rows: number; bytes: number; ms: number; rows_per_s: number; rss_growth_mb: number; anon_growth_mb?: number
    /** The server's CPU time for one export (least of the rounds), and rows per CPU second. */
    server_cpu_ms?: number; rows_per_cpu_s?: number
    ceiling_ms?: number; ceiling_rows_per_s?: number; share_of_ceiling?: number
    peer: string; peer_ms: number; ratio_vs_peer: number
  }>
}
