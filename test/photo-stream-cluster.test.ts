import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { haproxyConfig } from '../deploy/haproxy-config'
import { buildIndex } from '../index-builder/build-index'
import { startRedis, type RedisServer } from './setup/redis'
import { spawnServer, type ServerProcess } from './setup/test-app'

/**
 * The photo stream through the shipped HAProxy recipe (deploy/haproxy-config.ts) in front of a
 * WORKERS=2 server: every connection, whichever worker takes it, resumes from the same
 * Last-Event-ID with the same events and ids (the ledger positions of the version folder), and the
 * heartbeat keeps the stream flowing through the proxy.
 */
const REPO = join(import.meta.dir, '..')
const DATA = join(REPO, '../shared/data/raw/elbi3__Mars-Rover-Photo-Journal')
const haproxyBin = Bun.which('haproxy') ?? Bun.which('haproxy', { PATH: '/usr/sbin:/usr/local/sbin' })

let work: string
let redis: RedisServer | undefined
let server: ServerProcess | undefined
let lb: { port: number; proc: ReturnType<typeof Bun.spawn> } | undefined
let key = ''

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
  const env = { KEYS_DB: join(work, 'keys.sqlite') }
  const made = Bun.spawnSync([process.execPath, 'scripts/keys.ts', 'create', '--email', 'stream@example.com'], { cwd: REPO, env: { ...process.env, ...env } })
  key = made.stdout.toString().trimEnd().split('\n').at(-1)!
  server = await spawnServer({ ...env, WORKERS: '2', REDIS_URL: redis.url, INDEX_DIR: index, STREAM_HEARTBEAT_S: '1', MIMALLOC_PURGE_DELAY: '' })
  const port = await freePort()
  const cfg = join(work, 'haproxy.cfg')
  writeFileSync(cfg, haproxyConfig({ bind: `127.0.0.1:${port}`, servers: [`127.0.0.1:${server.port}`], checkIntervalMs: 200, connectionsPerSource: 100 }))
  lb = { port, proc: Bun.spawn([haproxyBin, '-f', cfg, '-db'], { stdout: 'ignore', stderr: 'ignore' }) }
  const until = Date.now() + 15_000
  while (Date.now() < until) {
    if (await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status === 200, () => false)) break
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
})
