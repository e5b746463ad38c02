import { describeCaps, formatBytes } from './fetch-caps'
import type { FetchSummary } from './fetch-feeds'

const n = (x: number) => x.toLocaleString('en-US')

/** The run's summary as a few human lines (the `--json` form is the FetchSummary itself). */
export function formatFetchSummary(s: FetchSummary): string {
  const lines = [
    `fetch ${s.rover} sols ${s.solMin}..${s.solMax}${s.resumed ? ' (resumed)' : ''}: ${n(s.sols.total)} sols, ${n(s.sols.changed)} changed, ${n(s.sols.unchanged)} unchanged, ${n(s.sols.empty)} empty, ${n(s.sols.skipped)} done before, ${n(s.sols.failed)} failed${s.sols.left ? `, ${n(s.sols.left)} left for the next run` : ''}`,
    `  pages   ${n(s.pages.fetched)} fetched, ${n(s.pages.notModified)} not modified (304), ${n(s.pages.saved)} saved; ${formatBytes(s.bytes)} read${s.chunks > 1 ? ` in ${n(s.chunks)} chunks` : ''}`,
    `  images  ${n(s.images.new)} new, ${n(s.images.changed)} changed, ${n(s.images.unchanged)} unchanged, ${n(s.images.removed)} removed, ${n(s.images.rejected)} rejected, ${n(s.images.duplicates)} duplicates dropped`,
    `  caps    ${describeCaps(s.caps)}${s.sols.refused ? `; ${n(s.sols.refused)} sol${s.sols.refused === 1 ? '' : 's'} refused over a sol cap, nothing of ${s.sols.refused === 1 ? 'it' : 'them'} saved` : ''}`,
    `  http    ${n(s.requests)} requests, ${n(s.retries)} retries, ${n(s.retryAfterWaitS)} s waited on Retry-After; ${n(s.errors.length)} errors; ${(s.ms / 1000).toFixed(1)} s`,
  ]
  if (s.stopped) lines.push(`  stopped ${s.stopped}`)
  for (const e of s.errors.slice(0, 20)) lines.push(`  error   ${e}`)
  if (s.errors.length > 20) lines.push(`  error   … ${s.errors.length - 20} more`)
  return lines.join('\n')
}
