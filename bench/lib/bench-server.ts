import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { withRuntimeEnv } from '../../src/runtime-env'
import { KeyStore } from '../../src/keys/key-store'
import { freePort, stopProcess, waitReady } from './processes'

/** A served index for a bench: `bun app/server.ts` on a free loopback port, with a fresh key. */
export interface BenchServer {
  origin: string
  /** A key of its own key file; the hourly and daily limits are raised so a bench is never refused. */
  key: string
  proc: Subprocess
  /** Stops the server and removes its key file. */
  stop(): Promise<void>
}

/**
 * Starts the server as a user would (its runtime settings, keys and limits on, the access log
 * off) and waits until /health answers. `env` adds to or overrides the environment.
 */
export async function startBenchServer(root: string, indexDir: string, env: Record<string, string> = {}): Promise<BenchServer> {
  const dir = mkdtempSync(join(tmpdir(), 'mars-bench-server-'))
  const keys = KeyStore.open(join(dir, 'keys.sqlite'))
  const key = keys.create('bench@example.com')
  keys.close()
  const port = await freePort()
  const proc = Bun.spawn([process.execPath, 'app/server.ts'], {
    cwd: root,
    env: withRuntimeEnv({
      ...process.env, PORT: String(port), INDEX_DIR: indexDir, KEYS_DB: join(dir, 'keys.sqlite'), WATCH_INDEX: '0', LOG_LEVEL: 'warn',
      RATE_LIMIT_HOURLY: '1000000000', RATE_LIMIT_DAILY: '1000000000', REDIS_URL: '', ...env,
    }),
    stdout: 'ignore',
    stderr: 'inherit',
  })
  const stop = async () => {
    await stopProcess(proc)
    rmSync(dir, { recursive: true, force: true })
  }
  const origin = `http://127.0.0.1:${port}`
  try {
    await waitReady(`${origin}/health`, proc)
  } catch (e) {
    await stop()
    throw e
  }
  return { origin, key, proc, stop }
}

/**
 * `bun app/server.ts` on a free port, waited for as long as loading the index takes (a large
 * index on a loaded machine takes longer than the tests' start-up wait); its log drained so it
 * never blocks on a full pipe.
 */
export async function startLoggedServer(root: string, env: Record<string, string>, waitMs = 10 * 60_000, onLine?: (line: string) => void): Promise<{ url: string; proc: ReturnType<typeof Bun.spawn> }> {
  const proc = Bun.spawn([process.execPath, 'app/server.ts'], { cwd: root, env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ACCESS_LOG: '0', ...env }, stdout: 'pipe', stderr: 'inherit' })
  let buf = ''
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader()
  const deadline = performance.now() + waitMs
  while (performance.now() < deadline) {
    const { value, done } = await reader.read()
    if (done) break
    buf += new TextDecoder().decode(value)
    const line = buf.split('\n').find((l) => l.includes('"server.started"'))
    if (line) {
      // Keep draining its log so the server never blocks on a full pipe (lines to `onLine`, when given).
      void (async () => {
        let rest = ''
        for (;;) {
          const { value, done } = await reader.read()
          if (done) break
          if (!onLine) continue
          const lines = (rest + new TextDecoder().decode(value)).split('\n')
          rest = lines.pop()!
          for (const l of lines) onLine(l)
        }
      })()
      return { url: `http://127.0.0.1:${JSON.parse(line).port}`, proc }
    }
  }
  proc.kill('SIGKILL')
  throw new Error(`the server did not start: ${buf.slice(-500)}`)
}
