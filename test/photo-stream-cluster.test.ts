import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { haproxyConfig } from '../deploy/haproxy-config'
import { buildIndex } from '../index-builder/build-index'
import { startRedis, type RedisServer } from './setup/redis'
import { spawnServer, type ServerProcess } from './setup/test-app'
import { connectionsByWorker } from './support/worker-connections'

/**
 * The photo stream through the shipped HAProxy recipe (deploy/haproxy-config.ts) in front of a
 * WORKERS=2 server sharing one Redis: every connection, whichever worker takes it, resumes from
 * the same Last-Event-ID with the same events and ids (the ledger positions of the version
 * folder), and the heartbeat keeps the stream flowing through the proxy. STREAMS_PER_KEY (5 here)
 * is one count for both workers: a key's streams on either worker fill it, the sixth is a 429 on
 * either, and the streams of a worker killed with kill -9 stop counting within the documented
 * hold time (10 s after their last renewal).
 */
const REPO = join(import.meta.dir, '..')
const DATA = join(REPO, '../shared/data/raw/elbi3__Mars-Rover-Photo-Journal')
const haproxyBin = Bun.which('haproxy') ?? Bun.which('haproxy', { PATH: '/usr/sbin:/usr/local/sbin' })

let work: string
let redis: RedisServer | undefined
let server: ServerProcess | undefined
let lb: { port: number; proc: ReturnType<typeof Bun.spawn> } | undefined
let key = ''
let workerPids: number[] = []
let keysDb = ''

function makeKey(email: string): string {
  const made = Bun.spawnSync([process.execPath, 'scripts/keys.ts', 'create', '--email', email], { cwd: REPO, env: { ...process.env, KEYS_DB: keysDb } })
  return made.stdout.toString().trimEnd().split('\n').at(-1)!
}

async function freePort(): Promise<number> {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = probe.port
  probe.stop(true)
  return port
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'mv-stream-cluster-'))
  if (!haproxyBin) return
  redis = await startRedis()
  if (!redis) return
  const index = join(work, 'index')
  await buildIndex({ out: index, sources: [join(DATA, 'spiritSol1.json.gz')] })
  await buildIndex({ out: index, sources: [join(DATA, 'spiritSol1.json.gz'), join(DATA, 'opportunitySol1.json.gz')] })
  keysDb = join(work, 'keys.sqlite')
  key = makeKey('stream@example.com')
  server = await spawnServer({ KEYS_DB: keysDb, WORKERS: '2', REDIS_URL: redis.url, INDEX_DIR: index, STREAM_HEARTBEAT_S: '3', STREAMS_PER_KEY: '5', MIMALLOC_PURGE_DELAY: '',
    // One shared count is what this test checks: a Redis slowed by a loaded machine must not turn decisions local (fail open).
    REDIS_COMMAND_TIMEOUT_MS: '10000' })
  workerPids = (await server.waitFor('supervisor.started')).pids as number[]
  const port = await freePort()
  const cfg = join(work, 'haproxy.cfg')
  // Checks 1 s apart (each may take as long): a loaded machine answering /health slowly must not take the one server out (503s).
  writeFileSync(cfg, haproxyConfig({ bind: `127.0.0.1:${port}`, servers: [`127.0.0.1:${server.port}`], checkIntervalMs: 1_000, connectionsPerSource: 100 }))
  lb = { port, proc: Bun.spawn([haproxyBin, '-f', cfg, '-db'], { stdout: 'ignore', stderr: 'ignore' }) }
  const until = Date.now() + 60_000
  for (;;) {
    if (await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status === 200, () => false)) break
    if (Date.now() > until) throw new Error('HAProxy did not see the server up within 60 s')
    await Bun.sleep(100)
  }
}, 180_000)

afterAll(async () => {
  lb?.proc.kill()
  await server?.stop()
  await redis?.stop()
  rmSync(work, { recursive: true, force: true })
})

/** The ids of the next `n` photo events, and whether a heartbeat came (reads for at most `ms`). */
async function read(r: Response, n: number, ms: number): Promise<{ ids: number[]; heartbeat: boolean }> {
  const reader = r.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  const deadline = Date.now() + ms
  const ids: number[] = []
  let heartbeat = false
  while (Date.now() < deadline && (ids.length < n || !heartbeat)) {
    const chunk = await Promise.race([reader.read(), Bun.sleep(Math.max(1, deadline - Date.now())).then(() => undefined)])
    if (!chunk || chunk.done) break
    text += decoder.decode(chunk.value, { stream: true })
    let end: number
    while ((end = text.indexOf('\n\n')) >= 0) {
      const block = text.slice(0, end)
      text = text.slice(end + 2)
      if (block.startsWith(': heartbeat')) heartbeat = true
      const id = /^id: (\d+)$/m.exec(block)
      if (id && block.includes('event: photo')) ids.push(Number(id[1]))
    }
  }
  await reader.cancel()
  return { ids, heartbeat }
}

describe.skipIf(!haproxyBin)('the photo stream behind HAProxy with WORKERS=2', () => {
  test('every connection resumes from the same Last-Event-ID with the same ledger ids, and heartbeats pass the proxy', async () => {
    if (!redis) return
    const open = () => fetch(`http://127.0.0.1:${lb!.port}/api/v2/photos/stream?rovers=opportunity`, { headers: { 'x-api-key': key, 'last-event-id': '76' } })
    const answers = await Promise.all([open(), open(), open(), open()])
    for (const r of answers) expect(r.status).toBe(200)
    const got = await Promise.all(answers.map((r) => read(r, 95, 15_000)))
    const want = Array.from({ length: 95 }, (_, i) => 77 + i) // Spirit's 77 photos hold positions 0..76
    for (const g of got) {
      expect(g.ids).toEqual(want)
      expect(g.heartbeat).toBe(true)
    }
  }, 60_000)

  /** A stream of `k` on a new connection (the kernel hands it to either worker); its status and how to close it. */
  const openStream = async (origin: string, k: string) => {
    for (let attempt = 1; ; attempt++) {
      try {
        const r = await fetch(`${origin}/api/v2/photos/stream?rovers=spirit`, { headers: { 'x-api-key': k }, keepalive: false })
        return { r, close: () => r.body?.cancel().catch(() => {}) }
      } catch (err) {
        // Just after a kill -9, the kernel may still hand a new connection to the dead worker's socket: it is reset.
        if (attempt === 5) throw err
        await Bun.sleep(100)
      }
    }
  }
  type Open = Awaited<ReturnType<typeof openStream>>
  /** Opens `k`'s first 5 streams directly on the workers, until both workers hold some of them. */
  const fillBothWorkers = async (k: string) => {
    const open: Open[] = []
    for (let round = 0; round < 30; round++) {
      while (open.length < 5) {
        const s = await openStream(server!.url, k)
        expect(s.r.status).toBe(200)
        open.push(s)
      }
      await Bun.sleep(50)
      const by = connectionsByWorker(server!.port, workerPids)
      if ([...by.values()].every((n) => n > 0) && [...by.values()].reduce((a, b) => a + b) === 5) return { open, by }
      // All on one worker: close one and let the kernel pick again (the place comes back when the server sees the close).
      await open.pop()!.close()
      await Bun.sleep(200)
    }
    throw new Error('30 rounds of new connections never reached both workers')
  }
  /** Opens streams until one is admitted (or `ms` passed): when a place came back, and the stream. */
  const admittedWithin = async (origin: string, k: string, ms: number) => {
    const start = performance.now()
    while (performance.now() - start < ms) {
      const s = await openStream(origin, k)
      if (s.r.status === 200) return { afterMs: performance.now() - start, s }
      expect(s.r.status).toBe(429)
      await s.r.arrayBuffer()
      await Bun.sleep(100)
    }
    return undefined
  }
  const expectRefused = async (origin: string, k: string) => {
    const sixth = await openStream(origin, k)
    expect(sixth.r.status).toBe(429)
    expect(sixth.r.headers.get('retry-after')).toBe('5')
    const problem = (await sixth.r.json()) as { type: string; status: number; detail: string }
    expect(problem).toMatchObject({ type: '/errors/rate-limit-exceeded', status: 429 })
    expect(problem.detail).toContain('STREAMS_PER_KEY')
  }

  test('with WORKERS=2 sharing Redis, a key\'s 5 streams on new connections land on both workers, the sixth is a 429 problem document on either worker, and closing one lets another in', async () => {
    if (!redis) return
    const k = makeKey('stream-workers@example.com')
    const { open } = await fillBothWorkers(k)
    // Each worker holds fewer than 5: counted per process, every one of these would be let in.
    for (let i = 0; i < 4; i++) await expectRefused(server!.url, k)
    await open.pop()!.close()
    const next = await admittedWithin(server!.url, k, 3_000)
    expect(next).toBeDefined()
    open.push(next!.s)
    await expectRefused(server!.url, k)
    for (const s of open) await s.close()
  }, 60_000)

  test('through the HAProxy recipe, a key\'s sixth stream is a 429 problem document, and closing one lets another in at once, not at the closed stream\'s next heartbeat', async () => {
    if (!redis) return
    const k = makeKey('stream-proxy@example.com')
    const origin = `http://127.0.0.1:${lb!.port}`
    const open: Open[] = []
    for (let i = 0; i < 5; i++) {
      const s = await openStream(origin, k)
      expect(s.r.status).toBe(200)
      open.push(s)
    }
    await expectRefused(origin, k)
    // The stream opened last: its first heartbeat is 3 s away, and the place comes back long
    // before it (the recipe's abortonclose closes the instance's side when the client closes).
    await open.pop()!.close()
    const next = await admittedWithin(origin, k, 3_000)
    expect(next).toBeDefined()
    expect(next!.afterMs).toBeLessThan(2_000)
    open.push(next!.s)
    await expectRefused(origin, k)
    for (const s of open) await s.close()
  }, 60_000)

  test('the streams of a worker killed with kill -9 stop counting within the 10 s hold time; the other worker\'s stay counted', async () => {
    if (!redis) return
    const k = makeKey('stream-killed@example.com')
    const { open, by } = await fillBothWorkers(k)
    const [victim, lost] = [...by.entries()][0]!
    process.kill(victim, 'SIGKILL')
    const killedAt = performance.now()
    // Its holds outlive it until they lapse: still 5 counted.
    await expectRefused(server!.url, k)
    const back = await admittedWithin(server!.url, k, 14_000)
    expect(back).toBeDefined()
    expect(performance.now() - killedAt).toBeLessThanOrEqual(10_000 + 2_000)
    const regained = [back!.s]
    // Exactly the killed worker's places came back: the survivor's are still held.
    for (let i = 1; i < lost; i++) {
      const s = await openStream(server!.url, k)
      expect(s.r.status).toBe(200)
      regained.push(s)
    }
    await expectRefused(server!.url, k)
    for (const s of [...open, ...regained]) await s.close()
  }, 60_000)
})
