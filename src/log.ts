/**
 * One JSON line per event on stdout, beside the access log (app/edge.ts), so one stream
 * carries everything a log collector reads; stderr keeps only the start-up refusal message.
 * Never pass an API key or a request body here.
 */
export type Level = 'debug' | 'info' | 'warn' | 'error'

export interface Logger {
  log(level: Level, event: string, fields?: Record<string, unknown>): void
}

const QUIET = process.env.LOG_LEVEL === 'silent'
const MIN: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 }
const THRESHOLD = MIN[(process.env.LOG_LEVEL as Level) ?? 'info'] ?? 20

export const logger: Logger = {
  log(level, event, fields = {}) {
    if (QUIET || MIN[level] < THRESHOLD) return
    process.stdout.write(JSON.stringify({ t: new Date().toISOString(), level, event, ...fields }) + '\n')
  },
}
