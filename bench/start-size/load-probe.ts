/**
 * Loads one index in a fresh process and prints, as one JSON line: the wall time of
 * loadStore, the process RSS after the load (after a full GC) and before it (the runtime's
 * own share, with the loader's modules imported).
 * Usage: bun bench/start-size/load-probe.ts INDEX_DIR
 */
import { loadStore } from '../../src/store/load-store'

const dir = process.argv[2]
const mb = (b: number) => b / 2 ** 20
Bun.gc(true)
const baseline = process.memoryUsage().rss
const t0 = Bun.nanoseconds()
const store = await loadStore(dir)
const loadMs = (Bun.nanoseconds() - t0) / 1e6
Bun.gc(true)
const rss = process.memoryUsage().rss
console.log(JSON.stringify({
  load_ms: loadMs,
  store_load_ms: store.loadMs,
  rss_mb: mb(rss),
  baseline_rss_mb: mb(baseline),
  photos: store.photos.length,
  version: store.version,
  kind: store.manifest.kind,
  dir: store.dir,
}))
