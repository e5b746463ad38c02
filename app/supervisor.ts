/**
 * `WORKERS=N` (N > 1): one supervisor process starts N server processes on one port. Bun serves
 * one core per process; the kernel spreads new connections over the workers' listeners
 * (SO_REUSEPORT, asked for on purpose here and only here). The workers share the limit counters
 * through Redis and the keys through the key store, so a key's budget is one budget however many
 * workers answer it; without REDIS_URL every worker would count alone and the limits would
 * silently multiply by N, so the supervisor refuses to start.
 *
 * The supervisor loads no index and answers no request. It restarts a worker that dies (backoff
 * from 100 ms doubling to 5 s, back to 100 ms once a worker has run a minute), forwards SIGHUP
 * (reload) to every worker, and on SIGTERM/SIGINT forwards it and exits once every worker has
 * drained, killing those still running past the shutdown deadline. Workers' output passes through.
 */
import type { Subprocess } from 'bun'
import type { Config } from '../src/config'
import type { Logger } from '../src/log'
import { sumExpositions } from '../src/metrics/sum-expositions'
import { withRuntimeEnv } from '../src/runtime-env'

/** Set in a worker's environment: its number (1..N). Its presence makes app/server.ts serve instead of supervise. */
export const WORKER_ENV = 'MV_WORKER'

const RESTART_MIN_MS = 100
const RESTART_MAX_MS = 5_000
const HEALTHY_AFTER_MS = 60_000
const EXTRA_STOP_MS = 5_000

interface Slot {
  n: number
  proc?: Subprocess
  /** Its output passed through to ours; settles once the worker's pipes have ended (after it exits). */
  output?: Promise<unknown>
  startedAt: number
  delay: number
}

/** Why a supervisor cannot start with this config, or undefined. */
export function workersRefusal(config: Pick<Config, 'workers' | 'redisUrl'>): string | undefined {
  if (config.workers > 1 && !config.redisUrl)
    return `WORKERS=${config.workers} needs REDIS_URL: each worker would count the rate limits alone, so every key would get ${config.workers} times its limits. Set REDIS_URL, or run one worker.`
  return undefined
}

export async function supervise(config: Config, entry: string, log: Logger): Promise<void> {
  // Every worker must listen on the same port: pick one now when the config asks for any.
  const port = config.port === 0 ? freePort() : config.port
  const slots: Slot[] = Array.from({ length: config.workers }, (_, i) => ({ n: i + 1, startedAt: 0, delay: RESTART_MIN_MS }))
  let stopping = false
  let started = 0
  // METRICS_PORT: each worker serves its own figures on a private loopback port; the supervisor
  // serves their sum on METRICS_PORT (decisions.md, Workers and the port).
  const workerMetricsPorts = config.metricsPort !== undefined ? slots.map(() => freePort('127.0.0.1')) : undefined
  if (config.metricsPort !== undefined) serveSummedMetrics(config.metricsPort, workerMetricsPorts!, log)

  const spawn = (slot: Slot) => {
    slot.startedAt = Date.now()
    const proc = Bun.spawn([process.execPath, entry], {
      env: {
        ...withRuntimeEnv(process.env),
        PORT: String(port),
        [WORKER_ENV]: String(slot.n),
        ...(workerMetricsPorts ? { METRICS_PORT: String(workerMetricsPorts[slot.n - 1]), METRICS_HOST: '127.0.0.1' } : {}),
      },
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
    })
    slot.proc = proc
    const seen = (line: string) => {
      if (line.includes('"event":"server.started"') && ++started === config.workers) log.log('info', 'supervisor.started', { port, workers: config.workers, pids: slots.map((s) => s.proc?.pid) })
    }
    slot.output = Promise.all([
      passThrough(proc.stdout as ReadableStream<Uint8Array>, process.stdout, seen),
      passThrough(proc.stderr as ReadableStream<Uint8Array>, process.stderr, seen),
    ]).catch(() => {})
    void proc.exited.then((code) => {
      if (stopping) return
      const ranMs = Date.now() - slot.startedAt
      slot.delay = ranMs >= HEALTHY_AFTER_MS ? RESTART_MIN_MS : Math.min(RESTART_MAX_MS, slot.delay * 2)
      log.log('warn', 'worker.exited', { worker: slot.n, pid: proc.pid, code, signal: proc.signalCode, restart_in_ms: slot.delay })
      setTimeout(() => {
        if (stopping) return
        spawn(slot)
        log.log('info', 'worker.restarted', { worker: slot.n, pid: slot.proc?.pid })
      }, slot.delay)
    })
  }
  for (const slot of slots) spawn(slot)

  process.on('SIGHUP', () => {
    for (const s of slots) s.proc?.kill('SIGHUP')
  })
  const stop = async (signal: 'SIGTERM' | 'SIGINT') => {
    if (stopping) return
    stopping = true
    log.log('info', 'supervisor.stopping', { signal })
    for (const s of slots) s.proc?.kill(signal)
    const deadline = Bun.sleep(((config.shutdownTimeoutS ?? 10) * 1000) + EXTRA_STOP_MS).then(() => 'deadline' as const)
    // A worker has exited before its last lines (its server.stopped) have come through its pipe:
    // drained means exited and its output passed on, or those lines would be lost with us.
    const all = Promise.all(slots.map((s) => s.proc?.exited.then(() => s.output))).then(() => 'drained' as const)
    const outcome = await Promise.race([all, deadline])
    if (outcome === 'deadline') for (const s of slots) s.proc?.kill('SIGKILL')
    log.log('info', 'supervisor.stopped', { signal, outcome })
    await flushed(process.stdout)
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
  await new Promise<never>(() => {}) // until a signal ends the process
}

/** Resolves once what was written to `out` has been handed to the system (at most 2 s). */
function flushed(out: NodeJS.WriteStream): Promise<void> {
  if (!out.writableNeedDrain) return Promise.resolve()
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 2_000)
    out.once('drain', () => (clearTimeout(timer), resolve()))
  })
}

/**
 * Copies one of a worker's output streams to ours, whole lines at a time, showing each line to
 * `seen` (log lines: stdout). Whole lines: the workers write into one output, and a chunk of one
 * worker's pipe may end inside a line, which another worker's chunk would otherwise split.
 */
async function passThrough(from: ReadableStream<Uint8Array>, to: NodeJS.WriteStream, seen: (line: string) => void): Promise<void> {
  const decoder = new TextDecoder()
  let buf = ''
  for await (const chunk of from) {
    buf += decoder.decode(chunk, { stream: true })
    const end = buf.lastIndexOf('\n')
    if (end < 0) {
      // A line that long is no event line: passed on in pieces rather than held.
      if (buf.length > MAX_HELD_LINE) {
        to.write(buf)
        buf = ''
      }
      continue
    }
    const whole = buf.slice(0, end + 1)
    buf = buf.slice(end + 1)
    to.write(whole)
    let at = 0
    for (let nl = whole.indexOf('\n'); nl >= 0; nl = whole.indexOf('\n', at)) {
      seen(whole.slice(at, nl))
      at = nl + 1
    }
  }
  buf += decoder.decode()
  if (buf) {
    to.write(buf + '\n')
    seen(buf)
  }
}

const MAX_HELD_LINE = 65_536

/** GET /metrics on `port`: the sum of every worker's exposition (a worker that does not answer in 2 s is left out, and said so). */
function serveSummedMetrics(port: number, workerPorts: number[], log: Logger): void {
  Bun.serve({
    port,
    hostname: process.env.METRICS_HOST || '127.0.0.1',
    reusePort: false,
    fetch: async (request) => {
      if (new URL(request.url).pathname !== '/metrics') return new Response('not found\n', { status: 404 })
      const texts = await Promise.all(
        workerPorts.map((p) =>
          fetch(`http://127.0.0.1:${p}/metrics`, { signal: AbortSignal.timeout(2_000) })
            .then((r) => (r.ok ? r.text() : ''))
            .catch(() => ''),
        ),
      )
      const missing = texts.filter((t) => t === '').length
      if (missing) log.log('warn', 'supervisor.metrics-partial', { workers: workerPorts.length, missing })
      const up = `# HELP workers_up Workers whose figures are in this sum\n# TYPE workers_up gauge\nworkers_up ${workerPorts.length - missing}\n`
      return new Response(up + sumExpositions(texts.filter(Boolean)), { headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'cache-control': 'no-store' } })
    },
  })
}

function freePort(hostname = '0.0.0.0'): number {
  const probe = Bun.listen({ hostname, port: 0, socket: { data() {} } })
  const port = probe.port
  probe.stop(true)
  return port
}
