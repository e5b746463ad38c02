import { DEFAULT_FEED_BASE_URL } from './feed-spec'
import { DEFAULT_CAPS, parseBytes, type FetchCaps } from './fetch-caps'
import { DEFAULT_POLITE, type PoliteOptions } from './polite-client'

/**
 * The settings the fetch and update commands share, from the command line first, then the
 * environment, then the polite defaults. Every value is checked here; a bad one is a usage error
 * naming the option.
 */

export class UsageError extends Error {}

export const SHARED_OPTIONS = {
  'feed-dir': { type: 'string' },
  'base-url': { type: 'string' },
  rate: { type: 'string' },
  tries: { type: 'string' },
  'backoff-ms': { type: 'string' },
  'timeout-ms': { type: 'string' },
  'max-retry-after': { type: 'string' },
  'max-sol-bytes': { type: 'string' },
  'max-sol-records': { type: 'string' },
  'max-run-bytes': { type: 'string' },
  progress: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

export const SHARED_USAGE = `  --feed-dir DIR         where pages are saved (env FEED_DIR; default data/feeds)
  --base-url URL         the feeds' origin (env FEED_BASE_URL; default ${DEFAULT_FEED_BASE_URL})
  --rate R               requests per second, retries included (env FETCH_RATE; default 1)
  --tries N              attempts per page (env FETCH_TRIES; default 5)
  --backoff-ms MS        first retry delay, doubled per try, with jitter (env FETCH_BACKOFF_MS; default 2000)
  --timeout-ms MS        deadline of one request (env FETCH_TIMEOUT_MS; default 30000)
  --max-retry-after S    longest Retry-After honoured (env FETCH_MAX_RETRY_AFTER_S; default 300)
  --max-sol-bytes B      a sol whose pages pass B bytes is refused whole (env FETCH_MAX_SOL_BYTES; default 32MiB)
  --max-sol-records N    a sol of more than N records is refused whole (env FETCH_MAX_SOL_RECORDS; default 20000)
  --max-run-bytes B      a run stops after the sol that passes B bytes; run again to go on
                         (env FETCH_MAX_RUN_BYTES; default 4GiB; --all goes on by itself)
  --progress             draw the progress bar even when stderr is not a terminal
  --json                 print the summary as JSON
  -h, --help             this text
`

type Values = Partial<Record<keyof typeof SHARED_OPTIONS | string, string | boolean | undefined>>

export function numberOption(name: string, raw: string | undefined, min: number, max: number, integer = true): number | undefined {
  if (raw === undefined) return undefined
  const n = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
    throw new UsageError(`--${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got "${raw.slice(0, 40)}"`)
  }
  return n
}

export function baseUrlOption(raw: string | undefined): string {
  const v = raw ?? process.env.FEED_BASE_URL ?? DEFAULT_FEED_BASE_URL
  let u: URL
  try {
    u = new URL(v)
  } catch {
    throw new UsageError(`--base-url / FEED_BASE_URL is not a URL: "${v.slice(0, 80)}"`)
  }
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.username || u.password || u.search || u.hash) {
    throw new UsageError('--base-url / FEED_BASE_URL must be an http(s) origin without credentials, query or fragment')
  }
  return v.replace(/\/+$/, '')
}

export function politeOptions(v: Values): PoliteOptions {
  const pick = (name: string, env: string) => (v[name] as string | undefined) ?? process.env[env]
  return {
    ...DEFAULT_POLITE,
    ratePerSecond: numberOption('rate', pick('rate', 'FETCH_RATE'), 0.001, 1000, false) ?? DEFAULT_POLITE.ratePerSecond,
    tries: numberOption('tries', pick('tries', 'FETCH_TRIES'), 1, 20) ?? DEFAULT_POLITE.tries,
    backoffMs: numberOption('backoff-ms', pick('backoff-ms', 'FETCH_BACKOFF_MS'), 0, 600_000) ?? DEFAULT_POLITE.backoffMs,
    timeoutMs: numberOption('timeout-ms', pick('timeout-ms', 'FETCH_TIMEOUT_MS'), 1, 600_000) ?? DEFAULT_POLITE.timeoutMs,
    maxRetryAfterS: numberOption('max-retry-after', pick('max-retry-after', 'FETCH_MAX_RETRY_AFTER_S'), 0, 86_400) ?? DEFAULT_POLITE.maxRetryAfterS,
  }
}

export function feedDirOption(v: Values): string {
  return (v['feed-dir'] as string | undefined) ?? process.env.FEED_DIR ?? 'data/feeds'
}

function bytesOption(name: string, raw: string | undefined, min: number): number | undefined {
  if (raw === undefined) return undefined
  const n = parseBytes(raw)
  if (n === undefined || n < min) throw new UsageError(`--${name} must be a byte count of at least ${min} (e.g. 33554432, 32MiB, 4GiB), got "${raw.slice(0, 40)}"`)
  return n
}

export function capsOption(v: Values): FetchCaps {
  const pick = (name: string, env: string) => (v[name] as string | undefined) ?? process.env[env]
  return {
    solBytes: bytesOption('max-sol-bytes', pick('max-sol-bytes', 'FETCH_MAX_SOL_BYTES'), 1024) ?? DEFAULT_CAPS.solBytes,
    solRecords: numberOption('max-sol-records', pick('max-sol-records', 'FETCH_MAX_SOL_RECORDS'), 1, 10_000_000) ?? DEFAULT_CAPS.solRecords,
    runBytes: bytesOption('max-run-bytes', pick('max-run-bytes', 'FETCH_MAX_RUN_BYTES'), 1024) ?? DEFAULT_CAPS.runBytes,
  }
}
