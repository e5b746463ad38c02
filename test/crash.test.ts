import { afterAll, describe, expect, test } from 'bun:test'
import { cpSync, existsSync, mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { KeyStore } from '../src/keys/key-store'
import { loadStore } from '../src/store/load-store'
import { startRedis } from './setup/redis'
import { spawnServer, type ServerProcess } from './setup/test-app'
import { copyIndex as copyIndexInto } from './setup/index-copy'

/**
 * Crashes lose nothing (docs/reliability.md, "Crashes"): `kill -9` of the index builder at
 * spread-out points of its run never damages the served index, and a service killed with
 * `kill -9` comes back with its keys (SQLite) and, with Redis, its rate-limit counts; with the
 * in-memory store the counts restart from zero (the documented behaviour).
 */
const ROOT = join(import.meta.dir, '..')
const RAW = join(ROOT, '../shared/data/raw')
const EXTRA = join(ROOT, 'test/fixtures/feeds/m2020-raw-images-page.json')
const INDEX = process.env.INDEX_DIR!
const work = mkdtempSync(join(tmpdir(), 'mv-crash-'))
const servers: ServerProcess[] = []
afterAll(async () => {
  for (const s of servers) await s.stop('SIGKILL')
  rmSync(work, { recursive: true, force: true })
})

const copyIndex = (name: string) => copyIndexInto(work, name)

function newKeyFile(name: string, limits = { hourly: 1_000_000, daily: 1_000_000, concurrent: 1_000 }) {
  const path = join(work, name)
  const keys = KeyStore.open(path)
  const key = keys.create(`${name}@example.com`, limits)
  const revoked = keys.create(`${name}-revoked@example.com`)
  keys.revoke(`${name}-revoked@example.com`)
  keys.close()
  return { path, key, revoked }
}

const builder = (out: string) =>
  Bun.spawn([process.execPath, 'index-builder/cli.ts', '--out', out, '--keep', '3', RAW, EXTRA], { cwd: ROOT, stdout: 'ignore', stderr: 'ignore' })

describe('kill -9 of the index builder', () => {
  test('at 7 points spread over its run, the served index stays loadable (SHA-256 checked) and keeps serving; the next build cleans up and publishes', async () => {
    const { dir, version: a } = copyIndex('served')
    const keys = newKeyFile('builder-keys')
    const s = await spawnServer({ KEYS_DB: keys.path, INDEX_DIR: dir, WATCH_INDEX: '1' })
    servers.push(s)

    // How long one uninterrupted build takes here, into a scratch folder.
    const t0 = performance.now()
    expect(await builder(join(work, 'timing')).exited).toBe(0)
    const buildMs = performance.now() - t0

    const outcomes: string[] = []
    for (const fraction of [0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95]) {
      const p = builder(dir)
      await Bun.sleep(Math.round(buildMs * fraction))
      p.kill('SIGKILL')
      await p.exited
      // Whatever moment it died at, `current` names a complete version: the old one, or the new one if it was published.
      const store = await loadStore(dir, { verify: 'sha256' })
      expect(store.manifest.rows.photos).toBeGreaterThan(0)
      outcomes.push(store.version === a ? 'old' : 'new')
      const h = await fetch(`${s.url}/health`)
      expect(h.status).toBe(200)
      const r = await fetch(`${s.url}/api/v2/photos?per_page=1`, { headers: { 'x-api-key': keys.key } })
      expect(r.status).toBe(200)
    }
    expect(outcomes).toContain('old') // most kills land before the publish step
    expect(s.proc.exitCode).toBeNull()
    expect(s.lines.filter((l) => l.includes('"index.reload-refused"') || l.includes('"request.failed"'))).toEqual([])

    // A build that runs to the end removes the staging folders the killed ones left, and publishes.
    const p = builder(dir)
    expect(await p.exited).toBe(0)
    expect(readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual([])
    const b = readlinkSync(join(dir, 'current'))
    expect(b).not.toBe(a)
    expect((await loadStore(dir, { verify: 'sha256' })).version).toBe(b)
  }, 90_000)
})

describe('kill -9 of the service, then a restart', () => {
  test('keys survive in SQLite: the valid key answers, the revoked one stays refused, a key created while it was down works', async () => {
    const keys = newKeyFile('restart-keys')
    const first = await spawnServer({ KEYS_DB: keys.path })
    servers.push(first)
    const get = (url: string, key: string) => fetch(`${url}/api/v2/rovers`, { headers: { 'x-api-key': key } }).then((r) => r.status)
    expect(await get(first.url, keys.key)).toBe(200)
    expect(await get(first.url, keys.revoked)).toBe(401)
    expect(await first.stop('SIGKILL')).not.toBe(0)
    expect(existsSync(`${keys.path}-wal`)).toBe(true) // killed: SQLite did not get to close

    const store = KeyStore.open(keys.path)
    const later = store.create('while-down@example.com')
    store.close()
    const second = await spawnServer({ KEYS_DB: keys.path })
    servers.push(second)
    expect(await get(second.url, keys.key)).toBe(200)
    expect(await get(second.url, keys.revoked)).toBe(401)
    expect(await get(second.url, later)).toBe(200)
    expect(await second.stop('SIGTERM')).toBe(0)
    expect(existsSync(`${keys.path}-wal`)).toBe(false) // closed cleanly: the WAL was checkpointed and removed
  }, 30_000)

  test('in-memory limits restart from zero (documented); Redis limits survive: the count goes on and the limit still refuses', async () => {
    const keys = newKeyFile('restart-limits', { hourly: 5, daily: 1_000, concurrent: 10 })
    const remaining = async (s: ServerProcess) => {
      const r = await fetch(`${s.url}/api/v2/rovers`, { headers: { 'x-api-key': keys.key } })
      return r.status === 429 ? 'refused' : r.headers.get('x-ratelimit-remaining')
    }

    const memory = await spawnServer({ KEYS_DB: keys.path })
    servers.push(memory)
    expect([await remaining(memory), await remaining(memory), await remaining(memory)]).toEqual(['4', '3', '2'])
    await memory.stop('SIGKILL')
    const memoryAgain = await spawnServer({ KEYS_DB: keys.path })
    servers.push(memoryAgain)
    expect(await remaining(memoryAgain)).toBe('4') // counts were in the killed process
    await memoryAgain.stop('SIGTERM')

    const redis = await startRedis()
    if (!redis) return // startRedis printed why (no redis-server): the Redis half does not run
    try {
      const withRedis = await spawnServer({ KEYS_DB: keys.path, REDIS_URL: redis.url })
      servers.push(withRedis)
      expect([await remaining(withRedis), await remaining(withRedis), await remaining(withRedis)]).toEqual(['4', '3', '2'])
      await withRedis.stop('SIGKILL')
      const back = await spawnServer({ KEYS_DB: keys.path, REDIS_URL: redis.url })
      servers.push(back)
      // The killed process may have held one leased unit unused: it stays counted (never over the
      // limit, at most one block under it: docs/scale-out.md).
      const after = [await remaining(back), await remaining(back), await remaining(back)]
      expect<Array<Array<string | null>>>([['1', '0', 'refused'], ['0', 'refused', 'refused']]).toContainEqual(after)
      expect(await back.stop('SIGTERM')).toBe(0)
    } finally {
      await redis.stop()
    }
  }, 30_000)
})
