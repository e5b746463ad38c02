import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { DuckDBInstance } from '@duckdb/node-api'
import { tableFromIPC, tableToIPC } from 'apache-arrow'
import { startBenchServer, type BenchServer } from './lib/bench-server'
import { freePort, stopProcess, waitReady } from './lib/processes'
import { whileSampled } from './lib/process-usage'
import { round3 } from './lib/measure'
import type { ExportResult } from './lib/result'
import type { ScenarioOptions } from './lib/scenario-options'

/**
 * Scenario "export": how fast does GET /api/v2/photos/export stream every photo (default
 * fields, default order) end to end over loopback, and how much does the server's RSS grow?
 * The server is `bun app/server.ts` in its own process (keys and limits on, limits raised so the
 * export is never refused). The client is one that reads as fast as the loopback allows and
 * keeps nothing: curl writing to /dev/null, timed by curl itself (else a Bun fetch reader that
 * only counts bytes). The same client's ceiling is measured in the same run against a bare
 * Bun.serve (bench/export-ceiling.ts) streaming the same number of bytes as a chunked direct
 * stream, and each format reports its share of it: what the service costs beyond moving bytes.
 * Rounds of ours and the ceiling alternate, best of each kept. Beside the wall clock, the server's
 * CPU time per export (least of the rounds): on a machine shared with other work the wall clock
 * also measures the other work; the CPU time mostly does not.
 * Peak RSS growth is the largest VmRSS sampled every 10 ms during an export minus VmRSS just
 * before it, the largest of every round (the first export of a snapshot included); RssAnon the
 * same way beside it (the process's own memory, without the mapped index pages it reads).
 * Peers, same rows in the same order: DuckDB (in process, no HTTP) writing the same CSV and
 * NDJSON with COPY … TO from a table loaded from our CSV; for Arrow, apache-arrow's own
 * tableToIPC of the table our stream decodes to (decisions.md, Export peers). The bodies the
 * peers start from are read in separate, untimed requests.
 * Goals: Arrow ≥ 5M rows/s, NDJSON and CSV ≥ 1M rows/s, RSS growth ≤ 64 MB.
 */
export async function benchExport(o: ScenarioOptions): Promise<ExportResult> {
  const dir = mkdtempSync(join(tmpdir(), 'mars-bench-export-'))
  const cport = await freePort()
  let server: BenchServer | undefined
  let ceiling: Subprocess | undefined
  const rounds = o.quick ? 1 : 3
  const client = (await curlPath()) ? curlClient : fetchClient
  const formats: ExportResult['formats'] = {}
  try {
    server = await startBenchServer(o.root, o.indexDir)
    const { key, proc } = server
    ceiling = Bun.spawn([process.execPath, join(import.meta.dir, 'export-ceiling.ts'), String(cport)], { stdout: 'ignore', stderr: 'inherit' })
    await waitReady(`http://127.0.0.1:${cport}/health`, ceiling)
    o.log(`export: client ${client.name}`)
    const duck = await (await DuckDBInstance.create(':memory:')).connect()
    let loaded = false
    const auth = { 'x-api-key': key }
    for (const format of ['arrow', 'ndjson', 'csv'] as const) {
      const url = `${server.origin}/api/v2/photos/export?format=${format}`
      let best: (Read & { cpuMs: number }) | undefined
      let leastCpu = Infinity
      let bare: Read | undefined
      let rss = -Infinity
      let anon = -Infinity
      for (let r = 0; r < rounds; r++) {
        // The server's RSS sampled every 10 ms during the read; its CPU time meanwhile (all threads).
        const { value: read, usage } = await whileSampled(proc.pid, 10, () => client.read(url, auth))
        const run = { ...read, ...usage }
        o.log(`export ${format}: ${run.rows} rows, ${(run.bytes / 2 ** 20).toFixed(0)} MiB in ${round3(run.ms)} ms (server CPU ${run.cpuMs} ms), RSS +${run.rss.toFixed(1)} MB (anonymous +${run.anon.toFixed(1)} MB)`)
        if (!best || run.ms < best.ms) best = run
        leastCpu = Math.min(leastCpu, run.cpuMs)
        rss = Math.max(rss, run.rss)
        anon = Math.max(anon, run.anon)
        const c = await client.read(`http://127.0.0.1:${cport}/bytes?bytes=${run.bytes}`, {})
        if (c.bytes !== run.bytes) throw new Error(`the ceiling sent ${c.bytes} bytes, not ${run.bytes}`)
        o.log(`  ceiling (bare Bun.serve, same ${(c.bytes / 2 ** 20).toFixed(0)} MiB, same client): ${round3(c.ms)} ms`)
        if (!bare || c.ms < bare.ms) bare = c
      }
      const b = best!
      const body = format === 'ndjson' && loaded ? undefined : await bodyOf(format === 'arrow' ? url : url.replace(/ndjson$/, 'csv'), auth)
      let peer = ''
      let peerMs = 0
      if (format === 'arrow') {
        const table = tableFromIPC(body!)
        if (table.numRows !== b.rows) throw new Error(`the Arrow stream decodes to ${table.numRows} rows, not ${b.rows}`)
        const t0 = performance.now()
        const bytes = tableToIPC(table, 'stream')
        peerMs = performance.now() - t0
        peer = `apache-arrow tableToIPC (in process, ${(bytes.byteLength / 2 ** 20).toFixed(0)} MiB)`
      } else {
        if (!loaded) {
          const file = join(dir, 'ours.csv')
          writeFileSync(file, body!)
          await duck.run(`CREATE TABLE photos AS SELECT * FROM read_csv_auto('${file}', header=true)`)
          loaded = true
        }
        const out = join(dir, `duck.${format}`)
        const t0 = performance.now()
        await duck.run(`COPY (SELECT * FROM photos) TO '${out}' (FORMAT ${format === 'csv' ? 'csv, HEADER true' : 'json'})`)
        peerMs = performance.now() - t0
        peer = `DuckDB COPY … TO (FORMAT ${format === 'csv' ? 'csv' : 'json'}) in process, ${(readFileSync(out).byteLength / 2 ** 20).toFixed(0)} MiB`
      }
      const rowsPerS = Math.round(b.rows / (b.ms / 1000))
      const ceilingRowsPerS = Math.round(b.rows / (bare!.ms / 1000))
      formats[format] = {
        rows: b.rows, bytes: b.bytes, ms: round3(b.ms), rows_per_s: rowsPerS, rss_growth_mb: round3(rss), anon_growth_mb: round3(anon),
        server_cpu_ms: leastCpu, rows_per_cpu_s: Math.round(b.rows / (Math.max(leastCpu, 10) / 1000)),
        ceiling_ms: round3(bare!.ms), ceiling_rows_per_s: ceilingRowsPerS, share_of_ceiling: round3(bare!.ms / b.ms),
        peer, peer_ms: round3(peerMs), ratio_vs_peer: round3(peerMs / b.ms),
      }
      o.log(`export ${format}: ${rowsPerS.toLocaleString('en')} rows/s (${Math.round((100 * bare!.ms) / b.ms)}% of the bare ceiling's ${ceilingRowsPerS.toLocaleString('en')}); ${peer}: ${round3(peerMs)} ms`)
    }
  } finally {
    await server?.stop()
    await stopProcess(ceiling)
    rmSync(dir, { recursive: true, force: true })
  }
  return { rounds, client: client.name, formats }
}

interface Read {
  status: number
  rows: number
  bytes: number
  ms: number
}

interface Client {
  name: string
  /** One GET, its body counted and dropped; `ms` from the request's start to the body's last byte. */
  read(url: string, headers: Record<string, string>): Promise<Read>
}

async function curlPath(): Promise<string | undefined> {
  const path = Bun.which('curl')
  if (!path) return undefined
  const p = Bun.spawnSync([path, '--version'], { stdout: 'pipe', stderr: 'ignore' })
  return p.exitCode === 0 ? path : undefined
}

/** curl -o /dev/null: the body goes nowhere; headers are dumped to stdout, then the -w figures. */
const curlClient: Client = {
  name: 'curl -o /dev/null (time_total)',
  async read(url, headers) {
    const args = ['curl', '-s', '-o', '/dev/null', '-D', '-', '-w', '\n%{http_code} %{size_download} %{time_total}\n']
    for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`)
    args.push(url)
    const p = Bun.spawn(args, { stdout: 'pipe', stderr: 'pipe' })
    const [text, code] = [await new Response(p.stdout).text(), await p.exited]
    if (code !== 0) throw new Error(`curl exited with ${code}: ${await new Response(p.stderr).text()}`)
    const [status, bytes, seconds] = text.trim().split('\n').at(-1)!.split(' ').map(Number)
    const rows = Number(/^x-export-rows:\s*(\d+)/im.exec(text)?.[1] ?? 0)
    return checked({ status: status!, rows, bytes: bytes!, ms: seconds! * 1000 }, url)
  },
}

/** Where curl is missing: Bun's fetch, each read counted and dropped (nothing kept). */
const fetchClient: Client = {
  name: 'Bun fetch, body read and dropped',
  async read(url, headers) {
    const t0 = performance.now()
    const res = await fetch(url, { headers })
    let bytes = 0
    const reader = res.body!.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      bytes += value.byteLength
    }
    return checked({ status: res.status, rows: Number(res.headers.get('x-export-rows')), bytes, ms: performance.now() - t0 }, url)
  },
}

function checked(r: Read, url: string): Read {
  if (r.status !== 200) throw new Error(`${url} answered ${r.status}`)
  return r
}

/** The whole body, for the peers (not timed). */
async function bodyOf(url: string, headers: Record<string, string>): Promise<Uint8Array> {
  const res = await fetch(url, { headers })
  if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`)
  return new Uint8Array(await res.arrayBuffer())
}
