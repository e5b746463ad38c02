/**
 * npm run fetch -- --rover perseverance|curiosity [--sol-min N --sol-max M | --since-sols K] [options]
 *
 * Downloads NASA's raw-image feed pages of those sols into FEED_DIR (default data/feeds, outside
 * git), one file per (rover, sol, page); see index-builder/fetch/fetch-feeds.ts. The summary goes
 * to stdout, the progress bar to stderr (on a terminal, or with --progress).
 * Exit 0 when every sol was fetched; 1 when some failed (the others are saved, and the next run
 * with the same request retries only the failed ones); 2 on a usage error; 75 when another fetch
 * of that rover holds the lock.
 */
import { parseArgs } from 'node:util'
import { FEED_ROVERS, feedSpec, isFeedRover } from './feed-spec'
import { fetchFeeds, type SolRange } from './fetch-feeds'
import { baseUrlOption, feedDirOption, numberOption, politeOptions, SHARED_OPTIONS, SHARED_USAGE, UsageError } from './fetch-options'
import { formatFetchSummary } from './format-fetch-summary'
import { LockHeld } from './lock-file'

const USAGE = `usage: npm run fetch -- --rover perseverance|curiosity [--sol-min N --sol-max M | --since-sols K] [options]
  --rover NAME           ${FEED_ROVERS.join(' or ')}
  --sol-min N --sol-max M  the sols to fetch (at most 5000 at a time)
  --since-sols K         the K newest sols, the newest asked of the feed (default 7)
${SHARED_USAGE}`

/** Most sols one run may cover: 5000 sols is well over an hour at the polite rate. */
const MAX_SPAN = 5000

export function solRangeOf(v: Record<string, unknown>, maxSol: number): SolRange {
  const min = numberOption('sol-min', v['sol-min'] as string | undefined, 0, maxSol)
  const max = numberOption('sol-max', v['sol-max'] as string | undefined, 0, maxSol)
  const since = numberOption('since-sols', v['since-sols'] as string | undefined, 1, MAX_SPAN)
  if (min !== undefined || max !== undefined) {
    if (since !== undefined) throw new UsageError('give --sol-min/--sol-max or --since-sols, not both')
    if (min === undefined || max === undefined) throw new UsageError('--sol-min and --sol-max go together')
    if (min > max) throw new UsageError(`--sol-min ${min} is after --sol-max ${max}`)
    if (max - min + 1 > MAX_SPAN) throw new UsageError(`at most ${MAX_SPAN} sols a run`)
    return { kind: 'sols', min, max }
  }
  return { kind: 'since', sols: since ?? 7 }
}

async function main(): Promise<number> {
  let v: Record<string, string | boolean | undefined>
  try {
    v = parseArgs({
      options: { ...SHARED_OPTIONS, rover: { type: 'string' }, 'sol-min': { type: 'string' }, 'sol-max': { type: 'string' }, 'since-sols': { type: 'string' } },
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
    if (!rover || !isFeedRover(rover)) throw new UsageError(`--rover must be ${FEED_ROVERS.join(' or ')}`)
    const summary = await fetchFeeds({
      rover,
      feedDir: feedDirOption(v),
      baseUrl: baseUrlOption(v['base-url'] as string | undefined),
      range: solRangeOf(v, feedSpec(rover).maxSol),
      polite: politeOptions(v),
      progress: v.progress === true || process.stderr.isTTY === true,
    })
    process.stdout.write((v.json ? JSON.stringify(summary) : formatFetchSummary(summary)) + '\n')
    return summary.sols.failed > 0 ? 1 : 0
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
