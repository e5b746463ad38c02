/**
 * The real ingest path at real size (`npm run bench -- --only ingest`; `--quick`: 60 sols of
 * 1,000 records plus the bundled sources). A stand-in origin on loopback
 * (test/support/stand-in-origin.ts: real recorded feed records moved to other sols) serves a
 * full-mission feed of 2,000 Perseverance sols × 750 records (1.5 million) and the real
 * Curiosity records we hold; then, each in its own process with its peak RSS sampled:
 *   mirror     `npm run fetch -- --all --rate 1000` of both rovers into a fresh page store;
 *   build      `npm run build-index` from the page store, with the settings `npm run update` gives
 *              a full build (fullBuildEnv: purging off);
 *   synthetic  the synthetic generator's build of the same row count, in the same run: the baseline,
 *              with the allocator's defaults as `npm run build-index -- --synthetic` runs (and once
 *              more with purging off, as the build from pages, for the record);
 *   update     one new sol appears upstream, then `npm run update -- --since-sols 1` against a
 *              running server (WATCH_INDEX): wall time from the update's start until the server
 *              answers the new sol's photos; with --quick also `npm run update -- --rebuild`;
 *   disk       the page store against the feed bytes received, and the index.
 * Every build reports its wall time and its CPU seconds (user + system, from the process's own
 * resource usage): on a shared machine the wall clock moves with the other work, CPU time much less.
 * Goals (issue figures): build ≤ 3× synthetic (wall and CPU) and ≤ 6 GB peak RSS; the new sol served ≤ 15 s after
 * update starts and ≤ 20% of a full build (quick: ≤ 25% of update --rebuild); page store ≤ feed bytes.
 *
 * INGEST_FEEDS=<dir> keeps the mirror's page store in <dir> (and its figures in <dir>.mirror.json);
 * a later run given the same <dir> of the same size measures on a copy of it instead of mirroring
 * again (a 1.5M mirror is ~10 minutes), and says so (`mirror.reused`). INGEST_UPDATE=0 leaves the
 * update step out (its goals are then not measured).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readManifest } from '../index-builder/encode/manifest'
import { fullBuildEnv, NOT_SERVER_ENV } from '../src/runtime-env'
import { KeyStore } from '../src/keys/key-store'
import { startLoggedServer } from './lib/bench-server'
import { childEnv } from './lib/probe'
import type { ScenarioOptions } from './lib/scenario-options'
import { sampleTreeRss } from './lib/tree-rss'

/** Rows of the synthetic catalogue at scale 1 (its manifest; the scale factor is fitted to this). */
const SYNTHETIC_FULL_ROWS = 1_900_824

interface Measured {
  seconds: number
  /** User + system CPU seconds of the process (its threads included, its children not). */
  cpu_seconds: number
  peak_rss_mb: number
  code: number
  out: string
}

/** Runs `cmd` with this process's environment plus `env` (a variable given as undefined is removed). */
async function measured(root: string, cmd: string[], env: Record<string, string | undefined> = {}): Promise<Measured> {
  const t0 = performance.now()
  const p = Bun.spawn([process.execPath, ...cmd], { cwd: root, env: childEnv(env), stdout: 'pipe', stderr: 'inherit' })
  const rss = sampleTreeRss(p.pid, 200)
  const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited])
  rss.stop()
  const cpu = p.resourceUsage()?.cpuTime
  return { seconds: round((performance.now() - t0) / 1000), cpu_seconds: cpu ? round(Number(cpu.user + cpu.system) / 1e6) : NaN, peak_rss_mb: Math.round(rss.peak() / 2 ** 20), code, out }
}

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d

/** Bytes of every file under `dir`, dot folders (the fetcher's state and staging) left out. */
function diskBytes(dir: string): number {
  let n = 0
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.')) continue
    const p = join(dir, name)
    const st = statSync(p)
    n += st.isDirectory() ? diskBytes(p) : st.size
  }
  return n
}


export async function benchIngest(o: ScenarioOptions): Promise<Record<string, unknown>> {
  // INGEST_SOLS / INGEST_PER_SOL size the stand-in feed otherwise (a machine without the memory
  // a 1.5-million build needs measures a smaller one; the result says which size ran).
  const sols = Number(process.env.INGEST_SOLS) || (o.quick ? 60 : 2000)
  const perSol = Number(process.env.INGEST_PER_SOL) || (o.quick ? 1000 : 750)
  const work = mkdtempSync(join(o.workDir ?? tmpdir(), 'ingest-'))
  const feeds = join(work, 'feeds')
  const index = join(work, 'index')
  const empty = join(work, 'no-sources')
  mkdirSync(empty)
  // At full size the catalogue is the feed alone; quick adds the bundled sources, as the issue asks.
  const buildEnv: Record<string, string> = o.quick ? {} : { BUILD_SOURCE_DIRS: empty }
  const origin = Bun.spawn([process.execPath, 'test/support/stand-in-origin.ts', String(sols), String(perSol)], { cwd: o.root, stdout: 'pipe', stderr: 'inherit' })
  const lines = (async function* () {
    let buf = ''
    for await (const chunk of origin.stdout as ReadableStream<Uint8Array>) {
      buf += new TextDecoder().decode(chunk)
      let nl: number
      while ((nl = buf.indexOf('\n')) >= 0) {
        yield buf.slice(0, nl)
        buf = buf.slice(nl + 1)
      }
    }
  })()
  const url = (await lines.next()).value as string
  let server: { url: string; proc: ReturnType<typeof Bun.spawn> } | undefined
  try {
    o.log(`ingest: stand-in origin ${url}: ${sols} Perseverance sols × ${perSol} records`)
    const kept = process.env.INGEST_FEEDS
    const keptFigures = kept ? `${kept}.mirror.json` : undefined
    let mirrorFigures: { seconds: number; peak_rss_mb: number; requests: number; images: number; feed_bytes: number; page_store_bytes: number; stand_in?: string; reused?: string }
    const standIn = `${sols}x${perSol}`
    if (kept && existsSync(keptFigures!) && JSON.parse(readFileSync(keptFigures!, 'utf8')).stand_in === standIn) {
      mirrorFigures = { ...JSON.parse(readFileSync(keptFigures!, 'utf8')), reused: keptFigures }
      cpSync(kept, feeds, { recursive: true })
      o.log(`ingest: the mirror of ${kept} (${keptFigures}), copied`)
    } else {
      const mirror = await measured(o.root, ['index-builder/fetch/cli.ts', '--all', '--feed-dir', kept ?? feeds, '--base-url', url, '--rate', '1000', '--json'])
      if (mirror.code !== 0) throw new Error(`the mirror failed (exit ${mirror.code})`)
      const summaries = mirror.out.trim().split('\n').map((l) => JSON.parse(l) as { rover: string; bytes: number; requests: number; images: { new: number } })
      // The page store as the mirror left it, before the update adds a sol to it.
      mirrorFigures = { seconds: mirror.seconds, peak_rss_mb: mirror.peak_rss_mb, requests: summaries.reduce((n, s) => n + s.requests, 0), images: summaries.reduce((n, s) => n + s.images.new, 0), feed_bytes: summaries.reduce((n, s) => n + s.bytes, 0), page_store_bytes: diskBytes(kept ?? feeds), stand_in: standIn }
      if (kept) {
        writeFileSync(keptFigures!, JSON.stringify({ ...mirrorFigures, measured_at: new Date().toISOString() }))
        cpSync(kept, feeds, { recursive: true })
      }
    }
    const feedBytes = mirrorFigures.feed_bytes
    const pageStoreBytes = mirrorFigures.page_store_bytes
    o.log(`ingest: mirror ${mirrorFigures.seconds} s, ${mirrorFigures.images} images; page store ${pageStoreBytes} bytes of ${feedBytes} received`)

    // INGEST_MIRROR_ONLY=1: the mirror and its disk alone (a machine without the memory of the build at this size).
    if (process.env.INGEST_MIRROR_ONLY === '1') return { load_avg_1m: (await import('node:os')).loadavg()[0], stand_in: { perseverance_sols: sols, per_sol: perSol, records: sols * perSol }, mirror: mirrorFigures }
    const build = await measured(o.root, ['index-builder/cli.ts', '--out', index, '--page-store', feeds], fullBuildEnv({ ...process.env, ...buildEnv }))
    if (build.code !== 0) throw new Error(`the build from pages failed (exit ${build.code})`)
    const m = readManifest(join(index, 'current'))!
    const rows = m.rows.photos
    o.log(`ingest: build from pages ${build.seconds} s (${build.cpu_seconds} CPU s), ${rows} photos, peak ${build.peak_rss_mb} MiB`)

    const scale = rows / SYNTHETIC_FULL_ROWS
    const synthetic = async (env: Record<string, string | undefined>, how: string) => {
      const m = await measured(o.root, ['index-builder/cli.ts', '--synthetic', '--scale', String(scale), '--out', join(work, 'synthetic')], env)
      if (m.code !== 0) throw new Error(`the synthetic build (${how}) failed (exit ${m.code})`)
      const photos = readManifest(join(work, 'synthetic', 'current'))!.rows.photos
      rmSync(join(work, 'synthetic'), { recursive: true, force: true })
      o.log(`ingest: synthetic build (${how}) ${m.seconds} s (${m.cpu_seconds} CPU s), ${photos} photos, peak ${m.peak_rss_mb} MiB`)
      return { ...m, photos }
    }
    // The baseline as the generator runs for a user (the allocator's defaults), and once with the
    // build from pages' own settings, so the ratio can be read both ways.
    const synth = await synthetic(NOT_SERVER_ENV, 'defaults')
    const synthSameEnv = await synthetic(fullBuildEnv({}), 'purging off')
    const synthRows = synth.photos

    const measureUpdate = async () => {
      const keysDb = join(work, 'keys.sqlite')
      const keys = KeyStore.open(keysDb)
      const key = keys.create('ingest@example.com', { hourly: 10_000_000, daily: 10_000_000, concurrent: 1000 })
      keys.close()
      // The server's reload of the new index (its load and warm-up), from its log.
      let swappedMs: number | undefined
      server = await startLoggedServer(o.root, { KEYS_DB: keysDb, INDEX_DIR: index, WATCH_INDEX: '1' }, undefined, (line) => {
        if (line.includes('"index.swapped"')) swappedMs = (JSON.parse(line) as { load_ms?: number }).load_ms
      })
      origin.kill('SIGUSR1')
      const added = Number(/added sol (\d+)/.exec((await lines.next()).value as string)?.[1])
      const answered = async () => {
        const r = await fetch(`${server!.url}/api/v2/photos?rovers=perseverance&sol=${added}&per_page=1`, { headers: { 'x-api-key': key } })
        return r.status === 200 && ((await r.json()) as { data: unknown[] }).data.length > 0
      }
      if (await answered()) throw new Error(`sol ${added} is served before it was fetched`)
      const t0 = performance.now()
      const upd = Bun.spawn([process.execPath, 'index-builder/fetch/update-cli.ts', '--since-sols', '1', '--rover', 'perseverance', '--feed-dir', feeds, '--index-dir', index, '--base-url', url, '--rate', '1000', '--json'], { cwd: o.root, env: { ...process.env, ...buildEnv }, stdout: 'pipe', stderr: 'inherit' })
      const updRss = sampleTreeRss(upd.pid, 200)
      let servedS: number | undefined
      while (servedS === undefined && performance.now() - t0 < 30 * 60_000) {
        if (await answered()) servedS = round((performance.now() - t0) / 1000)
        else await Bun.sleep(100)
      }
      const updOut = await new Response(upd.stdout).text()
      const updCode = await upd.exited
      updRss.stop()
      const updateSeconds = round((performance.now() - t0) / 1000)
      const updReport = JSON.parse(updOut) as { fetch: Array<{ ms: number }>; build: { ms?: number; merged?: boolean; fallback?: string; output?: string } }
      const how = updReport.build.merged ? `merged: ${updReport.build.output}` : `a full build${updReport.build.fallback ? ` (merge not possible: ${updReport.build.fallback})` : ''}`
      const fetchMs = updReport.fetch.reduce((t, f) => t + f.ms, 0)
      o.log(`ingest: update after one new sol: served after ${servedS} s (update exit ${updCode}, its fetch ${fetchMs} ms, its build ${updReport.build.ms} ms, the server's reload ${swappedMs ?? '?'} ms, ${how})`)

      let rebuild: Measured | undefined
      if (o.quick) rebuild = await measured(o.root, ['index-builder/fetch/update-cli.ts', '--since-sols', '1', '--rover', 'perseverance', '--feed-dir', feeds, '--index-dir', index, '--base-url', url, '--rate', '1000', '--rebuild', '--json'], buildEnv)
      return { added, servedS, updateSeconds, updCode, updReport, fetchMs, swappedMs, updPeak: Math.round(updRss.peak() / 2 ** 20), rebuild }
    }
    const u = process.env.INGEST_UPDATE === '0' ? undefined : await measureUpdate()
    const servedS = u?.servedS
    const rebuild = u?.rebuild

    const indexBytes = diskBytes(join(index, 'current'))
    const goals = [
      { goal: 'build from pages ≤ 3× synthetic build (wall)', value: round(build.seconds / synth.seconds), limit: 3, met: build.seconds <= 3 * synth.seconds },
      { goal: 'build from pages ≤ 3× synthetic build (CPU seconds)', value: round(build.cpu_seconds / synth.cpu_seconds), limit: 3, met: build.cpu_seconds <= 3 * synth.cpu_seconds },
      { goal: 'build from pages ≤ 6 GB peak RSS', value: build.peak_rss_mb, limit: 6000, met: build.peak_rss_mb <= 6000 },
      { goal: 'new sol served ≤ 15 s after update starts', value: servedS ?? null, limit: 15, met: servedS !== undefined && servedS <= 15, ...(u ? {} : { measured: false }) },
      o.quick
        ? { goal: 'new sol served ≤ 25% of update --rebuild', value: rebuild && servedS !== undefined ? round(servedS / rebuild.seconds) : null, limit: 0.25, met: !!rebuild && servedS !== undefined && servedS <= 0.25 * rebuild.seconds }
        : { goal: 'new sol served ≤ 20% of a full build', value: servedS !== undefined ? round(servedS / build.seconds) : null, limit: 0.2, met: servedS !== undefined && servedS <= 0.2 * build.seconds, ...(u ? {} : { measured: false }) },
      { goal: 'page store ≤ feed bytes', value: round(pageStoreBytes / feedBytes, 3), limit: 1, met: pageStoreBytes <= feedBytes },
    ]
    return {
      load_avg_1m: (await import('node:os')).loadavg()[0],
      stand_in: { perseverance_sols: sols, per_sol: perSol, records: sols * perSol, curiosity_records: mirrorFigures.images - sols * perSol },
      mirror: mirrorFigures,
      build: { seconds: build.seconds, cpu_seconds: build.cpu_seconds, peak_rss_mb: build.peak_rss_mb, photos: rows },
      synthetic: { seconds: synth.seconds, cpu_seconds: synth.cpu_seconds, peak_rss_mb: synth.peak_rss_mb, photos: synthRows, scale: round(scale, 4) },
      synthetic_purging_off: { seconds: synthSameEnv.seconds, cpu_seconds: synthSameEnv.cpu_seconds, peak_rss_mb: synthSameEnv.peak_rss_mb, ratio_wall: round(build.seconds / synthSameEnv.seconds), ratio_cpu: round(build.cpu_seconds / synthSameEnv.cpu_seconds) },
      ...(u ? { update: { new_sol: u.added, served_after_s: servedS ?? null, update_seconds: u.updateSeconds, update_exit: u.updCode, fetch_ms: u.fetchMs, build_ms: u.updReport.build.ms ?? null, reload_ms: u.swappedMs ?? null, merged: u.updReport.build.merged === true, peak_rss_mb: u.updPeak, ...(rebuild ? { rebuild_seconds: rebuild.seconds } : {}) } } : {}),
      disk: { page_store_bytes: pageStoreBytes, feed_bytes: feedBytes, index_bytes: indexBytes },
      goals,
    }
  } finally {
    server?.proc.kill('SIGKILL')
    await server?.proc.exited
    origin.kill('SIGKILL')
    await origin.exited
    if (existsSync(work)) rmSync(work, { recursive: true, force: true })
  }
}

/** `bun bench/ingest.ts [--quick]`: the scenario alone, its result as JSON on stdout. */
if (import.meta.main) {
  const { join: j } = await import('node:path')
  const quick = process.argv.includes('--quick')
  const r = await benchIngest({ quick, indexDir: '', scale: 1, seed: 0, root: j(import.meta.dir, '..'), log: (l) => process.stderr.write(l + '\n') })
  console.log(JSON.stringify(r, null, 2))
}
