import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { hashKey } from '../src/keys/api-key'
import { INVALID_KEY_DETAIL } from '../src/keys/authenticate'
import { makeTestApp, spawnServer, type ServerProcess } from './setup/test-app'

/** Response JSON, untyped (tests assert on its fields). */
const json = (r: Response): Promise<any> => r.json()

const ROOT = join(import.meta.dir, '..')
const dir = mkdtempSync(join(tmpdir(), 'mv-cli-'))
const KEYS_DB = join(dir, 'keys.sqlite')
const servers: ServerProcess[] = []
afterAll(async () => {
  for (const s of servers) await s.stop()
  rmSync(dir, { recursive: true, force: true })
})

function keysCli(...args: string[]) {
  const r = Bun.spawnSync([process.execPath, 'scripts/keys.ts', ...args], { cwd: ROOT, env: { ...process.env, KEYS_DB } })
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() }
}
const lastLine = (s: string) => s.trimEnd().split('\n').at(-1)!
const KEY = /^mv_live_[0-9a-f]{40}$/

describe('npm run keys', () => {
  test('`npm run keys -- create --email E` prints the new key once, as the last line of stdout', () => {
    const r = Bun.spawnSync(['npm', 'run', '--silent', 'keys', '--', 'create', '--email', 'npm@example.com'], { cwd: ROOT, env: { ...process.env, KEYS_DB } })
    expect(r.exitCode).toBe(0)
    const out = r.stdout.toString()
    const key = lastLine(out)
    expect(key).toMatch(KEY)
    expect(out.split(key).length).toBe(2) // once
  }, 30_000)

  test('a created key works; after regenerate the old one gets 401 and the new one works, in an app that was already running', async () => {
    const t = await makeTestApp({ keysDb: KEYS_DB })
    try {
      const created = keysCli('create', '--email', 'Alice@Example.com')
      expect(created.code).toBe(0)
      const oldKey = lastLine(created.out)
      expect(oldKey).toMatch(KEY)
      expect((await t.request('/api/v2', { headers: { 'x-api-key': oldKey } })).status).toBe(200) // now cached as a hit

      const regenerated = keysCli('regenerate', '--email', 'alice@example.com')
      expect(regenerated.code).toBe(0)
      const newKey = lastLine(regenerated.out)
      expect(newKey).toMatch(KEY)
      expect(newKey).not.toBe(oldKey)
      const r = await t.request('/api/v2', { headers: { 'x-api-key': oldKey } })
      expect(r.status).toBe(401)
      expect((await json(r)).detail).toBe(INVALID_KEY_DETAIL)
      expect((await t.request('/api/v2', { headers: { 'x-api-key': newKey } })).status).toBe(200)

      expect(keysCli('revoke', '--email', 'alice@example.com').code).toBe(0)
      expect((await t.request('/api/v2', { headers: { 'x-api-key': newKey } })).status).toBe(401)
    } finally {
      await t.close()
    }
  }, 30_000)

  test('the same lifecycle against a running `bun app/server.ts` over HTTP', async () => {
    const s = await spawnServer({ KEYS_DB })
    servers.push(s)
    const get = (key: string) => fetch(`${s.url}/api/v2`, { headers: { 'x-api-key': key } })
    const k1 = lastLine(keysCli('create', '--email', 'bob@example.com').out)
    expect((await get(k1)).status).toBe(200)
    const k2 = lastLine(keysCli('regenerate', '--email', 'bob@example.com').out)
    expect((await get(k1)).status).toBe(401)
    expect((await get(k2)).status).toBe(200)
    expect(keysCli('revoke', '--email', 'bob@example.com').code).toBe(0)
    expect((await get(k2)).status).toBe(401)
    const k3 = lastLine(keysCli('regenerate', '--email', 'bob@example.com').out) // re-activates with a new key
    expect((await get(k3)).status).toBe(200)
    expect(s.lines.join('\n')).not.toContain(k3.slice(8))
  }, 30_000)

  test('create with limits stores them; `limits` changes them; list shows owners, dates, status and limits, never key values or hashes', async () => {
    const created = keysCli('create', '--email', 'bench@example.com', '--hourly', '1000000', '--daily', '10000000', '--concurrent', '500')
    expect(created.code).toBe(0)
    const key = lastLine(created.out)
    const t = await makeTestApp({ keysDb: KEYS_DB })
    try {
      const r = await t.request('/api/v2', { headers: { 'x-api-key': key } })
      expect(r.headers.get('x-ratelimit-limit')).toBe('1000000')
      expect(keysCli('limits', '--email', 'bench@example.com', '--hourly', 'default').code).toBe(0)
      expect((await t.request('/api/v2', { headers: { 'x-api-key': key } })).headers.get('x-ratelimit-limit')).toBe('10000')
    } finally {
      await t.close()
    }
    const list = keysCli('list')
    expect(list.code).toBe(0)
    expect(list.out).toContain('bench@example.com')
    expect(list.out).toMatch(/alice@example\.com\s+revoked/)
    expect(list.out).toMatch(/bench@example\.com\s+active\s+\d{4}-\d\d-\d\dT/)
    expect(list.out).toContain('daily=10000000 concurrent=500')
    expect(list.out).not.toContain(key)
    expect(list.out).not.toContain(hashKey(key))
    expect(list.out).not.toMatch(/mv_live_/)
    const json = JSON.parse(keysCli('list', '--json').out) as Array<Record<string, unknown>>
    expect(Object.keys(json[0]!).sort()).toEqual(['created_at', 'email', 'id', 'limits', 'status', 'updated_at'])
  }, 30_000)

  test('one key per e-mail; unknown owners, bad e-mails and bad options fail with a message and a non-zero exit', () => {
    const dup = keysCli('create', '--email', 'npm@example.com')
    expect(dup.code).not.toBe(0)
    expect(dup.err).toContain('already has a key')
    expect(dup.out).not.toMatch(/mv_live_/)
    expect(keysCli('regenerate', '--email', 'nobody@example.com').err).toContain('no key for nobody@example.com')
    expect(keysCli('revoke', '--email', 'nobody@example.com').code).not.toBe(0)
    expect(keysCli('create', '--email', 'not-an-email').code).not.toBe(0)
    expect(keysCli('create', '--email', 'x@example.com', '--hourly', '-5').code).not.toBe(0)
    expect(keysCli('create').code).not.toBe(0)
    expect(keysCli('frobnicate').code).not.toBe(0)
  }, 30_000)
})
