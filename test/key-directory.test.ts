import { afterAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { join } from 'node:path'
import { hashKey } from '../src/keys/api-key'
import { KeyStoreError, type KeyDirectory } from '../src/keys/key-directory'
import { keyStoreKinds } from './setup/key-stores'

// A test may be the first to start this process's PostgreSQL cluster (initdb, a few seconds on a loaded machine).
setDefaultTimeout(30_000)

const ROOT = join(import.meta.dir, '..')
const KEY = /^mv_live_[0-9a-f]{40}$/
const LIMITS = { perAddress: 2, perClient: 3, windowMs: 3600_000, perMailbox: 3, mailboxWindowMs: 900_000 }
const h = (s: string) => hashKey(s) // any SHA-256 stands for a token or session hash here

/** The error a store call throws or rejects with (SQLite throws, PostgreSQL rejects). */
async function caught(f: () => unknown): Promise<unknown> {
  try {
    await f()
  } catch (e) {
    return e
  }
  return undefined
}

/** Calls `lookup` until it answers `want` or `ms` pass; returns how long that took. */
async function until(store: KeyDirectory, key: string, want: boolean, ms: number): Promise<number> {
  const t0 = performance.now()
  while (performance.now() - t0 < ms) {
    if (Boolean(await store.lookup(key)) === want) return performance.now() - t0
    await Bun.sleep(10)
  }
  return Infinity
}

for (const kind of keyStoreKinds()) {
  describe(`key store on ${kind.name}`, () => {
    const open: KeyDirectory[] = []
    afterAll(async () => {
      for (const s of open) await s.close()
    })
    const fresh = async () => {
      const where = await kind.fresh()
      const s = await kind.open(where)
      open.push(s)
      return { s, where }
    }

    test('a feed token answers for its active key, is stored only hashed, replaces the earlier one, and ends with regenerate, revoke and account deletion', async () => {
      const { s } = await fresh()
      expect(await caught(() => s.createFeedToken('nobody@example.org'))).toBeInstanceOf(KeyStoreError)
      await s.create('reader@example.org', { daily: 5 })
      expect(await s.hasFeedToken('reader@example.org')).toBe(false)
      const token = await s.createFeedToken('Reader@Example.org')
      expect(token).toMatch(/^mv_feed_[0-9a-f]{40}$/)
      expect(await s.hasFeedToken('reader@example.org')).toBe(true)
      expect(await s.lookupFeedToken(token)).toMatchObject({ email: 'reader@example.org', limits: { daily: 5 } })
      // Not a key: the key lookup refuses it, and a key is no feed token.
      expect(await s.lookup(token)).toBeUndefined()
      const second = await s.createFeedToken('reader@example.org')
      expect(await s.lookupFeedToken(token)).toBeUndefined()
      expect((await s.lookupFeedToken(second))!.email).toBe('reader@example.org')
      await s.regenerate('reader@example.org')
      expect(await s.lookupFeedToken(second)).toBeUndefined()
      expect(await s.hasFeedToken('reader@example.org')).toBe(false)
      const third = await s.createFeedToken('reader@example.org')
      await s.revoke('reader@example.org')
      expect(await s.lookupFeedToken(third)).toBeUndefined()
      expect(await caught(() => s.createFeedToken('reader@example.org'))).toBeInstanceOf(KeyStoreError)
      await s.regenerate('reader@example.org')
      const fourth = await s.createFeedToken('reader@example.org')
      await s.deleteAccount('reader@example.org')
      expect(await s.lookupFeedToken(fourth)).toBeUndefined()
    })

    test('create, lookup, regenerate, revoke, limits, list and keyOf behave the same on this store', async () => {
      const { s } = await fresh()
      const key = await s.create(' Owner@Example.ORG ', { hourly: 7 })
      expect(key).toMatch(KEY)
      expect(await s.lookup(key)).toMatchObject({ email: 'owner@example.org', limits: { hourly: 7 } })
      expect(await s.lookup(key.toUpperCase())).toBeUndefined()
      expect(await caught(() => s.create('owner@example.org'))).toBeInstanceOf(KeyStoreError)
      const next = await s.regenerate('OWNER@example.org')
      expect(await s.lookup(key)).toBeUndefined()
      expect((await s.lookup(next))!.email).toBe('owner@example.org')
      await s.setLimits('owner@example.org', { hourly: null, daily: 9 })
      expect((await s.keyOf('owner@example.org'))!.limits).toEqual({ daily: 9 })
      await s.revoke('owner@example.org')
      expect(await s.lookup(next)).toBeUndefined()
      expect((await s.list()).map((k) => [k.email, k.status])).toEqual([['owner@example.org', 'revoked']])
      expect(await s.keyOf('nobody@example.org')).toBeUndefined()
      expect(await caught(() => s.revoke('nobody@example.org'))).toBeInstanceOf(KeyStoreError)
      expect(await caught(() => s.create('not an address'))).toBeInstanceOf(KeyStoreError)
    })

    test('a sign-in link is redeemed once, not after its expiry, and limits count per address and client, per client, and per mailbox', async () => {
      const { s } = await fresh()
      const now = 1_800_000_000_000
      expect(await s.issueSignIn(h('t1'), 'a@example.org', '10.0.0.1', now, 900_000, LIMITS)).toBe('issued')
      expect(await s.issueSignIn(h('t2'), 'A@example.org', '10.0.0.1', now, 900_000, LIMITS)).toBe('issued')
      expect(await s.issueSignIn(h('t3'), 'a@example.org', '10.0.0.1', now, 900_000, LIMITS)).toBe('address-limit')
      expect(await s.issueSignIn(h('t3b'), 'a@example.org', '10.0.0.3', now, 900_000, LIMITS)).toBe('issued') // another client still gets one
      expect(await s.issueSignIn(h('t3c'), 'a@example.org', '10.0.0.4', now, 900_000, LIMITS)).toBe('mailbox-full')
      expect(await s.issueSignIn(h('t3d'), 'a@example.org', '10.0.0.4', now + 900_001, 900_000, LIMITS)).toBe('issued') // the mailbox window is a link's life
      expect(await s.issueSignIn(h('t4'), 'b@example.org', '10.0.0.1', now, 900_000, LIMITS)).toBe('issued')
      expect(await s.issueSignIn(h('t6'), 'd@example.org', '10.0.0.1', now, 900_000, LIMITS)).toBe('client-limit')
      // An hour later the window has moved on.
      expect(await s.issueSignIn(h('t7'), 'a@example.org', '10.0.0.1', now + 3600_001, 900_000, LIMITS)).toBe('issued')
      expect(await s.redeemSignIn(h('t1'), now + 1000)).toBe('a@example.org')
      expect(await s.redeemSignIn(h('t1'), now + 2000)).toBeUndefined()
      expect(await s.redeemSignIn(h('t2'), now + 900_000)).toBeUndefined() // expired at exactly its TTL
      expect(await s.redeemSignIn(h('t3b'), now + 1000)).toBe('a@example.org')
      expect(await s.redeemSignIn(h('t3'), now)).toBeUndefined() // refused links were never stored
    })

    test('twenty concurrent redemptions of one link: exactly one succeeds', async () => {
      const { s, where } = await fresh()
      const other = await kind.open(where)
      open.push(other)
      const now = Date.now()
      await s.issueSignIn(h('race'), 'race@example.org', 'c', now, 900_000, LIMITS)
      const got = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? other : s).redeemSignIn(h('race'), now + 1)))
      expect(got.filter(Boolean)).toEqual(['race@example.org'])
    })

    test('sessions: found by hash until they expire or end; account deletion erases key, sessions and links', async () => {
      const { s } = await fresh()
      const now = Date.now()
      const key = await s.create('gone@example.org')
      await s.startSession(h('s1'), 'gone@example.org', now, 1000)
      expect(await s.session(h('s1'), now + 999)).toEqual({ email: 'gone@example.org', expiresAt: now + 1000 })
      expect(await s.session(h('s1'), now + 1000)).toBeUndefined()
      await s.startSession(h('s2'), 'gone@example.org', now, 60_000)
      await s.startSession(h('s3'), 'kept@example.org', now, 60_000)
      await s.endSession(h('s3'))
      expect(await s.session(h('s3'), now)).toBeUndefined()
      await s.issueSignIn(h('l1'), 'gone@example.org', 'c', now, 900_000, LIMITS)
      await s.deleteAccount('gone@example.org')
      expect(await s.lookup(key)).toBeUndefined()
      expect(await s.keyOf('gone@example.org')).toBeUndefined()
      expect(await s.session(h('s2'), now)).toBeUndefined()
      expect(await s.redeemSignIn(h('l1'), now)).toBeUndefined()
    })

    test('a key regenerated or revoked on one instance stops working on another running instance within 1 s', async () => {
      const { s: a, where } = await fresh()
      const b = await kind.open(where)
      open.push(b)
      const key = await a.create('shared@example.org')
      expect(await b.lookup(key)).toBeDefined() // now cached by b
      expect(await b.lookup(key)).toBeDefined()
      const fresh2 = await a.regenerate('shared@example.org')
      expect(await until(b, key, false, 1000)).toBeLessThan(1000)
      expect(await until(b, fresh2, true, 1000)).toBeLessThan(1000)
      await b.revoke('shared@example.org')
      expect(await until(a, fresh2, false, 1000)).toBeLessThan(1000)
    })

    test('the keys CLI works on this store and sees the keys the service made', async () => {
      const { s, where } = await fresh()
      await s.create('from-service@example.org')
      const cli = (...args: string[]) => {
        const r = Bun.spawnSync([process.execPath, 'scripts/keys.ts', ...args], { cwd: ROOT, env: { ...process.env, KEYS_DB: where } })
        return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() }
      }
      const created = cli('create', '--email', ' From-CLI@Example.org ')
      expect(created.code).toBe(0)
      const key = created.out.trimEnd().split('\n').at(-1)!
      expect(key).toMatch(KEY)
      expect(await until(s, key, true, 1000)).toBeLessThan(1000)
      const listed = JSON.parse(cli('list', '--json').out) as Array<{ email: string }>
      expect(listed.map((r) => r.email)).toEqual(['from-cli@example.org', 'from-service@example.org'])
      const bad = cli('create', '--email', 'bidi\u202e@example.org')
      expect(bad.code).toBe(2)
      expect(bad.err).toContain('text-direction')
    })
  })
}
