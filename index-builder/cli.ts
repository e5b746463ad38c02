/**
 * npm run build-index -- [--out DIR] [--synthetic] [--seed N] [--scale F] [--skip-bad]
 *                        [--if-missing] [--progress] [--keep N] [--force] [--only-sources] [paths...]
 *
 * Builds the index from the real sources (../shared/data/raw, …/incoming and …/pending, plus any
 * paths given; with --only-sources the paths alone) into DIR (default
 * data/index; data/index-synthetic with --synthetic) and publishes it as DIR/current.
 * Progress on stderr (when stderr is a TTY, or with --progress), the summary on stdout.
 * Exit 0 on success; 1 on bad input or a failed build (the message names file and record; the
 * published index is left as it was); 2 on a usage error.
 */
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { FILES } from '../src/store/schema'
import { buildIndex } from './build-index'
import { BUILDER, readManifest } from './encode/manifest'
import { CURRENT } from './encode/publish'
import { DEFAULT_SOURCE_DIRS } from './sources/list-files'
import { printable } from './sources/input-limits'
import { formatSummary } from './summary'

const USAGE = `usage: npm run build-index -- [options] [source files or folders...]
  Source paths are read in addition to the default real sources
  (../shared/data/raw, …/incoming and …/pending), unless --only-sources is given.
  --out DIR       where to publish (DIR/current -> DIR/<version>); default data/index,
                  or data/index-synthetic with --synthetic
  --synthetic     build the synthetic full-scale catalogue (~1.9M photos) instead of reading sources
  --seed N        synthetic seed (default 20120806); same seed, same index version
  --scale F       synthetic size factor (default 1; 0.01 keeps ~1% of the sols)
  --skip-bad      skip malformed records and files, and report them, instead of failing
  --if-missing    do nothing when DIR/current already holds a complete index
  --brief         one line before and one after a build instead of the full summary (npm start)
  --progress      draw the progress bar even when stderr is not a terminal
  --keep N        versions to keep in DIR, the current one included (default 2)
  --only-sources  read only the source paths given, not the default real sources
  --page-store DIR  also read the fetcher's page store DIR, and record which pages it held
                  (npm run update rebuilds when they differ)
  --force         publish even 0 photos, or more than 10% fewer photos than the index served at DIR
`

function usageError(message: string): never {
  process.stderr.write(`build-index: ${message}\n\n${USAGE}`)
  process.exit(2)
}

function number(name: string, raw: string | undefined, integer: boolean): number | undefined {
  if (raw === undefined) return undefined
  const n = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n))) usageError(`--${name} must be ${integer ? 'an integer' : 'a number'}, got "${raw}"`)
  return n
}

/** DIR/current holds a manifest whose files are all there with their recorded sizes. */
function completeIndexAt(out: string): string | undefined {
  const dir = join(out, CURRENT)
  const m = readManifest(dir)
  if (!m) return undefined
  for (const [name, f] of Object.entries(m.files)) {
    try {
      if (statSync(join(dir, name)).size !== f.bytes) return undefined
    } catch {
      return undefined
    }
  }
  // An index from an older builder lacks files or columns this server loads: not complete, so it is rebuilt.
  if (m.builder !== BUILDER) return undefined
  return Object.values(FILES).every((name) => name === FILES.manifest || m.files[name]) ? m.version : undefined
}

async function main(): Promise<void> {
  let parsed
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        out: { type: 'string' },
        synthetic: { type: 'boolean' },
        seed: { type: 'string' },
        scale: { type: 'string' },
        'skip-bad': { type: 'boolean' },
        'if-missing': { type: 'boolean' },
        brief: { type: 'boolean' },
        progress: { type: 'boolean' },
        keep: { type: 'string' },
        force: { type: 'boolean' },
        'only-sources': { type: 'boolean' },
        'page-store': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    })
  } catch (e) {
    usageError((e as Error).message)
  }
  const { values: v, positionals } = parsed
  if (v.help) {
    process.stdout.write(USAGE)
    return
  }
  const synthetic = v.synthetic ?? false
  if (!synthetic && (v.seed !== undefined || v.scale !== undefined)) usageError('--seed and --scale need --synthetic')
  if (synthetic && (positionals.length > 0 || v['page-store'])) usageError('--synthetic reads no source paths')
  if (v['only-sources'] && positionals.length === 0) usageError('--only-sources needs source paths')
  const seed = number('seed', v.seed, true)
  const scale = number('scale', v.scale, false)
  if (scale !== undefined && !(scale > 0)) usageError('--scale must be positive')
  const keep = number('keep', v.keep, true)
  if (keep !== undefined && keep < 1) usageError('--keep must be at least 1')
  const out = v.out ?? (synthetic ? 'data/index-synthetic' : 'data/index')

  if (v['if-missing']) {
    const version = completeIndexAt(out)
    if (version) {
      if (!v.brief) process.stdout.write(`index ${version} already at ${join(out, CURRENT)}; not rebuilding (--if-missing)\n`)
      return
    }
  }
  if (v.brief) process.stdout.write(`building the index into ${out} from the bundled records (once; about half a minute)\n`)

  try {
    const result = await buildIndex({
      out,
      sources: v['only-sources'] ? positionals : [...DEFAULT_SOURCE_DIRS, ...positionals],
      force: v.force ?? false,
      synthetic: synthetic ? { seed, scale } : undefined,
      skipBad: v['skip-bad'] ?? false,
      progress: (v.progress ?? false) || process.stderr.isTTY === true,
      keep,
      pageStore: v['page-store'],
    })
    process.stdout.write(v.brief ? `built index ${result.summary.version} in ${(result.ms / 1000).toFixed(1)} s (npm run build-index prints the full summary)\n` : formatSummary(result.summary, result.ms) + '\n')
  } catch (e) {
    process.stderr.write(`build-index: failed, the published index is unchanged: ${printable(e instanceof Error ? e.message : String(e))}\n`)
    if (process.env.DEBUG && e instanceof Error && e.stack) process.stderr.write(e.stack + '\n')
    process.exit(1)
  }
}

await main()
