import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp, type App } from '../../app/app'
import type { AppDeps } from '../../src/app-deps'
import { loadConfig, type Config } from '../../src/config'
import { KeyStore, type KeyLimits } from '../../src/keys/key-store'
import type { CounterStore } from '../../src/limits/counter-store'
import { MemoryCounterStore } from '../../src/limits/memory-counter-store'
import type { Level, Logger } from '../../src/log'
import type { Store } from '../../src/store/store'
import { StoreHolder } from '../../src/store/store-holder'

export interface TestAppOptions extends Partial<Config> {
  /** Clock of the rate-limit windows (ms since the epoch). */
  clock?: () => number
  /** Counter store to use (default: a fresh in-memory one). */
  limits?: CounterStore
  /** Snapshot to serve (default: the real test index at process.env.INDEX_DIR, loaded once per process). */
  store?: Store
  /** Operator limits of the fresh key. */
  keyLimits?: KeyLimits
  /** Use this key file instead of a fresh temporary one. */
  keysDb?: string
}

export interface LogLine {
  level: Level
  event: string
  fields: Record<string, unknown>
}

export interface TestApp {
  app: App
  /** The app's dependencies; its key store is the SQLite one (synchronous answers). */
  deps: Omit<AppDeps, 'keys'> & { keys: KeyStore }
  /** A fresh active key (its owner is test@example.com unless keysDb was given with that owner). */
  key: string
  /** Everything the app logged. */
  logs: LogLine[]
  /** The access-log lines (JSON text), one per request. */
  accessLines: string[]
  /** app.handle on http://localhost + path, with the X-API-Key header of `key` unless init sets one. */
  request(path: string, init?: RequestInit): Promise<Response>
  /** The same without any X-API-Key header. */
  anonymous(path: string, init?: RequestInit): Promise<Response>
  close(): Promise<void>
}

const stores = new Map<string, Promise<Store>>()

/** The real index the test preload built (process.env.INDEX_DIR), loaded once per process. */
export function testStore(indexDir = process.env.INDEX_DIR ?? 'data/index-test'): Promise<Store> {
  let s = stores.get(indexDir)
  if (!s) {
    s = import('../../src/store/load-store').then((m) => m.loadStore(indexDir))
    stores.set(indexDir, s)
  }
  return s
}

/**
 * The assembled app (app/app.ts, every real plugin) over the real test index, a temporary SQLite
 * key file with one fresh key, and in-memory counters. Async because loading the index may be.
 */
export async function makeTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const { clock, limits, store, keyLimits, keysDb, ...overrides } = options
  const dir = keysDb ? undefined : mkdtempSync(join(tmpdir(), 'mv-keys-'))
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) as Partial<Config>
  const config = loadConfig({ keysDb: keysDb ?? join(dir!, 'keys.sqlite'), redisUrl: undefined, ...defined })
  const logs: LogLine[] = []
  const accessLines: string[] = []
  const log: Logger = { log: (level, event, fields = {}) => void logs.push({ level, event, fields }) }
  const keys = KeyStore.open(config.keysDb)
  const key = keys.create(`test-${crypto.randomUUID().slice(0, 8)}@example.com`, keyLimits)
  const deps: Omit<AppDeps, 'keys'> & { keys: KeyStore } = {
    config,
    stores: new StoreHolder(store ?? (await testStore(config.indexDir))),
    keys,
    limits: limits ?? new MemoryCounterStore(),
    log,
    clock,
    accessLog: (line) => void accessLines.push(line),
  }
  const app = createApp(deps)
  const call = (path: string, init: RequestInit = {}, withKey: boolean) => {
    const headers = new Headers(init.headers)
    if (withKey && !headers.has('x-api-key')) headers.set('x-api-key', key)
    return app.handle(new Request('http://localhost' + path, { ...init, headers }))
  }
  return {
    app,
    deps,
    key,
    logs,
    accessLines,
    request: (path, init) => call(path, init, true),
    anonymous: (path, init) => call(path, init, false),
    async close() {
      keys.close()
      await deps.limits.close()
      if (dir) rmSync(dir, { recursive: true, force: true })
    },
  }
}

export interface ServerProcess {
  url: string
  port: number
  proc: ReturnType<typeof Bun.spawn>
  /** Every output line so far: JSON log lines (stdout) and the start failure message (stderr). */
  lines: string[]
  /** Resolves with the first log line whose event is `event` (rejects after `ms`). */
  waitFor(event: string, ms?: number): Promise<Record<string, unknown>>
  stop(signal?: NodeJS.Signals): Promise<number>
}

/**
 * `bun app/server.ts` as a child process on a free port (PORT=0), env on top of this process's.
 * Resolves once it logged `server.started`; rejects with its stderr when it exits first.
 */
export async function spawnServer(env: Record<string, string | undefined>, cwd = join(import.meta.dir, '../..')): Promise<ServerProcess> {
  const proc = Bun.spawn([process.execPath, 'app/server.ts'], {
    cwd,
    // ACCESS_LOG off unless asked for: a long run would otherwise keep a line per request here.
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', WATCH_INDEX: '0', ACCESS_LOG: '0', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const lines: string[] = []
  const waiters: Array<{ event: string; resolve: (v: Record<string, unknown>) => void }> = []
  const parse = (line: string) => {
    try {
      return JSON.parse(line) as Record<string, unknown>
    } catch {
      return undefined
    }
  }
  // Log lines come on stdout (src/log.ts), a refusal to start on stderr: both are read here.
  const read = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder()
    let buf = ''
    for await (const chunk of stream) {
      buf += decoder.decode(chunk, { stream: true })
      let nl: number
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl)
        buf = buf.slice(nl + 1)
        lines.push(line)
        const rec = parse(line)
        for (const w of [...waiters]) if (rec?.event === w.event) (waiters.splice(waiters.indexOf(w), 1), w.resolve(rec))
      }
    }
    if (buf) lines.push(buf)
  }
  const reading = Promise.all([read(proc.stdout as ReadableStream<Uint8Array>), read(proc.stderr as ReadableStream<Uint8Array>)])
  const waitFor = (event: string, ms = 15_000) => {
    const seen = lines.map(parse).find((r) => r?.event === event)
    if (seen) return Promise.resolve(seen)
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "${event}" log line within ${ms} ms; output:\n${lines.join('\n')}`)), ms)
      waiters.push({ event, resolve: (v) => (clearTimeout(timer), resolve(v)) })
      proc.exited.then(async () => {
        await reading
        clearTimeout(timer)
        reject(new Error(`server exited (${proc.exitCode}) before "${event}"; output:\n${lines.join('\n')}`))
      })
    })
  }
  const started = await waitFor('server.started')
  const port = Number(started.port)
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    proc,
    lines,
    waitFor,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (proc.exitCode === null) proc.kill(signal)
      const code = await proc.exited
      await reading
      return code
    },
  }
}
