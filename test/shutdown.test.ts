import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KeyStore } from '../src/keys/key-store'
import { startRedis } from './setup/redis'
import { spawnServer, type ServerProcess } from './setup/test-app'

/**
 * Graceful shutdown (docs/reliability.md, "Shutdown"): on SIGTERM the server stops accepting,
 * lets the request in flight finish (here a batch whose body is still arriving), closes Redis and
 * SQLite and exits 0; past the deadline (SHUTDOWN_TIMEOUT_S) it closes what is left and still exits 0.
 */
const work = mkdtempSync(join(tmpdir(), 'mv-shutdown-'))
const servers: ServerProcess[] = []
afterAll(async () => {
  for (const s of servers) await s.stop('SIGKILL')
  rmSync(work, { recursive: true, force: true })
})

function keyFile(name: string) {
  const path = join(work, `${name}.sqlite`)
  const keys = KeyStore.open(path)
  const key = keys.create(`${name}@example.com`)
  keys.close()
  return { path, key }
}

/** A batch request whose body is sent in two parts: the head and the first bytes now, the rest on finish(). */
async function heldBatch(port: number, key: string, ids: number[]) {
  const body = JSON.stringify({ ids })
  const split = Math.floor(body.length / 2)
  let received = ''
  let resolveClosed!: () => void
  const closed = new Promise<void>((r) => (resolveClosed = r))
  const socket = await Bun.connect({
    hostname: '127.0.0.1',
    port,
    socket: {
      data(_s, d) {
        received += d.toString()
      },
      close: () => resolveClosed(),
      error: () => resolveClosed(),
    },
  })
  socket.write(`POST /api/v2/photos/batch HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body.slice(0, split)}`)
  return {
    finish: () => socket.write(body.slice(split)),
    /** Everything the server sent, once it closed the connection. */
    answer: async () => {
      await closed
      return received
    },
  }
}

async function photoIds(s: ServerProcess, key: string): Promise<number[]> {
  const r = await fetch(`${s.url}/api/v2/photos?per_page=3`, { headers: { 'x-api-key': key } })
  return ((await r.json()) as { data: Array<{ id: number }> }).data.map((p) => p.id)
}

const stoppedLine = (s: ServerProcess) => JSON.parse(s.lines.find((l) => l.includes('"server.stopped"'))!)

describe('SIGTERM', () => {
  test('a batch whose body is still arriving finishes with its 200 after SIGTERM; new connections are refused; SQLite is closed; exit 0', async () => {
    const keys = keyFile('drain')
    const s = await spawnServer({ KEYS_DB: keys.path })
    servers.push(s)
    const ids = await photoIds(s, keys.key)
    const held = await heldBatch(s.port, keys.key, ids)
    await Bun.sleep(200) // the request is in the server, waiting for the rest of its body
    s.proc.kill('SIGTERM')
    await s.waitFor('server.stopping')
    expect(await fetch(`${s.url}/health`).then(() => 'answered', () => 'refused')).toBe('refused')
    held.finish()
    const answer = await held.answer()
    expect(answer).toStartWith('HTTP/1.1 200')
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))
    expect(body.data.map((p: { id: number }) => p.id)).toEqual(ids)
    expect(await s.proc.exited).toBe(0)
    expect(stoppedLine(s)).toMatchObject({ signal: 'SIGTERM', outcome: 'drained', limits: 'memory', limits_closed: 'closed', keys_closed: true })
    expect(existsSync(`${keys.path}-wal`)).toBe(false) // the last connection closed: SQLite checkpointed and removed its WAL
  }, 30_000)

  test('with Redis: the counter store connection is closed before exit, and the counts stay in Redis', async () => {
    const redis = await startRedis()
    if (!redis) return // startRedis printed why
    try {
      const keys = keyFile('drain-redis')
      const s = await spawnServer({ KEYS_DB: keys.path, REDIS_URL: redis.url })
      servers.push(s)
      expect((await fetch(`${s.url}/api/v2/rovers`, { headers: { 'x-api-key': keys.key } })).status).toBe(200)
      expect(await s.stop('SIGTERM')).toBe(0)
      expect(stoppedLine(s)).toMatchObject({ outcome: 'drained', limits: 'redis', limits_closed: 'closed', keys_closed: true })
      const again = await spawnServer({ KEYS_DB: keys.path, REDIS_URL: redis.url })
      servers.push(again)
      const r = await fetch(`${again.url}/api/v2/rovers`, { headers: { 'x-api-key': keys.key } })
      expect(r.headers.get('x-ratelimit-remaining')).toBe('9998') // the call before the restart still counts
      expect(await again.stop('SIGTERM')).toBe(0)
    } finally {
      await redis.stop()
    }
  }, 30_000)

  test('past SHUTDOWN_TIMEOUT_S a request that never completes is cut, and the server still closes everything and exits 0', async () => {
    const keys = keyFile('deadline')
    const s = await spawnServer({ KEYS_DB: keys.path, SHUTDOWN_TIMEOUT_S: '1', BODY_TIMEOUT_S: '60' })
    servers.push(s)
    const held = await heldBatch(s.port, keys.key, [1, 2, 3])
    await Bun.sleep(200)
    s.proc.kill('SIGTERM')
    expect(await s.proc.exited).toBe(0)
    expect(await held.answer()).not.toStartWith('HTTP/1.1 2') // cut: no answer, or an error answer
    expect(stoppedLine(s)).toMatchObject({ outcome: 'deadline', limits_closed: 'closed', keys_closed: true })
  }, 30_000)
})
