/**
 * npm run fetch -- [--rover perseverance|curiosity] [--sol-min N --sol-max M | --since-sols K | --all] [options]
 *
 * Downloads NASA's raw-image feed pages of those sols into FEED_DIR (default data/feeds, outside
 * git), one file per (rover, sol, page); see index-builder/fetch/fetch-feeds.ts. Without --rover,
 * both feed rovers, one after the other. The summary goes to stdout (one JSON line per rover with
 * --json), the progress bar with its ETA to stderr (on a terminal, or with --progress).
 * Exit 0 when every sol was fetched; 1 when some failed or a run stopped at its cap (the others
 * are saved, and the next run with the same request does only what is left); 2 on a usage
 * error; 75 when another fetch of that rover holds the lock.
 */
import { parseArgs } from 'node:util'
import { FEED_ROVERS, feedSpec, isFeedRover, type FeedRover } from './feed-spec'
import { fetchFeeds, type FetchSummary, type SolRange } from './fetch-feeds'
import { baseUrlOption, capsOption, feedDirOption, numberOption, politeOptions, SHARED_OPTIONS, SHARED_USAGE, UsageError } from './fetch-options'
import { formatFetchSummary } from './format-fetch-summary'
import { LockHeld } from './lock-file'

const USAGE = `usage: npm run fetch -- [--rover perseverance|curiosity] [--sol-min N --sol-max M | --since-sols K | --all] [options]
  --rover NAME           ${FEED_ROVERS.join(' or ')} (default: both, one after the other)
  --sol-min N --sol-max M  the sols to fetch (at most 5000 at a time)
  --since-sols K         the K newest sols, the newest asked of the feed (default 7)
  --all                  every sol from 0 to the feed's newest, in chunks under --max-run-bytes,
                         to the end in one run; after a kill the same command goes on
${SHARED_USAGE}`

/** Most sols one run may cover, --all aside: 5000 sols is well over an hour at the polite rate. */
const MAX_SPAN = 5000

export function solRangeOf(v: Record<string, unknown>, maxSol: number): SolRange {
  const min = numberOption('sol-min', v['sol-min'] as string | undefined, 0, maxSol)
  const max = numberOption('sol-max', v['sol-max'] as string | undefined, 0, maxSol)
  const since = numberOption('since-sols', v['since-sols'] as string | undefined, 1, MAX_SPAN)
  if (v.all === true) {
    if (min !== undefined || max !== undefined || since !== undefined) throw new UsageError('--all fetches every sol: give it without --sol-min/--sol-max/--since-sols')
    return { kind: 'all' }
  }
  if (min !== undefined || max !== undefined) {
    if (since !== undefined) throw new UsageError('give --sol-min/--sol-max or --since-sols, not both')
    if (min === undefined || max === undefined) throw new UsageError('--sol-min and --sol-max go together')
    if (min > max) throw new UsageError(`--sol-min ${min} is after --sol-max ${max}`)
    if (max - min + 1 > MAX_SPAN) throw new UsageError(`at most ${MAX_SPAN} sols a run (--all fetches every sol)`)
    return { kind: 'sols', min, max }
  }
  return { kind: 'since', sols: since ?? 7 }
}

async function main(): Promise<number> {
  let v: Record<string, string | boolean | undefined>
  try {
    v = parseArgs({
      options: { ...SHARED_OPTIONS, rover: { type: 'string' }, 'sol-min': { type: 'string' }, 'sol-max': { type: 'string' }, 'since-sols': { type: 'string' }, all: { type: 'boolean' } },
    }).values
  } catch (e) {
    return usage((e as Error).message)
  }
  if (v.help) {
    process.stdout.write(USAGE)
    return 0
  }
  try {
    const rover = v.rover as string | undefined
    if (rover !== undefined && !isFeedRover(rover)) throw new UsageError(`--rover must be ${FEED_ROVERS.join(' or ')}`)
    const rovers: FeedRover[] = rover ? [rover] : [...FEED_ROVERS]
    const feedDir = feedDirOption(v)
    const baseUrl = baseUrlOption(v['base-url'] as string | undefined)
    const polite = politeOptions(v)
    const caps = capsOption(v)
    const ranges = rovers.map((r) => solRangeOf(v, feedSpec(r).maxSol))
    const summaries: FetchSummary[] = []
    for (const [i, r] of rovers.entries()) {
      const summary = await fetchFeeds({ rover: r, feedDir, baseUrl, range: ranges[i]!, polite, caps, progress: v.progress === true || process.stderr.isTTY === true })
      summaries.push(summary)
      process.stdout.write((v.json ? JSON.stringify(summary) : formatFetchSummary(summary)) + '\n')
    }
    return summaries.some((s) => s.sols.failed > 0 || s.stopped) ? 1 : 0
  } catch (e) {
    if (e instanceof UsageError) return usage(e.message)
    if (e instanceof LockHeld) {
      process.stderr.write(`fetch: another fetch is running (${e.message}); not starting\n`)
      return 75
    }
    process.stderr.write(`fetch: failed: ${e instanceof Error ? e.message : String(e)}\n`)
    return 1
  }
}

function usage(message: string): number {
  process.stderr.write(`fetch: ${message}\n\n${USAGE}`)
  return 2
}

if (import.meta.main) process.exit(await main())
