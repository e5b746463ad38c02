/** One JSON line per event on stderr. Never pass an API key or a request body here. */
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
    process.stderr.write(JSON.stringify({ t: new Date().toISOString(), level, event, ...fields }) + '\n')
  },
}
