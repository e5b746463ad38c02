import type { MeasureOptions } from './measure'
import type { BuildFigures } from './result'

/** What every scenario script receives from bench/run.ts (or from its own command line). */
export interface ScenarioOptions {
  quick: boolean
  /** Index folder (holds `current` -> <version>/). */
  indexDir: string
  /** Synthetic catalogue parameters (start-size builds one to time it). */
  scale: number
  seed: number
  root: string
  /** Scratch folder of the whole run (world-readable), shared by the scenarios: the peers' CSV export lives here. */
  workDir?: string
  /** Figures of the measured index's own build when this run made it (start-size reports them instead of building again). */
  indexBuild?: BuildFigures
  log: (line: string) => void
  /** `--against REF`: another commit's tree, unpacked (bench/lib/ref-tree.ts), whose engine the engine scenario times beside this one. */
  against?: { ref: string; commit: string; root: string }
}

/** Sampling of in-process engine calls: 5 rounds in a full run (interleaved across the shapes: bench/engine.ts), 1 short round with --quick. */
export const engineSampling = (quick: boolean): MeasureOptions =>
  quick
    ? { rounds: 1, budgetMs: 40, minSamples: 3, maxSamples: 200, warmup: 2 }
    : { rounds: 5, budgetMs: 400, minSamples: 30, maxSamples: 3000, warmup: 20 }

/** Alternating rounds of each engine in a `--against` comparison (each round one timing round of engineSampling). */
export const againstRounds = (quick: boolean) => (quick ? 4 : 9)

/** Sampling of peer queries (slower, so fewer samples; still a median over rounds). */
export const peerSampling = (quick: boolean): MeasureOptions =>
  quick
    ? { rounds: 1, budgetMs: 30, minSamples: 1, maxSamples: 5, warmup: 0 }
    : { rounds: 3, budgetMs: 700, minSamples: 1, maxSamples: 200, warmup: 1 }

/** Our side as timed inside a peer scenario (the ratio's baseline in the same process). */
export const oursInPeerSampling = (quick: boolean): MeasureOptions =>
  quick
    ? { rounds: 1, budgetMs: 20, minSamples: 2, maxSamples: 100, warmup: 1 }
    : { rounds: 3, budgetMs: 200, minSamples: 10, maxSamples: 2000, warmup: 10 }
