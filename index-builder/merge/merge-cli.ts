import { mergeUpdate, openPublished, type OpenedIndex } from './merge-update'

/**
 * `bun index-builder/merge/merge-cli.ts OUT PAGE_STORE [--skip-bad] [--keep N] [--wait]`: one update merge
 * (merge-update.ts) in a process of its own, its outcome as one JSON line on stdout. `npm run
 * update` runs the merge here, started with the server's allocator setting
 * (src/runtime-env.ts, MIMALLOC_PURGE_DELAY=-1): each stage of a merge (rows, derive, write,
 * access paths, digest) allocates about what the stage before it let go, and with purging on
 * those pages went back to the kernel and were faulted in and zeroed again (fresh memory:
 * ~12 ms a MB on the machines measured; reused, ~0.4). A merge then keeps its high-water mark
 * until it exits; a full build, whose peak memory is its limit, keeps the allocator's default.
 * With --wait it loads its modules and opens the published index (merge state, manifest, photo
 * columns mapped: merge-update.ts openPublished), then waits for a line on stdin: `go` merges,
 * anything else (or the end of stdin) exits without touching the index. `npm run update` starts
 * it so before its fetch, so that work is done while the fetch waits on the network.
 */
const args = process.argv.slice(2)
const [out, pageStore] = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--keep')
if (!out || !pageStore) {
  process.stderr.write('usage: bun index-builder/merge/merge-cli.ts OUT PAGE_STORE [--skip-bad] [--keep N]\n')
  process.exit(2)
}
let opened: OpenedIndex | undefined
if (args.includes('--wait')) {
  // A failure to open it here is met again, and reported, by the merge itself.
  opened = await openPublished(out).catch(() => undefined)
  if ((await firstLine()) !== 'go') process.exit(0)
}
const keepAt = args.indexOf('--keep')
const keep = keepAt >= 0 ? Number(args[keepAt + 1]) : undefined
const started = performance.now()
const m = await mergeUpdate({ out, pageStore, skipBad: args.includes('--skip-bad'), keep }, opened)
const ms = Math.round(performance.now() - started)
if (!m.merged) process.stdout.write(JSON.stringify({ merged: false, why: m.why }) + '\n')
else {
  const again = m.reread.length > 0 ? `; read again for the clock fit: ${m.reread.join(', ')}` : ''
  const stages = Object.entries(m.timings).map(([k, t]) => `${k} ${t}`).join(', ')
  process.stdout.write(JSON.stringify({ merged: true, ms, output: `${m.result.manifest.rows.photos} photos, version ${m.result.version}; sols merged: ${m.sols.join(', ')}${again}; stages (ms): ${stages}` }) + '\n')
}

/** The first line on stdin ('' at its end). */
async function firstLine(): Promise<string> {
  const reader = Bun.stdin.stream().getReader()
  let text = ''
  const decoder = new TextDecoder()
  for (;;) {
    const { value, done } = await reader.read()
    if (done) return text.trim()
    text += decoder.decode(value, { stream: true })
    const nl = text.indexOf('\n')
    if (nl >= 0) return text.slice(0, nl).trim()
  }
}
