import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'
import { tableFromIPC, tableToIPC } from 'apache-arrow'
import { KeyStore } from '../src/keys/key-store'
import { freePort, stopProcess, waitReady } from './lib/processes'
import { round3 } from './lib/measure'
import type { ScenarioOptions } from './lib/scenario-options'

/**
 * Scenario "export": how fast does GET /api/v2/photos/export stream every photo (default
 * fields, default order) end to end over loopback, and how much does the server's RSS grow?
 * The server is `bun app/server.ts` in its own process (keys and limits on, limits raised so the
 * export is never refused); the client reads the whole body with fetch. Peak RSS growth is the
 * largest VmRSS sampled every 10 ms during the export minus VmRSS just before it (RssAnon the
 * same way beside it: the process's own memory, without the mapped index pages it reads).
 * Peers, same rows in the same order: DuckDB (in process, no HTTP) writing the same CSV and
 * NDJSON with COPY … TO from a table loaded from our CSV; for Arrow, apache-arrow's own
 * tableToIPC of the table our stream decodes to (decisions.md, Export peers).
 * Goals: Arrow ≥ 5M rows/s, NDJSON and CSV ≥ 1M rows/s, RSS growth ≤ 64 MB.
 */
export async function benchExport(o: ScenarioOptions) {
  const dir = mkdtempSync(join(tmpdir(), 'mars-bench-export-'))
  const keys = KeyStore.open(join(dir, 'keys.sqlite'))
  const key = keys.create('bench@example.com')
  keys.close()
  const port = await freePort()
  const proc = Bun.spawn([process.execPath, 'app/server.ts'], {
    cwd: o.root,
    env: { ...process.env, PORT: String(port), INDEX_DIR: o.indexDir, KEYS_DB: join(dir, 'keys.sqlite'), WATCH_INDEX: '0', LOG_LEVEL: 'warn', RATE_LIMIT_HOURLY: '1000000000', RATE_LIMIT_DAILY: '1000000000', REDIS_URL: '' },
    stdout: 'ignore',
    stderr: 'inherit',
  })
  const rounds = o.quick ? 1 : 2
  const formats = {} as Record<string, { rows: number; bytes: number; ms: number; rows_per_s: number; rss_growth_mb: number; anon_growth_mb: number; peer: string; peer_ms: number; ratio_vs_peer: number }>
  try {
    await waitReady(`http://127.0.0.1:${port}/health`, proc)
    const duck = await (await DuckDBInstance.create(':memory:')).connect()
    let loaded = false
    for (const format of ['arrow', 'ndjson', 'csv'] as const) {
      let best: { rows: number; bytes: number; ms: number; rss: number; anon: number; body?: Uint8Array } | undefined
      for (let r = 0; r < rounds; r++) {
        Bun.gc(true)
        const run = await exportOnce(`http://127.0.0.1:${port}/api/v2/photos/export?format=${format}`, key, proc.pid, format !== 'ndjson')
        o.log(`export ${format}: ${run.rows} rows, ${(run.bytes / 2 ** 20).toFixed(0)} MiB in ${round3(run.ms)} ms, RSS +${run.rss.toFixed(1)} MB (anonymous +${run.anon.toFixed(1)} MB)`)
        if (!best || run.ms < best.ms) best = run
      }
      let peer = ''
      let peerMs = 0
      if (format === 'arrow') {
        const table = tableFromIPC(best!.body!)
        const t0 = performance.now()
        const bytes = tableToIPC(table, 'stream')
        peerMs = performance.now() - t0
        peer = `apache-arrow tableToIPC (in process, ${(bytes.byteLength / 2 ** 20).toFixed(0)} MiB)`
      } else {
        if (!loaded) {
          const file = join(dir, 'ours.csv')
          writeFileSync(file, best?.body ?? (await exportOnce(`http://127.0.0.1:${port}/api/v2/photos/export?format=csv`, key, proc.pid, true)).body!)
          await duck.run(`CREATE TABLE photos AS SELECT * FROM read_csv_auto('${file}', header=true)`)
          loaded = true
        }
        const out = join(dir, `duck.${format}`)
        const t0 = performance.now()
        await duck.run(`COPY (SELECT * FROM photos) TO '${out}' (FORMAT ${format === 'csv' ? 'csv, HEADER true' : 'json'})`)
        peerMs = performance.now() - t0
        peer = `DuckDB COPY … TO (FORMAT ${format === 'csv' ? 'csv' : 'json'}) in process, ${(readFileSync(out).byteLength / 2 ** 20).toFixed(0)} MiB`
      }
      formats[format] = {
        rows: best!.rows, bytes: best!.bytes, ms: round3(best!.ms), rows_per_s: Math.round(best!.rows / (best!.ms / 1000)), rss_growth_mb: round3(best!.rss), anon_growth_mb: round3(best!.anon),
        peer, peer_ms: round3(peerMs), ratio_vs_peer: round3(peerMs / best!.ms),
      }
      o.log(`export ${format}: ${formats[format].rows_per_s.toLocaleString('en')} rows/s; ${peer}: ${round3(peerMs)} ms`)
    }
  } finally {
    await stopProcess(proc)
    rmSync(dir, { recursive: true, force: true })
  }
  return { rounds, formats, goals: { arrow_rows_per_s: 5e6, text_rows_per_s: 1e6, rss_growth_mb: 64 } }
}

/**
 * VmRSS (the goal's figure) and RssAnon of the server in MB. VmRSS also counts the pages of the
 * memory-mapped index the export reads (file-backed, clean: the kernel drops them at will);
 * RssAnon is the process's own memory (heap, buffers, socket sink).
 */
function rssMb(pid: number): { rss: number; anon: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024
  return { rss: kb('VmRSS'), anon: kb('RssAnon') }
}

async function exportOnce(url: string, key: string, pid: number, keep: boolean) {
  const before = rssMb(pid)
  let peak = before.rss
  let peakAnon = before.anon
  const sample = () => {
    const m = rssMb(pid)
    peak = Math.max(peak, m.rss)
    peakAnon = Math.max(peakAnon, m.anon)
  }
  const timer = setInterval(sample, 10)
  const t0 = performance.now()
  const res = await fetch(url, { headers: { 'x-api-key': key } })
  if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`)
  const rows = Number(res.headers.get('x-export-rows'))
  const parts: Uint8Array[] = []
  let bytes = 0
  const reader = res.body!.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    bytes += value.byteLength
    if (keep) parts.push(value)
  }
  const ms = performance.now() - t0
  clearInterval(timer)
  sample()
  let body: Uint8Array | undefined
  if (keep) {
    body = new Uint8Array(bytes)
    let at = 0
    for (const p of parts) { body.set(p, at); at += p.byteLength }
  }
  return { rows, bytes, ms, rss: peak - before.rss, anon: peakAnon - before.anon, body }
}
