import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startRedis } from './setup/redis'
import { spawnServer, type ServerProcess } from './setup/test-app'
import { RUNTIME_ENV } from '../src/runtime-env'

/** `WORKERS=N`: one supervisor, N server processes on one port, one budget through Redis. */
const REPO = join(import.meta.dir, '..')
const redis = await startRedis()
const dir = mkdtempSync(join(tmpdir(), 'mv-workers-'))
const running: ServerProcess[] = []
afterAll(async () => {
  for (const s of running) await s.stop('SIGKILL').catch(() => {})
  await redis?.stop()
  rmSync(dir, { recursive: true, force: true })
})

function createKey(env: Record<string, string>): string {
  const out = Bun.spawnSync([process.execPath, 'scripts/keys.ts', 'create', '--email', `w${Date.now()}@example.com`], { cwd: REPO, env: { ...process.env, ...env } })
  return out.stdout.toString().trimEnd().split('\n').at(-1)!
}

const eventsOf = (s: ServerProcess, event: string) => s.lines.filter((l) => l.includes(`"event":"${event}"`)).map((l) => JSON.parse(l))

async function freePort(): Promise<number> {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = probe.port
  probe.stop(true)
  return port
}

describe('WORKERS', () => {
  test('WORKERS=2 without REDIS_URL refuses to start, saying the limits would multiply', async () => {
    const proc = Bun.spawn([process.execPath, 'app/server.ts'], { cwd: REPO, env: { ...process.env, WORKERS: '2', REDIS_URL: '', PORT: '0' }, stderr: 'pipe', stdout: 'ignore' })
    expect(await proc.exited).toBe(1)
    const err = await new Response(proc.stderr).text()
    expect(err).toContain('WORKERS=2 needs REDIS_URL')
    expect(err).toContain('2 times its limits')
  })

  test.skipIf(!redis)('two workers on one port share one budget (300 concurrent calls on a key with an hourly limit of 60 admit 60), and each starts with the runtime settings its supervisor lacked', async () => {
    // The supervisor itself starts without the runtime settings: it must give them to its workers.
    const env = { WORKERS: '2', REDIS_URL: redis!.url, KEYS_DB: join(dir, 'keys.sqlite'), RATE_LIMIT_HOURLY: '60', RATE_LIMIT_CONCURRENT: '1000', MIMALLOC_PURGE_DELAY: '' }
    const key = createKey(env)
    const s = await spawnServer(env)
    running.push(s)
    const up = await s.waitFor('supervisor.started')
    expect(up.workers).toBe(2)
    expect((up.pids as number[]).filter(Boolean).length).toBe(2)
    for (const started of eventsOf(s, 'server.started')) expect(started.runtime_env).toEqual(RUNTIME_ENV)
    const statuses = await Promise.all(Array.from({ length: 300 }, () => fetch(`${s.url}/api/v2`, { keepalive: false, headers: { 'x-api-key': key } }).then((r) => r.status)))
    expect(statuses.filter((x) => x === 200).length).toBe(60)
    expect(statuses.filter((x) => x === 429).length).toBe(240)

    // SIGHUP reaches every worker: each reloads (here: finds the index unchanged).
    s.proc.kill('SIGHUP')
    const until = Date.now() + 5_000
    while (eventsOf(s, 'index.unchanged').length < 2 && Date.now() < until) await Bun.sleep(50)
    expect(eventsOf(s, 'index.unchanged').length).toBe(2)

    // A worker killed -9: the other one keeps answering, and the supervisor starts a new one.
    const [victim] = up.pids as number[]
    process.kill(victim!, 'SIGKILL')
    await s.waitFor('worker.exited', 5_000) // its listener is gone with it
    // New connections (no pooled one to the dead worker): the kernel hands them to the live listener.
    for (let i = 0; i < 20; i++) expect((await fetch(`${s.url}/health`, { keepalive: false })).status).toBe(200)
    await s.waitFor('worker.restarted', 5_000)
    const exited = eventsOf(s, 'worker.exited')[0]
    expect(exited.pid).toBe(victim)
    expect(exited.signal).toBe('SIGKILL')
    while (eventsOf(s, 'server.started').length < 3 && Date.now() < until + 5_000) await Bun.sleep(50)
    expect(eventsOf(s, 'server.started').length).toBe(3)

    // SIGTERM: forwarded, every worker drains, the supervisor exits 0.
    expect(await s.stop('SIGTERM')).toBe(0)
    expect(eventsOf(s, 'server.stopped').length).toBe(2)
    expect(eventsOf(s, 'supervisor.stopped')[0].outcome).toBe('drained')
  }, 30_000)

  test.skipIf(!redis)('with METRICS_PORT the supervisor serves the sum of its workers\' figures: 60 health calls spread over two workers count 60', async () => {
    const metricsPort = await freePort()
    const s = await spawnServer({ WORKERS: '2', REDIS_URL: redis!.url, KEYS_DB: join(dir, 'keys-metrics.sqlite'), METRICS_PORT: String(metricsPort) })
    running.push(s)
    await s.waitFor('supervisor.started')
    for (let i = 0; i < 60; i++) expect((await fetch(`${s.url}/health`, { keepalive: false })).status).toBe(200)
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
    expect(text).toContain('workers_up 2')
    const health = text.split('\n').filter((l) => l.startsWith('http_requests_total{') && l.includes('route="/health"'))
    expect(health.reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0)).toBe(60)
    expect(text.match(/^index_info\{.*\} 1$/m)).not.toBeNull() // one shared index: not added up
    expect(await s.stop('SIGTERM')).toBe(0)
  }, 30_000)
})

describe('WORKERS: shutdown', () => {
  test('the supervisor passes on every line its workers wrote before exiting (20,000 each at SIGTERM), then its own supervisor.stopped', async () => {
    const proc = Bun.spawn([process.execPath, join(REPO, 'test/support/supervised/supervise-chatty.ts')], { cwd: REPO, env: { ...process.env, LOG_LEVEL: 'info' }, stdout: 'pipe', stderr: 'inherit' })
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader()
    const decoder = new TextDecoder()
    let text = ''
    const more = async () => {
      const { value, done } = await reader.read()
      if (value) text += decoder.decode(value, { stream: true })
      return !done
    }
    const until = Date.now() + 15_000
    while (!text.includes('"event":"supervisor.started"') && Date.now() < until) if (!(await more())) break
    expect(text).toContain('"event":"supervisor.started"')
    proc.kill('SIGTERM')
    while (await more());
    expect(await proc.exited).toBe(0)
    const events = text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { event: string; worker?: string; outcome?: string })
    for (const w of ['1', '2']) {
      expect(events.filter((e) => e.event === 'worker.last-words' && e.worker === w).length).toBe(20_000)
      expect(events.filter((e) => e.event === 'server.stopped' && e.worker === w).length).toBe(1)
    }
    const stopped = events.filter((e) => e.event === 'supervisor.stopped')
    expect(stopped.map((e) => e.outcome)).toEqual(['drained'])
    // Its own last line comes after everything its workers said.
    expect(events.at(-1)!.event).toBe('supervisor.stopped')
  }, 30_000)
})
