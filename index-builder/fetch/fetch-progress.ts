/**
 * The fetcher's progress line on stderr: a bar over the sols this run has to fetch, the sol being
 * read, and an ETA from the pace of the sols fetched so far in this run (a resumed run's earlier
 * sols are not counted: they took time in another process). Redrawn in place at most 10 times a
 * second, only when enabled (stderr is a terminal, or --progress): a log file gets the summary alone.
 */
export interface FetchProgress {
  update(done: number, total: number, label: string): void
  done(): void
}

const WIDTH = 30

/** Seconds left at the pace so far: `elapsedS` for `done` sols, `total - done` to go; undefined before the first sol. */
export function etaSeconds(done: number, total: number, elapsedS: number): number | undefined {
  if (done <= 0 || elapsedS <= 0) return undefined
  return Math.max(0, ((total - done) * elapsedS) / done)
}

/** `42s`, `3m05s`, `2h07m`, `3d04h`; `--` when unknown. */
export function formatEta(s: number | undefined): string {
  if (s === undefined || !Number.isFinite(s)) return '--'
  const t = Math.round(s)
  if (t < 60) return `${t}s`
  if (t < 3600) return `${Math.floor(t / 60)}m${String(t % 60).padStart(2, '0')}s`
  if (t < 86_400) return `${Math.floor(t / 3600)}h${String(Math.floor(t / 60) % 60).padStart(2, '0')}m`
  return `${Math.floor(t / 86_400)}d${String(Math.floor(t / 3600) % 24).padStart(2, '0')}h`
}

/** The progress line itself (without the carriage return): bar, percent, label, ETA. */
export function progressLine(done: number, total: number, label: string, elapsedS: number): string {
  const f = total > 0 ? Math.min(1, done / total) : 1
  const fill = Math.round(f * WIDTH)
  return `[${'#'.repeat(fill)}${'.'.repeat(WIDTH - fill)}] ${(f * 100).toFixed(0).padStart(3)}% ${done}/${total} sols  ${label.slice(0, 32).padEnd(24)} ETA ${formatEta(etaSeconds(done, total, elapsedS))}`
}

export function createFetchProgress(enabled: boolean, out: { write(s: string): unknown } = process.stderr, now: () => number = () => performance.now()): FetchProgress {
  if (!enabled) return { update() {}, done() {} }
  const started = now()
  let last = -Infinity
  let drawn = false
  return {
    update(done, total, label) {
      const t = now()
      if (t - last < 100 && done < total) return
      last = t
      out.write(`\r${progressLine(done, total, label, (t - started) / 1000)}\x1b[K`)
      drawn = true
    },
    done() {
      if (drawn) out.write('\r\x1b[K')
      drawn = false
    },
  }
}
