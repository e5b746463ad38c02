/**
 * Runs one index build in this process and prints, as JSON on stdout, whether it published, the
 * error message if not, and the process's peak resident set size (bytes). Used by tests that must
 * bound a build's memory on hostile input: `bun test/support/measured-build.ts <out> [--skip-bad]
 * [--force] <source paths...>` (the paths only, as --only-sources).
 */
import { readFileSync } from 'node:fs'
import { buildIndex } from '../../index-builder/build-index'

const args = process.argv.slice(2)
const out = args.shift()!
const skipBad = args.includes('--skip-bad')
const force = args.includes('--force')
const sources = args.filter((a) => !a.startsWith('--'))
let result: { ok: boolean; photos?: number; error?: string; skipped?: Array<{ file: string; record: string; reason: string }> }
try {
  const r = await buildIndex({ out, sources, skipBad, force })
  result = { ok: true, photos: r.manifest.rows.photos, skipped: r.summary.skipped }
} catch (e) {
  result = { ok: false, error: e instanceof Error ? e.message : String(e) }
}
process.stdout.write(JSON.stringify({ ...result, peakRssBytes: peakRss() }) + '\n')

/**
 * This process's own peak RSS: VmHWM of /proc/self/status (the high-water mark of this address
 * space). getrusage's ru_maxrss is kept across fork and exec, so in a child of a large test runner
 * it reports the parent's size instead.
 */
function peakRss(): number {
  const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))
  if (!m) throw new Error('no VmHWM in /proc/self/status')
  return Number(m[1]) * 1024
}
