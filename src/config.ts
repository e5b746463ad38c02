import { parsePublicUrl } from './http/public-origin'

/** Runtime configuration, read once from the environment (names in UPPER_SNAKE, standard ones where they exist). */
export interface Config {
  port: number
  /** Listen address (HOST): unset, every interface. Optional. */
  host?: string
  /**
   * The origin users reach the service at (PUBLIC_URL, an origin such as https://mars-api.example):
   * every mailed link points there (src/http/public-origin.ts), the dashboard's Origin check
   * expects it, and the API's absolute links use it instead of the request's Host. Optional.
   */
  publicUrl?: string
  /** Folder holding `current` -> <version>/ (see src/store/schema.ts). */
  indexDir: string
  /** The API key store: a SQLite file path (bun:sqlite), or a postgres:// URL shared by several instances. */
  keysDb: string
  /** SMTP server of the dashboard's sign-in mail (nodemailer URL); unset: the link is written to stdout. */
  smtpUrl?: string
  /** From address of that mail. */
  mailFrom?: string
  /** Sign-in links one client may ask for one address per hour. Optional: default 5. */
  signInPerAddress?: number
  /** Sign-in links mailed to one address from any client per 15 minutes (a link's life). Optional: default 5. */
  signInPerMailbox?: number
  /** Sign-in links one client address may ask for per hour. Optional: default 20. */
  signInPerClient?: number
  /** When set, rate-limit counters live in Redis so several instances share one budget. */
  redisUrl?: string
  /**
   * How long a rate-limit command may wait on Redis before that decision is made on local
   * counters (fail open, docs/reliability.md). Optional: default 500 ms.
   */
  redisCommandTimeoutMs?: number
  rateLimitHourly: number
  rateLimitDaily: number
  rateLimitConcurrent: number
  /**
   * Honour X-Forwarded-Proto / X-Forwarded-Host (absolute links, Secure cookies) and the last
   * X-Forwarded-For entry (the client address of the limits), as a proxy in front wrote them
   * (decisions.md). Assumes nobody but that proxy can reach the instance (HOST, docs/reliability.md).
   */
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
  /** Longest a request body may take to arrive once the request started, seconds (app/server.ts). Optional: default 10. */
  bodyTimeoutS?: number
  /** On SIGTERM, how long requests in flight may take to finish before their connections are closed, seconds. Optional: default 10. */
  shutdownTimeoutS?: number
  /** Server processes on this machine (app/supervisor.ts); more than 1 needs redisUrl. */
  workers: number
  /** Origins allowed cross-origin access (CORS_ORIGINS: comma list or `*`); empty: none. Optional. */
  corsOrigins?: string[]
  /** Share of successful requests written to the access log, 0..1 (ACCESS_LOG_SAMPLE); errors are always written. Optional: default 1. */
  accessLogSample?: number
  /** Access log on stdout (ACCESS_LOG, default on; LOG_LEVEL warn/error/silent turns it off too). Optional. */
  accessLog?: boolean
  /** /metrics on the main port, for requests with `Authorization: Bearer <token>` (METRICS_TOKEN). Optional. */
  metricsToken?: string
  /** A separate loopback-or-any port serving only /metrics (METRICS_PORT; app/server.ts). Optional. */
  metricsPort?: number
  /** Count requests for /metrics (METRICS, default on; off only to measure what counting costs). Optional. */
  metrics?: boolean
  /** Compress answers over COMPRESS_MIN_BYTES when Accept-Encoding allows (COMPRESSION, default on). Optional. */
  compression?: boolean
  /** Most photos one export may return (EXPORT_MAX_ROWS). Optional: default 2,000,000. */
  exportMaxRows?: number
  /** Longest an export stream may run before it ends with an error row, seconds (EXPORT_TIMEOUT_S). Optional: default 300. */
  exportTimeoutS?: number
  /** Rows per streamed chunk of an export (EXPORT_CHUNK_ROWS; 0: the defaults, 512 for text and 8,192 per Arrow record batch). Optional. */
  exportChunkRows?: number
  /** Open photo streams one key may hold at once (STREAMS_PER_KEY, default 5), counted where the rate limits are (with Redis: every worker and instance together): the next is a 429. */
  streamsPerKey?: number
  /** Seconds between the heartbeat comments of a photo stream (STREAM_HEARTBEAT_S, default 15). */
  streamHeartbeatS?: number
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

function sample(name: string): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return 1
  const n = Number(raw)
  if (!(n >= 0 && n <= 1)) throw new Error(`${name} must be a number from 0 to 1, got "${raw}"`)
  return n
}

export function loadConfig(overrides: Partial<Config> = {}): Config {
  return {
    port: int('PORT', 3000),
    host: process.env.HOST || undefined,
    publicUrl: process.env.PUBLIC_URL ? parsePublicUrl(process.env.PUBLIC_URL) : undefined,
    indexDir: process.env.INDEX_DIR || 'data/index',
    keysDb: process.env.KEYS_DB || 'data/keys.sqlite',
    redisUrl: process.env.REDIS_URL || undefined,
    redisCommandTimeoutMs: int('REDIS_COMMAND_TIMEOUT_MS', 500),
    smtpUrl: process.env.SMTP_URL || undefined,
    mailFrom: process.env.MAIL_FROM || undefined,
    signInPerAddress: int('SIGN_IN_LIMIT_ADDRESS', 5),
    signInPerClient: int('SIGN_IN_LIMIT_CLIENT', 20),
    signInPerMailbox: int('SIGN_IN_LIMIT_MAILBOX', 5),
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
    workers: Math.max(1, int('WORKERS', 1)),
    corsOrigins: (process.env.CORS_ORIGINS ?? '').split(',').map((o) => o.trim()).filter(Boolean),
    accessLogSample: sample('ACCESS_LOG_SAMPLE'),
    accessLog: bool('ACCESS_LOG', !/^(warn|error|silent)$/.test(process.env.LOG_LEVEL ?? '')),
    metricsToken: process.env.METRICS_TOKEN || undefined,
    metricsPort: process.env.METRICS_PORT ? int('METRICS_PORT', 0) : undefined,
    compression: bool('COMPRESSION', true),
    metrics: bool('METRICS', true),
    exportMaxRows: int('EXPORT_MAX_ROWS', 2_000_000),
    exportTimeoutS: int('EXPORT_TIMEOUT_S', 300),
    exportChunkRows: int('EXPORT_CHUNK_ROWS', 0),
    streamsPerKey: int('STREAMS_PER_KEY', 5),
    streamHeartbeatS: int('STREAM_HEARTBEAT_S', 15),
    ...overrides,
  }
}
