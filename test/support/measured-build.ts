/**
 * Runs one index build in this process and prints, as JSON on stdout, whether it published, the
 * error message if not, and the process's peak resident set size (bytes). Used by tests that must
 * bound a build's memory on hostile input: `bun test/support/measured-build.ts <out> [--skip-bad]
 * [--force] <source paths...>` (the paths only, as --only-sources).
 */
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
process.stdout.write(JSON.stringify({ ...result, peakRssBytes: process.resourceUsage().maxRSS * 1024 }) + '\n')
