/**
 * Measures what the server pays at start for an index (not a test: numbers depend on the machine):
 * load time of loadStore (median of --runs fresh processes is the honest figure; this reports each
 * run in this process) and the RSS after load.
 *
 *   bun index-builder/measure-load.ts [INDEX_DIR] [--verify checksum|sha256|size]
 * INDEX_DIR defaults to data/index-synthetic. Prints one JSON line.
 */
import { loadStore } from '../src/store/load-store'

const args = process.argv.slice(2)
const verify = args.includes('--verify') ? (args[args.indexOf('--verify') + 1] as 'sha256' | 'checksum' | 'size') : 'checksum'
const dir = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--verify') ?? 'data/index-synthetic'

const rssBefore = process.memoryUsage().rss
const t0 = performance.now()
const store = await loadStore(dir, { verify })
const wallMs = performance.now() - t0
Bun.gc(true)
const rssAfter = process.memoryUsage().rss
const out = {
  index: store.dir,
  version: store.version,
  kind: store.manifest.kind,
  photos: store.photos.length,
  verify,
  load_ms: Math.round(wallMs),
  rss_before_mb: Math.round(rssBefore / 2 ** 20),
  rss_after_load_mb: Math.round(rssAfter / 2 ** 20),
  bytes_mb: Math.round(Object.values(store.manifest.files).reduce((a, f) => a + f.bytes, 0) / 2 ** 20),
}
console.log(JSON.stringify(out))
