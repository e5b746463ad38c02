/**
 * npm run update -- [--since-sols K] [--rover NAME]... [--index-dir DIR] [--pid-file PATH] [options]
 *
 * The whole refresh in one command, safe to run from cron: fetch the last K sols (default 7) of
 * both rovers' raw-image feeds into FEED_DIR, rebuild the index from the real sources plus
 * FEED_DIR and publish it into INDEX_DIR (the builder swaps `current` atomically and leaves the
 * served index alone when the build fails), then tell the running server: SIGHUP to the pid in
 * --pid-file / SERVER_PID_FILE, or nothing when the server watches `current` (WATCH_INDEX).
 * A lock file next to the index folder (`<INDEX_DIR>.update.lock`) keeps two updates apart.
 * The published index records the page store it was built from: when the pages saved now are
 * the same, no rebuild (--rebuild forces one); when they differ in any way (this run's fetch,
 * a `npm run fetch` run since), the sols whose pages changed are merged into the published index
 * (index-builder/merge/: the index a full build would give, at the cost of what changed), or,
 * where a merge cannot give that index, a full rebuild, saying why.
 * Exit 0 on success; 1 when a fetch or the build failed (what could be done is done); 2 on a
 * usage error; 75 when another update holds the lock.
 */
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { readManifest } from '../encode/manifest'
import { CURRENT } from '../encode/publish'
import { REPO_ROOT } from '../sources/list-files'
import { pageStoreDigest } from './page-store-digest'
import { FEED_ROVERS, isFeedRover, type FeedRover } from './feed-spec'
import { fetchFeeds, type FetchSummary } from './fetch-feeds'
import { baseUrlOption, capsOption, feedDirOption, numberOption, politeOptions, SHARED_OPTIONS, SHARED_USAGE, UsageError } from './fetch-options'
import { formatFetchSummary } from './format-fetch-summary'
import { acquireLock, LockHeld } from './lock-file'
import { signalServer, type SignalOutcome } from './signal-server'
import { fullBuildEnv, withRuntimeEnv } from '../../src/runtime-env'

const USAGE = `usage: npm run update -- [options]
  --since-sols K         how many of the newest sols to fetch again (default 7)
  --rover NAME           only this rover (repeatable; default ${FEED_ROVERS.join(' and ')})
  --index-dir DIR        the index folder to publish into (env INDEX_DIR; default data/index)
  --pid-file PATH        the server's pid file, to send it SIGHUP (env SERVER_PID_FILE);
                         without it a server with WATCH_INDEX on reloads by itself
  --rebuild              a full rebuild: even when the index was built from the pages
                         saved now, and instead of merging the sols that changed
  --skip-bad             passed to the builder: leave out records it cannot read instead of failing
  --keep N               passed to the builder: index versions to keep (default 2)
${SHARED_USAGE}`

interface UpdateReport {
  fetch: FetchSummary[]
  fetchErrors: string[]
  build: { ran: boolean; code?: number; ms?: number; output?: string; why?: string; reason?: string; merged?: boolean; fallback?: string }
  reload: SignalOutcome | { sent: false; why: string }
}

async function main(): Promise<number> {
  let v: Record<string, string | boolean | string[] | undefined>
  try {
    v = parseArgs({
      options: {
        ...SHARED_OPTIONS,
        'since-sols': { type: 'string' },
        rover: { type: 'string', multiple: true },
        'index-dir': { type: 'string' },
        'pid-file': { type: 'string' },
        rebuild: { type: 'boolean' },
        'skip-bad': { type: 'boolean' },
        keep: { type: 'string' },
      },
    }).values
  } catch (e) {
    return usage((e as Error).message)
  }
  if (v.help) {
    process.stdout.write(USAGE)
    return 0
  }
  let lock
  let merger: Merger | undefined
  try {
    const rovers = ((v.rover as string[] | undefined) ?? [...FEED_ROVERS]).map((r) => {
      if (!isFeedRover(r)) throw new UsageError(`--rover must be ${FEED_ROVERS.join(' or ')}`)
      return r as FeedRover
    })
    const sinceSols = numberOption('since-sols', v['since-sols'] as string | undefined, 1, 5000) ?? 7
    const keep = numberOption('keep', v.keep as string | undefined, 1, 100)
    const feedDir = resolve(feedDirOption(v as Record<string, string>))
    const indexDir = resolve((v['index-dir'] as string | undefined) ?? process.env.INDEX_DIR ?? 'data/index')
    const baseUrl = baseUrlOption(v['base-url'] as string | undefined)
    const polite = politeOptions(v as Record<string, string>)
    const caps = capsOption(v as Record<string, string>)
    const pidFile = (v['pid-file'] as string | undefined) ?? process.env.SERVER_PID_FILE
    lock = acquireLock(`${indexDir}.update.lock`)
    // A merge is possible only over a published index that records its page store: its process
    // starts now, loads the builder and opens the published index while the fetch below waits on
    // the network (merge-cli.ts --wait).
    if (!v.rebuild && readManifest(join(indexDir, CURRENT))?.page_store) merger = startMerge(indexDir, feedDir, v['skip-bad'] === true, keep)

    const report: UpdateReport = { fetch: [], fetchErrors: [], build: { ran: false }, reload: { sent: false, why: 'no new index' } }
    for (const rover of [...new Set(rovers)]) {
      try {
        const s = await fetchFeeds({ rover, feedDir, baseUrl, range: { kind: 'since', sols: sinceSols }, polite, caps, progress: v.progress === true || process.stderr.isTTY === true })
        report.fetch.push(s)
        if (!v.json) process.stdout.write(formatFetchSummary(s) + '\n')
      } catch (e) {
        const why = `${rover}: ${e instanceof Error ? e.message : String(e)}`
        report.fetchErrors.push(why)
        if (!v.json) process.stdout.write(`fetch ${why}\n`)
      }
    }
    // The published index records the page store it was built from: any difference (this run's
    // fetch, a `npm run fetch` since, pages removed by hand) means it does not serve what is saved.
    const store = pageStoreDigest(feedDir)
    const builtFrom = readManifest(join(indexDir, CURRENT))?.page_store
    const published = existsSync(join(indexDir, CURRENT))
    if (published && builtFrom?.digest === store.digest && !v.rebuild) report.build.why = `the published index was built from the ${store.pages} pages saved now`
    else {
      if (published && !v.rebuild) report.build.reason = builtFrom ? 'the page store differs from the one the published index was built from' : 'the published index records no page store'
      // Only the sols whose pages changed, merged into the published index (index-builder/merge/),
      // when it can give what a full build gives; else (or with --rebuild) the full build.
      const merge = published && builtFrom && !v.rebuild ? await (merger ?? startMerge(indexDir, feedDir, v['skip-bad'] === true, keep)).run() : undefined
      merger = undefined
      if (merge?.merged) {
        report.build = { ran: true, merged: true, reason: report.build.reason, code: 0, ms: merge.ms, output: merge.output }
        if (!v.json) process.stdout.write(`merge   published into ${indexDir} (${merge.ms} ms): ${merge.output}\n`)
        report.reload = signalServer(pidFile)
      } else {
      if (merge && !merge.merged) {
        report.build.fallback = merge.why
        if (!v.json) process.stdout.write(`merge   not possible (${merge.why}): a full build\n`)
      }
      // FEED_DIR is added to the builder's default real sources (BUILD_SOURCE_DIRS, else
      // ../shared/data), so the rebuilt index never drops them.
      const args = ['index-builder/cli.ts', '--out', indexDir, '--page-store', feedDir, ...(v['skip-bad'] ? ['--skip-bad'] : []), ...(keep ? ['--keep', String(keep)] : [])]
      const started = performance.now()
      const p = Bun.spawn([process.execPath, ...args], { cwd: REPO_ROOT, env: fullBuildEnv(process.env), stdout: 'pipe', stderr: 'inherit' })
      const output = await new Response(p.stdout).text()
      const code = await p.exited
      report.build = { ran: true, merged: false, reason: report.build.reason, fallback: report.build.fallback, code, ms: Math.round(performance.now() - started), output: output.trim().split('\n').slice(0, 3).join('\n') }
      if (!v.json) process.stdout.write(code === 0 ? `build   published into ${indexDir} (${report.build.ms} ms)${report.build.reason ? `: ${report.build.reason}` : ''}\n${report.build.output}\n` : `build   failed with exit code ${code}; the served index is unchanged\n`)
      if (code === 0) report.reload = signalServer(pidFile)
      else report.reload = { sent: false, why: 'the build failed' }
      }
    }
    if (v.json) process.stdout.write(JSON.stringify(report) + '\n')
    else process.stdout.write(report.build.ran ? `reload  ${report.reload.sent ? `SIGHUP sent to ${report.reload.pid}` : report.reload.why}\n` : `build   skipped: ${report.build.why}\n`)
    const failed = report.fetchErrors.length > 0 || report.fetch.some((s) => s.sols.failed > 0) || (report.build.ran && report.build.code !== 0)
    return failed ? 1 : 0
  } catch (e) {
    if (e instanceof UsageError) return usage(e.message)
    if (e instanceof LockHeld) {
      process.stderr.write(`update: another update is running (${e.message}); not starting\n`)
      return 75
    }
    process.stderr.write(`update: failed: ${e instanceof Error ? e.message : String(e)}\n`)
    return 1
  } finally {
    // A merge process started and not needed (nothing changed, or a failure before) exits untouched.
    merger?.cancel()
    lock?.release()
  }
}

type MergeResult = { merged: true; ms: number; output: string } | { merged: false; why: string }

/** A merge process started and waiting (merge-cli.ts --wait): `run` lets it merge, `cancel` lets it exit untouched. */
interface Merger {
  run(): Promise<MergeResult>
  cancel(): void
}

/**
 * The merge of the changed sols, in a process of its own with the server's allocator setting
 * (merge/merge-cli.ts says why), started at once and waiting for `run`; a merge that fails (not
 * one refused) is reported as refused, and the full build runs.
 */
function startMerge(out: string, pageStore: string, skipBad: boolean, keep: number | undefined): Merger {
  const args = ['index-builder/merge/merge-cli.ts', out, pageStore, '--wait', ...(skipBad ? ['--skip-bad'] : []), ...(keep ? ['--keep', String(keep)] : [])]
  // The server's runtime settings (one the operator set wins).
  const env = withRuntimeEnv(process.env)
  const p = Bun.spawn([process.execPath, ...args], { cwd: REPO_ROOT, env, stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' })
  const output = Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  let told = false
  const tell = (line: string) => {
    if (told) return
    told = true
    try {
      p.stdin.write(`${line}\n`)
      p.stdin.end()
    } catch {
      // The process is gone already: its exit code says why.
    }
  }
  return {
    async run() {
      const started = performance.now()
      tell('go')
      const [stdout, stderr, code] = await output
      try {
        if (code !== 0) throw new Error(stderr.trim().split('\n').slice(-3).join(' ') || `exit code ${code}`)
        const m = JSON.parse(stdout.trim().split('\n').pop()!) as { merged: true; output: string } | { merged: false; why: string }
        return m.merged ? { merged: true, ms: Math.round(performance.now() - started), output: m.output } : m
      } catch (e) {
        return { merged: false, why: `the merge failed: ${e instanceof Error ? e.message : String(e)}` }
      }
    },
    cancel() {
      tell('stop')
    },
  }
}

function usage(message: string): number {
  process.stderr.write(`update: ${message}\n\n${USAGE}`)
  return 2
}

if (import.meta.main) process.exit(await main())
