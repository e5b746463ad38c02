import { SQL } from 'bun'
import { redactUrl } from '../redact-url'
import { generateFeedToken, generateKey, hashKey, isWellFormedFeedToken, isWellFormedKey } from './api-key'
import {
  KeyStoreError,
  ownerEmail as normaliseEmail,
  SIGN_IN_RETENTION_MS,
  type KeyDirectory,
  type KeyLimits,
  type KeyListing,
  type KeyRecord,
  type SessionRecord,
  signInOutcome,
  type SignInIssue,
  type SignInLimits,
} from './key-directory'
import { KeyLookupCache } from './lookup-cache'
import { FEED_KEY_COLUMNS, KEY_COLUMNS, POSTGRES_SCHEMA, toListing, toRecord, type KeyRow } from './key-schema'

export interface PgKeyStoreOptions {
  /** Lifetime of cached lookups (hits and misses), ms: the bound when the generation poll cannot reach the server. */
  cacheTtlMs?: number
  cacheEntries?: number
  /** How often each instance reads key_meta.generation to drop cached lookups after another instance's change, ms. */
  pollMs?: number
  /** Connections in the pool. */
  max?: number
}


/**
 * The key store in PostgreSQL (KEYS_DB=postgres://…) through Bun's built-in SQL client, for
 * several instances behind one load balancer. Same tables and behaviour as the SQLite file
 * (./key-store.ts, ./key-schema.ts).
 *
 * Lookups are answered from an LRU cache of hits and misses when it holds the key (no I/O; the
 * caller gets a direct value), else with one indexed SELECT. Every change bumps
 * key_meta.generation in its own transaction; each instance reads the generation every `pollMs`
 * (250 ms) and clears its cache when it moved, so a key regenerated or revoked on one instance
 * stops working on every other within pollMs plus a query — under the 1 s the service promises
 * (decisions.md, Sign-in links in the log). A poll that fails clears the cache too: an instance
 * cut off from the database must not keep trusting what it cannot check.
 */
export class PgKeyStore implements KeyDirectory {
  readonly kind = 'postgres' as const
  readonly location: string
  readonly #sql: SQL
  readonly #cache: KeyLookupCache
  readonly #timer: ReturnType<typeof setInterval>
  #generation = -1
  #polling = false

  private constructor(url: string, sql: SQL, opts: PgKeyStoreOptions) {
    this.location = redactUrl(url)
    this.#sql = sql
    this.#cache = new KeyLookupCache(opts.cacheEntries ?? 10_000, opts.cacheTtlMs ?? 10_000)
    this.#timer = setInterval(() => void this.#poll(), opts.pollMs ?? 250)
    this.#timer.unref?.()
  }

  /** Connects, creates the tables when missing, and starts the generation poll. */
  static async open(url: string, opts: PgKeyStoreOptions = {}): Promise<PgKeyStore> {
    const sql = new SQL({ url, max: opts.max ?? 8, idleTimeout: 30 })
    try {
      // Two instances starting together may both create the tables: serialise on an advisory lock.
      await sql.begin(async (tx) => {
        await tx.unsafe(`SELECT pg_advisory_xact_lock(7264001)`)
        await tx.unsafe(POSTGRES_SCHEMA)
      })
    } catch (e) {
      await sql.close().catch(() => {})
      throw e
    }
    const store = new PgKeyStore(url, sql, opts)
    store.#generation = await store.generation()
    return store
  }

  lookup(key: string): KeyRecord | undefined | Promise<KeyRecord | undefined> {
    if (!isWellFormedKey(key)) return undefined
    const hash = hashKey(key)
    const hit = this.#cache.get(hash)
    if (hit !== undefined) return hit ?? undefined
    return this.#load(hash)
  }

  async #load(hash: string): Promise<KeyRecord | undefined> {
    const generation = this.#generation
    const rows = (await this.#sql.unsafe(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE key_hash = $1`, [hash])) as KeyRow[]
    const row = rows[0]
    // A change seen while the query ran may have made this row stale: answer it, but do not cache it.
    return this.#cache.answer(hash, row, generation === this.#generation)
  }

  async create(email: string, limits: KeyLimits = {}): Promise<string> {
    const owner = normaliseEmail(email)
    const key = generateKey()
    const now = new Date().toISOString()
    await this.#change(async (tx) => {
      const exists = await tx.unsafe(`SELECT 1 FROM api_keys WHERE email = $1`, [owner])
      if (exists.length) throw new KeyStoreError(`${owner} already has a key; use "regenerate" to replace it`)
      await tx.unsafe(
        `INSERT INTO api_keys (email, key_hash, status, created_at, updated_at, hourly_limit, daily_limit, concurrent_limit)
         VALUES ($1, $2, 'active', $3, $3, $4, $5, $6)`,
        [owner, hashKey(key), now, limits.hourly ?? null, limits.daily ?? null, limits.concurrent ?? null],
      )
    }, owner)
    return key
  }

  async regenerate(email: string): Promise<string> {
    const owner = normaliseEmail(email)
    const key = generateKey()
    await this.#change(async (tx) => {
      const r = await tx.unsafe(`UPDATE api_keys SET key_hash = $1, status = 'active', updated_at = $2 WHERE email = $3 RETURNING id`, [hashKey(key), new Date().toISOString(), owner])
      if (r.length === 0) throw new KeyStoreError(`no key for ${owner}; use "create"`)
      await tx.unsafe(`DELETE FROM feed_tokens WHERE email = $1`, [owner])
    }, owner)
    return key
  }

  async revoke(email: string): Promise<void> {
    const owner = normaliseEmail(email)
    await this.#change(async (tx) => {
      const r = await tx.unsafe(`UPDATE api_keys SET status = 'revoked', updated_at = $1 WHERE email = $2 RETURNING id`, [new Date().toISOString(), owner])
      if (r.length === 0) throw new KeyStoreError(`no key for ${owner}`)
      await tx.unsafe(`DELETE FROM feed_tokens WHERE email = $1`, [owner])
    }, owner)
  }

  async setLimits(email: string, limits: { hourly?: number | null; daily?: number | null; concurrent?: number | null }): Promise<void> {
    const owner = normaliseEmail(email)
    await this.#change(async (tx) => {
      const rows = (await tx.unsafe(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE email = $1 FOR UPDATE`, [owner])) as KeyRow[]
      const row = rows[0]
      if (!row) throw new KeyStoreError(`no key for ${owner}`)
      const pick = (v: number | null | undefined, old: number | null) => (v === undefined ? old : v)
      await tx.unsafe(`UPDATE api_keys SET hourly_limit = $1, daily_limit = $2, concurrent_limit = $3, updated_at = $4 WHERE email = $5`, [
        pick(limits.hourly, row.hourly_limit),
        pick(limits.daily, row.daily_limit),
        pick(limits.concurrent, row.concurrent_limit),
        new Date().toISOString(),
        owner,
      ])
    }, owner)
  }

  async list(): Promise<KeyListing[]> {
    const rows = (await this.#sql.unsafe(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY email COLLATE "C"`)) as KeyRow[]
    return rows.map((r) => toListing(r) as KeyListing)
  }

  async keyOf(email: string): Promise<KeyListing | undefined> {
    const rows = (await this.#sql.unsafe(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE email = $1`, [normaliseEmail(email)])) as KeyRow[]
    return rows[0] ? (toListing(rows[0]) as KeyListing) : undefined
  }

  async createFeedToken(email: string): Promise<string> {
    const owner = normaliseEmail(email)
    const token = generateFeedToken()
    await this.#change(async (tx) => {
      const active = await tx.unsafe(`SELECT 1 FROM api_keys WHERE email = $1 AND status = 'active'`, [owner])
      if (!active.length) throw new KeyStoreError(`${owner} has no active key; a feed token answers for one`)
      await tx.unsafe(`DELETE FROM feed_tokens WHERE email = $1`, [owner])
      await tx.unsafe(`INSERT INTO feed_tokens (token_hash, email, created_at) VALUES ($1, $2, $3)`, [hashKey(token), owner, new Date().toISOString()])
    }, owner)
    return token
  }

  // Not cached: feed readers poll minutes apart and are answered 304 mostly; one indexed query each,
  // so a token ended on one instance stops at once on every other.
  async lookupFeedToken(token: string): Promise<KeyRecord | undefined> {
    if (!isWellFormedFeedToken(token)) return undefined
    const rows = (await this.#sql.unsafe(
      `SELECT ${FEED_KEY_COLUMNS} FROM feed_tokens f JOIN api_keys k ON k.email = f.email WHERE f.token_hash = $1 AND k.status = 'active'`,
      [hashKey(token)],
    )) as KeyRow[]
    return rows[0] ? toRecord(rows[0]) : undefined
  }

  async hasFeedToken(email: string): Promise<boolean> {
    return ((await this.#sql.unsafe(`SELECT 1 FROM feed_tokens WHERE email = $1`, [normaliseEmail(email)])) as unknown[]).length > 0
  }

  async deleteAccount(email: string): Promise<void> {
    const owner = normaliseEmail(email)
    await this.#change(async (tx) => {
      await tx.unsafe(`DELETE FROM api_keys WHERE email = $1`, [owner])
      await tx.unsafe(`DELETE FROM feed_tokens WHERE email = $1`, [owner])
      await tx.unsafe(`DELETE FROM sessions WHERE email = $1`, [owner])
      await tx.unsafe(`DELETE FROM session_flashes WHERE email = $1`, [owner])
      await tx.unsafe(`DELETE FROM sign_in_links WHERE email = $1`, [owner])
    }, owner)
  }

  async issueSignIn(tokenHash: string, email: string, client: string, nowMs: number, ttlMs: number, limits: SignInLimits): Promise<SignInIssue> {
    const owner = normaliseEmail(email)
    return this.#sql.begin(async (tx) => {
      // Per-address, then per-client lock (always in that order, so two requests cannot deadlock):
      // concurrent requests for one address or client count one after the other.
      await tx.unsafe(`SELECT pg_advisory_xact_lock(7264002, hashtext($1))`, [owner])
      await tx.unsafe(`SELECT pg_advisory_xact_lock(7264003, hashtext($1))`, [client])
      await tx.unsafe(`DELETE FROM sign_in_links WHERE created_at < $1`, [nowMs - SIGN_IN_RETENTION_MS])
      await tx.unsafe(`DELETE FROM sessions WHERE expires_at <= $1`, [nowMs])
      await tx.unsafe(`DELETE FROM session_flashes WHERE expires_at <= $1`, [nowMs])
      const since = nowMs - limits.windowMs
      const [n] = await tx.unsafe(
        `SELECT count(*) FILTER (WHERE email = $1 AND client = $2 AND created_at > $3)::int AS pair,
                count(*) FILTER (WHERE client = $2 AND created_at > $3)::int AS client,
                count(*) FILTER (WHERE email = $1 AND created_at > $4)::int AS mailbox
           FROM sign_in_links WHERE (email = $1 OR client = $2) AND created_at > least($3, $4)`,
        [owner, client, since, nowMs - limits.mailboxWindowMs],
      )
      const outcome = signInOutcome({ pair: Number(n.pair), client: Number(n.client), mailbox: Number(n.mailbox) }, limits)
      if (outcome !== 'issued') return outcome
      await tx.unsafe(`INSERT INTO sign_in_links (token_hash, email, client, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`, [tokenHash, owner, client, nowMs, nowMs + ttlMs])
      return 'issued' as const
    })
  }

  async redeemSignIn(tokenHash: string, nowMs: number): Promise<string | undefined> {
    const rows = await this.#sql.unsafe(`UPDATE sign_in_links SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $1 RETURNING email`, [nowMs, tokenHash])
    return rows[0]?.email
  }

  async startSession(sessionHash: string, email: string, nowMs: number, ttlMs: number): Promise<void> {
    await this.#sql.unsafe(`INSERT INTO sessions (session_hash, email, created_at, expires_at) VALUES ($1, $2, $3, $4)`, [sessionHash, normaliseEmail(email), nowMs, nowMs + ttlMs])
  }

  async session(sessionHash: string, nowMs: number): Promise<SessionRecord | undefined> {
    const rows = await this.#sql.unsafe(`SELECT email, expires_at FROM sessions WHERE session_hash = $1 AND expires_at > $2`, [sessionHash, nowMs])
    return rows[0] ? { email: rows[0].email, expiresAt: Number(rows[0].expires_at) } : undefined
  }

  async endSession(sessionHash: string): Promise<void> {
    await this.#sql.unsafe(`DELETE FROM sessions WHERE session_hash = $1`, [sessionHash])
    await this.#sql.unsafe(`DELETE FROM session_flashes WHERE session_hash = $1`, [sessionHash])
  }

  async putFlash(sessionHash: string, email: string, sealed: string, expiresAt: number): Promise<void> {
    await this.#sql.unsafe(
      `INSERT INTO session_flashes (session_hash, email, sealed, expires_at) VALUES ($1, $2, $3, $4) ON CONFLICT (session_hash) DO UPDATE SET email = excluded.email, sealed = excluded.sealed, expires_at = excluded.expires_at`,
      [sessionHash, normaliseEmail(email), sealed, expiresAt],
    )
  }

  async takeFlash(sessionHash: string, nowMs: number): Promise<string | undefined> {
    const rows = await this.#sql.unsafe(`DELETE FROM session_flashes WHERE session_hash = $1 RETURNING sealed, expires_at`, [sessionHash])
    return rows[0] && Number(rows[0].expires_at) > nowMs ? rows[0].sealed : undefined
  }

  /** The generation counter: moves on every key change (any instance). */
  async generation(): Promise<number> {
    const rows = await this.#sql.unsafe(`SELECT value FROM key_meta WHERE name = 'generation'`)
    return Number(rows[0].value)
  }

  async close(): Promise<void> {
    clearInterval(this.#timer)
    this.#cache.clear()
    await this.#sql.close()
  }

  async #poll(): Promise<void> {
    if (this.#polling) return
    this.#polling = true
    try {
      const g = await this.generation()
      if (g !== this.#generation) {
        this.#generation = g
        this.#cache.clear()
      }
    } catch {
      this.#generation = -1
      this.#cache.clear()
    } finally {
      this.#polling = false
    }
  }

  async #change(fn: (tx: SQL) => Promise<void>, owner: string): Promise<void> {
    await this.#sql.begin(async (tx) => {
      // One change per address at a time, on every instance (a create racing a create gets the UNIQUE error otherwise).
      await tx.unsafe(`SELECT pg_advisory_xact_lock(7264004, hashtext($1))`, [owner])
      await fn(tx as unknown as SQL)
      await tx.unsafe(`UPDATE key_meta SET value = value + 1 WHERE name = 'generation'`)
    })
    // Our own change takes effect here at once; other instances see the generation move.
    this.#generation = -1
    this.#cache.clear()
  }
}
