/**
 * A one-line progress bar on stderr for long builds: redrawn in place at most 10 times a second,
 * only when enabled (stderr is a TTY, or --progress). Stages are named ("read", "encode", ...).
 */
export interface Progress {
  update(done: number, total: number, stage: string): void
  /** Ends the bar line (before the summary is printed). */
  done(): void
}

const WIDTH = 30

export function createProgress(enabled: boolean, out: NodeJS.WriteStream = process.stderr): Progress {
  if (!enabled) return { update() {}, done() {} }
  let last = 0
  let drawn = false
  const started = performance.now()
  return {
    update(done, total, stage) {
      const now = performance.now()
      if (now - last < 100 && done < total) return
      last = now
      const f = total > 0 ? Math.min(1, done / total) : 0
      const fill = Math.round(f * WIDTH)
      const secs = ((now - started) / 1000).toFixed(1)
      out.write(`\r[${'#'.repeat(fill)}${'.'.repeat(WIDTH - fill)}] ${(f * 100).toFixed(0).padStart(3)}% ${stage.padEnd(12).slice(0, 40)} ${secs}s\x1b[K`)
      drawn = true
    },
    done() {
      if (drawn) out.write('\r\x1b[K')
      drawn = false
    },
  }
}
