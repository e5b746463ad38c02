/** Runtime configuration, read once from the environment (names in UPPER_SNAKE, standard ones where they exist). */
export interface Config {
  port: number
  /** Folder holding `current` -> <version>/ (see src/store/schema.ts). */
  indexDir: string
  /** SQLite file with the API keys (bun:sqlite). */
  keysDb: string
  /** When set, rate-limit counters live in Redis so several instances share one budget. */
  redisUrl?: string
  rateLimitHourly: number
  rateLimitDaily: number
  rateLimitConcurrent: number
  /** Honour X-Forwarded-Proto / X-Forwarded-Host when building absolute links (decisions.md). */
  trustProxy: boolean
  /** Entries in the serialised-response cache. */
  responseCacheEntries: number
  /** Largest request body accepted (batch), bytes. */
  maxBodyBytes: number
  /** Watch the index folder and reload when `current` changes. */
  watchIndex: boolean
  /** Unknown-key attempts allowed per client address per window before 429 (0: off). Optional: default 30. */
  authFailLimit?: number
  /** That window, seconds. Optional: default 60. */
  authFailWindowS?: number
  /** Longest a request body may take to arrive once the request started, seconds (src/server.ts). Optional: default 10. */
  bodyTimeoutS?: number
  /** On SIGTERM, how long requests in flight may take to finish before their connections are closed, seconds. Optional: default 10. */
  shutdownTimeoutS?: number
  /** Most photos one export may return (EXPORT_MAX_ROWS). Optional: default 2,000,000. */
  exportMaxRows?: number
  /** Longest an export stream may run before it ends with an error row, seconds (EXPORT_TIMEOUT_S). Optional: default 300. */
  exportTimeoutS?: number
  /** Rows per streamed chunk of an export (EXPORT_CHUNK_ROWS; 0: the default, 2,048). Optional. */
  exportChunkRows?: number
}

function int(name: string, fallback: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`)
  return n
}

function bool(name: string, fallback: boolean): boolean {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  return /^(1|true|yes|on)$/i.test(raw)
}

export function loadConfig(overrides: Partial<Config> = {}): Config {
  return {
    port: int('PORT', 3000),
    indexDir: process.env.INDEX_DIR || 'data/index',
    keysDb: process.env.KEYS_DB || 'data/keys.sqlite',
    redisUrl: process.env.REDIS_URL || undefined,
    rateLimitHourly: int('RATE_LIMIT_HOURLY', 10_000),
    rateLimitDaily: int('RATE_LIMIT_DAILY', 100_000),
    rateLimitConcurrent: int('RATE_LIMIT_CONCURRENT', 50),
    trustProxy: bool('TRUST_PROXY', false),
    responseCacheEntries: int('RESPONSE_CACHE_ENTRIES', 2_000),
    maxBodyBytes: int('MAX_BODY_BYTES', 64 * 1024),
    watchIndex: bool('WATCH_INDEX', true),
    authFailLimit: int('AUTH_FAIL_LIMIT', 30),
    authFailWindowS: int('AUTH_FAIL_WINDOW_S', 60),
    bodyTimeoutS: int('BODY_TIMEOUT_S', 10),
    shutdownTimeoutS: int('SHUTDOWN_TIMEOUT_S', 10),
    exportMaxRows: int('EXPORT_MAX_ROWS', 2_000_000),
    exportTimeoutS: int('EXPORT_TIMEOUT_S', 300),
    exportChunkRows: int('EXPORT_CHUNK_ROWS', 0),
    ...overrides,
  }
}
