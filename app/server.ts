/**
 * The server entry (`npm run serve`, `bun app/server.ts`): reads the config, loads the index,
 * opens the key file and the counter store, and serves the app on PORT.
 *
 * - Start: one log line `server.started` (port, index version, kind, rows, load ms). A missing or
 *   corrupt index: a clear message on stderr and exit code 1.
 * - SIGTERM / SIGINT: stop accepting, let requests in flight finish (deadline SHUTDOWN_TIMEOUT_S,
 *   default 10 s), close Redis and SQLite, exit 0.
 * - Request bodies: at most MAX_BODY_BYTES (413) and BODY_TIMEOUT_S (408), enforced where the
 *   body is read (plugins/photos/read-json-body.ts).
 * - SIGHUP, or a change of `<INDEX_DIR>/current` when WATCH_INDEX is on: load the index again and
 *   swap it in; requests in flight finish on the snapshot they pinned. A new index that does not
 *   load is refused with a logged error and the old one keeps serving.
 */
import { watch, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { createApp } from './app'
import { lastResortResponse } from '../plugins/errors'
import { loadConfig, type Config } from '../src/config'
import type { KeyDirectory } from '../src/keys/key-directory'
import { openKeyStore } from '../src/keys/open-key-store'
import { openMailer } from '../src/mail/mailer'
import { openCounterStore } from '../src/limits/open-counter-store'
import { logger } from '../src/log'
import { loadStore } from '../src/store/load-store'
import { warmSnapshot } from '../src/query/warm-snapshot'
import type { Store } from '../src/store/store'
import { StoreHolder } from '../src/store/store-holder'
import { supervise, WORKER_ENV, workersRefusal } from './supervisor'
import { runtimeSettings } from '../src/runtime-env'
import { mailLinkOrigin, publicUrlRefusal } from '../src/http/public-origin'
import { startLines } from './start-lines'

const SHUTDOWN_MS = 10_000
/** Closing Redis may hang when Redis does: never wait longer than this for it at shutdown. */
const CLOSE_LIMITS_MS = 2_000

function fail(message: string): never {
  process.stderr.write(`mars-photo-query: cannot start: ${message}\n`)
  process.exit(1)
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}

const USAGE = `usage: npm run serve [-- --help]
  Serves the API on PORT from the index at INDEX_DIR. Configuration is read from the environment:
  PORT (3000)  HOST (unset: every interface)  PUBLIC_URL (origin of mailed links; needed with SMTP_URL)
  INDEX_DIR (data/index)  KEYS_DB (data/keys.sqlite)  REDIS_URL (unset: local counters)  REDIS_COMMAND_TIMEOUT_MS (500)
  RATE_LIMIT_HOURLY (10000)  RATE_LIMIT_DAILY (100000)  RATE_LIMIT_CONCURRENT (50)  TRUST_PROXY (0)
  RESPONSE_CACHE_ENTRIES (2000)  MAX_BODY_BYTES (65536)  BODY_TIMEOUT_S (10)  SHUTDOWN_TIMEOUT_S (10)
  WATCH_INDEX (1)  CORS_ORIGINS (unset: no cross-origin access; comma list or *)  COMPRESSION (1)
  LOG_LEVEL (info; warn/error/silent also turn the access log off)  ACCESS_LOG (1)  ACCESS_LOG_SAMPLE (1)
  METRICS_PORT (unset; a port serving only /metrics)  METRICS_TOKEN (unset; /metrics on PORT with Authorization: Bearer)
  Signals: SIGTERM/SIGINT drain and stop; SIGHUP reloads the index.`

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(USAGE + '\n')
    process.exit(0)
  }
  let config: Config
  try {
    config = loadConfig()
  } catch (e) {
    fail(errorText(e))
  }

  const refusal = workersRefusal(config) ?? publicUrlRefusal(config)
  if (refusal) fail(refusal)
  const worker = process.env[WORKER_ENV]
  if (config.workers > 1 && !worker) return supervise(config, import.meta.path, logger)

  let store: Store
  try {
    store = await loadStore(config.indexDir)
  } catch (e) {
    fail(`the index at ${config.indexDir} is missing or corrupt (${errorText(e)}). Build it with "npm run build-index".`)
  }
  const warmMs = warmSnapshot(store)

  let keys: KeyDirectory
  try {
    keys = await openKeyStore(config.keysDb)
  } catch (e) {
    fail(`cannot open the key store ${config.keysDb.includes('://') ? '(KEYS_DB URL)' : config.keysDb}: ${errorText(e).split(config.keysDb).join('(KEYS_DB)')}`)
  }
  const mailer = openMailer({ smtpUrl: config.smtpUrl, mailFrom: config.mailFrom })
  const limits = await openCounterStore(config, logger)
  const stores = new StoreHolder(store)
  const app = createApp({ config, stores, keys, limits, log: logger, mailer })

  // Bodies without Content-Length are cut off here; announced ones get a 413 problem from the app.
  // development off: Bun's development error page shows file paths, source lines and stack
  // frames to whoever caused the error. `error` is Bun's last resort when the app itself throws
  // (plugins/errors renders every error it sees): a fixed problem document, nothing from the error.
  try {
    // Only the workers of one supervisor share a port, on purpose; a lone server owns its port.
    app.listen({
      port: config.port,
      // HOST: the listen address; unset, every interface. TRUST_PROXY assumes only the proxy can
      // reach this address (docs/reliability.md, Security).
      ...(config.host ? { hostname: config.host } : {}),
      reusePort: worker !== undefined,
      maxRequestBodySize: Math.max(config.maxBodyBytes * 2, 1 << 20),
      development: false,
      error: (e: unknown) => {
        logger.log('error', 'request.unhandled', { error: e instanceof Error ? e.message : 'unknown' })
        return lastResortResponse()
      },
    })
  } catch (e) {
    fail(`cannot listen on ${config.host ? `${config.host} ` : ''}port ${config.port}: ${errorText(e)} (is another server already using it? set PORT to a free port)`)
  }
  const server = app.server!
  // METRICS_PORT: a second listener with only /metrics (on loopback unless METRICS_HOST says otherwise).
  let metricsServer: ReturnType<typeof Bun.serve> | undefined
  if (config.metricsPort !== undefined) {
    try {
      metricsServer = Bun.serve({
        port: config.metricsPort,
        hostname: process.env.METRICS_HOST || '127.0.0.1',
        reusePort: false,
        fetch: (request) =>
          new URL(request.url).pathname === '/metrics'
            ? new Response(app.metrics.render(), { headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'cache-control': 'no-store' } })
            : new Response('not found\n', { status: 404 }),
      })
    } catch (e) {
      fail(`cannot listen on METRICS_PORT ${config.metricsPort}: ${errorText(e)}`)
    }
  }
  let reloading: Promise<void> | undefined
  let again: string | undefined
  const reload = (why: string): Promise<void> => {
    if (reloading) {
      again = why // a change during a load: load once more when this one ends
      return reloading
    }
    reloading = (async () => {
      const started = performance.now()
      try {
        const next = await loadStore(config.indexDir)
        if (next.version === stores.current.version && next.dir === stores.current.dir) {
          logger.log('info', 'index.unchanged', { why, version: next.version })
          return
        }
        const previous = stores.current.version
        warmSnapshot(next) // before the swap: no request on the new snapshot pays for its aggregates
        stores.swap(next)
        logger.log('info', 'index.swapped', { why, from: previous, to: next.version, kind: next.manifest.kind, rows: next.manifest.rows, load_ms: Math.round(performance.now() - started) })
      } catch (e) {
        logger.log('error', 'index.reload-refused', { why, error: errorText(e), serving: stores.current.version })
      } finally {
        reloading = undefined
        if (again !== undefined) {
          const next = again
          again = undefined
          void reload(next)
        }
      }
    })()
    return reloading
  }
  process.on('SIGHUP', () => void reload('SIGHUP'))
  if (config.watchIndex) watchCurrent(config.indexDir, stores, reload)
  const shutdownMs = (config.shutdownTimeoutS ?? SHUTDOWN_MS / 1000) * 1000
  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    const stopped = gracefulStop(server, shutdownMs) // the listener closes now, synchronously
    void metricsServer?.stop(true)
    logger.log('info', 'server.stopping', { signal }) // so whoever reads this line is refused a new connection
    const outcome = await stopped
    const redis = await Promise.race([limits.close().then(() => 'closed' as const), Bun.sleep(CLOSE_LIMITS_MS).then(() => 'timed-out' as const)])
    await keys.close()
    mailer.close()
    logger.log('info', 'server.stopped', { signal, outcome, limits: limits.kind, limits_closed: redis, keys_closed: true })
    process.exit(0)
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
  // Logged once every handler (SIGTERM and SIGINT above included) is in place: whoever waits for
  // this line may signal or rebuild at once; a signal before its handler would end the process
  // without draining or logging server.stopped.
  logger.log('info', 'server.started', {
    port: server.port,
    host: config.host ?? 'all interfaces',
    // Where mailed sign-in links point; without PUBLIC_URL, this machine (said here so nobody mistakes it for a public address).
    mail_link_origin: mailLinkOrigin(config, server.port),
    ...(config.publicUrl ? {} : { mail_link_note: `PUBLIC_URL is not set: sign-in links point at ${mailLinkOrigin(config, server.port)}` }),
    index_version: store.version,
    kind: store.manifest.kind,
    rows: store.manifest.rows,
    load_ms: Math.round(store.loadMs),
    warm_ms: Math.round(warmMs),
    rate_limit_store: limits.kind,
    pid: process.pid,
    ...(worker ? { worker: Number(worker) } : {}),
    ...(metricsServer ? { metrics_port: metricsServer.port } : {}),
    key_store: keys.kind,
    mail: mailer.kind,
    runtime_env: runtimeSettings(),
  })
  // decisions.md, Sign-in links in the log: the one place a token is written is announced at start.
  if (mailer.kind === 'log') logger.log('warn', 'mail.to-stdout', { detail: 'SMTP_URL is not set: dashboard sign-in links are written to stdout as JSON lines (event mail.sign-in-link). Set SMTP_URL, MAIL_FROM and PUBLIC_URL to send them by mail.' })
  // `npm start` (START_LINES=1): the catalogue and the address as the last start-up lines a person reads.
  if (process.env.START_LINES === '1' && worker === undefined) process.stdout.write(startLines(store, `http://localhost:${server.port}`))


}

/**
 * Stops accepting connections and waits for the requests in flight to finish; past `deadlineMs`
 * the remaining connections are closed. Resolves with which of the two happened.
 */
export async function gracefulStop(server: { stop(closeActive?: boolean): Promise<void> | void }, deadlineMs: number): Promise<'drained' | 'deadline'> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<'deadline'>((r) => (timer = setTimeout(() => r('deadline'), deadlineMs)))
  // stop(false): the listener closes at once; the promise resolves when the requests in flight are done.
  const outcome = await Promise.race([Promise.resolve(server.stop(false)).then(() => 'drained' as const), deadline])
  clearTimeout(timer)
  if (outcome === 'deadline') await server.stop(true)
  return outcome
}

/** Reload when `<indexDir>/current` points somewhere new (the builder renames it into place). */
function watchCurrent(indexDir: string, stores: StoreHolder, reload: (why: string) => Promise<void>): void {
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    const w = watch(indexDir, () => {
      clearTimeout(timer)
      timer = setTimeout(() => {
        let target: string
        try {
          target = realpathSync(join(indexDir, 'current'))
        } catch {
          return // mid-rename, or gone: keep serving what we have
        }
        if (target !== stores.current.dir) void reload('index folder changed')
        // 50 ms after the last event of a burst: `current` is renamed into place in one step, so a
        // longer wait only delays serving a new index (an update's time to serve counts it).
      }, 50)
    })
    w.unref?.()
    // `current` may have moved between the load and the watch: look once now.
    try {
      if (realpathSync(join(indexDir, 'current')) !== stores.current.dir) void reload('index folder changed before the watch')
    } catch {
      /* no `current` link (a version folder given directly): nothing to compare */
    }
  } catch (e) {
    logger.log('warn', 'index.watch-unavailable', { error: errorText(e) })
  }
}

if (import.meta.main) await main()
