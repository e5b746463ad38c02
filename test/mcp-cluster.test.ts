import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { haproxyConfig } from '../deploy/haproxy-config'
import { startRedis, type RedisServer } from './setup/redis'
import { spawnServer, type ServerProcess } from './setup/test-app'

/**
 * /mcp behind the HAProxy recipe (deploy/haproxy-config.ts) in front of `WORKERS=2` sharing one
 * Redis: stateless, so every message may land on either worker and the SDK client still works on
 * fresh connections, and the POSTs of one key spend one shared budget.
 */
const REPO = join(import.meta.dir, '..')
const haproxyBin = Bun.which('haproxy') ?? Bun.which('haproxy', { PATH: '/usr/sbin:/usr/local/sbin' })
const work = mkdtempSync(join(tmpdir(), 'mv-mcp-cluster-'))
let redis: RedisServer | undefined
let server: ServerProcess | undefined
let lb: ReturnType<typeof Bun.spawn> | undefined
let lbUrl = ''
const keysDb = join(work, 'keys.sqlite')
const ready = Boolean(haproxyBin)
if (!haproxyBin) console.warn('SKIPPED: haproxy is not installed; the MCP cluster test does not run.')

function makeKey(email: string): string {
  const made = Bun.spawnSync([process.execPath, 'scripts/keys.ts', 'create', '--email', email], { cwd: REPO, env: { ...process.env, KEYS_DB: keysDb } })
  return made.stdout.toString().trim().split('\n').pop()!
}

beforeAll(async () => {
  if (!ready) return
  redis = await startRedis()
  if (!redis) return
  server = await spawnServer({ WORKERS: '2', REDIS_URL: redis.url, KEYS_DB: keysDb, INDEX_DIR: process.env.INDEX_DIR!, RATE_LIMIT_HOURLY: '60', RATE_LIMIT_CONCURRENT: '1000', WATCH_INDEX: '0',
    // Exact sharing is what this test checks: a Redis slowed by a loaded machine must not turn decisions local (fail open).
    REDIS_COMMAND_TIMEOUT_MS: '10000' })
  await server.waitFor('supervisor.started')
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = probe.port
  probe.stop(true)
  const cfg = join(work, 'haproxy.cfg')
  writeFileSync(cfg, haproxyConfig({ bind: `127.0.0.1:${port}`, servers: [`127.0.0.1:${server.port}`], checkIntervalMs: 200, connectionsPerSource: 1000 }))
  lb = Bun.spawn([haproxyBin!, '-f', cfg, '-db'], { stdout: 'ignore', stderr: 'ignore' })
  lbUrl = `http://127.0.0.1:${port}`
  const until = Date.now() + 15_000
  for (;;) {
    const ok = await fetch(`${lbUrl}/health`, { keepalive: false }).then((r) => r.status === 200, () => false)
    if (ok) break
    if (Date.now() > until) throw new Error('HAProxy did not answer /health')
    await Bun.sleep(100)
  }
}, 60_000)

afterAll(async () => {
  lb?.kill('SIGKILL')
  await server?.stop().catch(() => {})
  await redis?.stop()
  rmSync(work, { recursive: true, force: true })
})

test.skipIf(!ready)('through HAProxy and WORKERS=2, the SDK client on a new connection per message gets the HTTP API\'s answers, and one key\'s POSTs with tool calls share one budget, one request each (80 concurrent admit at most 60, and at least 60 less the documented lease slack of two instances)', async () => {
  expect(redis).toBeDefined()
  const key = makeKey('mcp-cluster@example.com')
  // A new connection per message: the kernel hands them to either worker.
  const fresh = (url: string | URL, init?: RequestInit) => fetch(url, { ...init, keepalive: false })
  const client = new Client({ name: 'mcp-cluster-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(lbUrl + '/mcp'), { fetch: fresh, requestInit: { headers: { 'x-api-key': key } } }))
  type Item = { id: number; attributes: { sol: number }; relationships: { rover: { id: string }; camera: { id: string } } }
  const http = await (await fetch(`${lbUrl}/api/v2/photos?rovers=perseverance&per_page=25&include=rover,camera`, { headers: { 'x-api-key': key } })).json() as { data: Item[]; meta: { total_count: number } }
  for (let i = 0; i < 6; i++) {
    const r = (await client.callTool({ name: 'search_photos', arguments: { rovers: 'perseverance' } })) as { content: { text: string }[]; isError?: boolean }
    expect(r.isError).toBeUndefined()
    const body = JSON.parse(r.content[0]!.text) as { total: number; photos: { id: number; rover: string; camera: string; sol: number }[] }
    expect(body.total).toBe(http.meta.total_count)
    expect(body.photos.map((p) => [p.id, p.rover, p.camera, p.sol])).toEqual(http.data.map((p) => [p.id, p.relationships.rover.id, p.relationships.camera.id, p.attributes.sol]))
  }
  await client.close()

  const low = makeKey('mcp-cluster-low@example.com')
  // Each POST carries a tool call and counts once.
  const message = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_cameras', arguments: {} } })
  const statuses = await Promise.all(
    Array.from({ length: 80 }, () =>
      fetch(`${lbUrl}/mcp`, { method: 'POST', keepalive: false, headers: { 'x-api-key': low, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: message }).then(async (r) => (await r.arrayBuffer(), r.status)),
    ),
  )
  expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([])
  // Units one worker leased and did not use may be refused to the other (docs/scale-out.md):
  // at most one block per instance, a sixteenth of the budget. A POST counted twice would admit 30.
  const slack = 2 * Math.max(1, Math.floor(60 / 16))
  const admitted = statuses.filter((s) => s === 200).length
  expect(admitted).toBeLessThanOrEqual(60)
  expect(admitted).toBeGreaterThanOrEqual(60 - slack)
  expect(statuses.filter((s) => s === 429).length).toBe(80 - admitted)
}, 60_000)
