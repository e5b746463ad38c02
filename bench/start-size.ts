import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BuildFigures, StartSizeResult } from './lib/result'
import { median, round3 } from './lib/measure'
import { runProbe, runProbeMeasured } from './lib/probe'
import type { ScenarioOptions } from './lib/scenario-options'
import { QUICK_SCALE } from './lib/bench-options'
import { NOT_SERVER_ENV } from '../src/runtime-env'

interface LoadProbe { load_ms: number; rss_mb: number; baseline_rss_mb: number; photos: number; version: string; kind: string; dir: string }

function folderBytes(dir: string): number {
  let total = 0
  for (const name of readdirSync(dir)) {
    const s = statSync(join(dir, name))
    total += s.isDirectory() ? folderBytes(join(dir, name)) : s.size
  }
  return total
}

/**
 * Scenario 4: start and size. Index load time and RSS after load, each in a fresh process
 * (median over runs); the index's size on disk; and the build time of the synthetic
 * catalogue into a fresh temp folder (a full run builds the 2M catalogue once: minutes of
 * CPU that would otherwise dominate the bench).
 */
export async function benchStartSize(o: ScenarioOptions): Promise<StartSizeResult> {
  const runs = o.quick ? 1 : 5
  const probes: LoadProbe[] = []
  for (let i = 0; i < runs; i++) {
    probes.push(await runProbe<LoadProbe>(o.root, 'bench/start-size/load-probe.ts', [o.indexDir]))
    o.log(`  load ${i + 1}/${runs}: ${round3(probes.at(-1)!.load_ms)} ms, RSS ${round3(probes.at(-1)!.rss_mb)} MiB`)
  }
  const current = join(o.indexDir, 'current')
  const versionDir = existsSync(current) ? realpathSync(current) : o.indexDir
  const result: StartSizeResult = {
    index_dir: o.indexDir,
    index_bytes: folderBytes(versionDir),
    photos: probes[0].photos,
    load_ms: round3(median(probes.map((p) => p.load_ms))),
    load_runs: runs,
    rss_mb: round3(median(probes.map((p) => p.rss_mb))),
    baseline_rss_mb: round3(median(probes.map((p) => p.baseline_rss_mb))),
  }
  if (o.indexBuild) {
    result.build = o.indexBuild
    o.log(`  build: the measured index was built by this run: ${o.indexBuild.seconds} s, peak RSS ${o.indexBuild.peak_rss_mb ?? '?'} MiB`)
    return result
  }
  const scale = o.quick ? Math.min(o.scale, QUICK_SCALE) : o.scale
  const out = mkdtempSync(join(tmpdir(), 'mars-bench-build-'))
  try {
    result.build = await buildSynthetic(o.root, out, scale, o.seed)
    o.log(`  build of the synthetic catalogue at scale ${scale} (${result.build.photos} photos): ${result.build.seconds} s, peak RSS ${result.build.peak_rss_mb ?? '?'} MiB`)
  } catch (e) {
    result.build = { failed: (e as Error).message.split('\n')[0] }
  } finally {
    rmSync(out, { recursive: true, force: true })
  }
  return result
}

/** Builds the synthetic catalogue into `out` in a fresh process: wall time and the process's peak RSS. */
export async function buildSynthetic(root: string, out: string, scale: number, seed: number): Promise<BuildFigures> {
  // The builder runs as `npm run build-index` runs it: without the server's runtime settings.
  const b = await runProbeMeasured<{ build_ms: number; photos: number }>(root, 'bench/start-size/build-probe.ts', [out, String(scale), String(seed)], NOT_SERVER_ENV)
  return { scale, runs: 1, seconds: round3(b.value.build_ms / 1000), photos: b.value.photos, peak_rss_mb: b.peakRssMb }
}
