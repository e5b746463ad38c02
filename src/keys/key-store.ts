import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { generateFeedToken, generateKey, hashKey, isWellFormedFeedToken, isWellFormedKey } from './api-key'
import { KeyStoreError, ownerEmail as normaliseEmail, type KeyDirectory, type KeyLimits, type KeyListing, type KeyRecord, type SessionRecord, type SignInIssue, type SignInLimits } from './key-directory'
import { KeyLookupCache } from './lookup-cache'
import { FEED_KEY_COLUMNS, KEY_COLUMNS, SQLITE_SCHEMA, toListing, toRecord, type KeyRow as Row } from './key-schema'
import { SqliteSignIns } from './sqlite-sign-ins'

export type { KeyLimits, KeyRecord, KeyListing } from './key-directory'
export { KeyStoreError } from './key-directory'

export interface KeyStoreOptions {
  /** Lifetime of cached lookups (hits and misses), ms. */
  cacheTtlMs?: number
  cacheEntries?: number
  /**
   * How often, at most, a lookup asks SQLite whether another process changed the keys, ms
   * (default 10: a change made elsewhere is seen within 10 ms, well inside the 1 s decisions.md
   * allows; a change made by this process is seen at once). Each look is a query: at 2 ms it
   * cost about 2% of a busy server's request time (bench/http CPU profile).
   */
  changeCheckMs?: number
}


/**
 * API keys in an embedded SQLite file (bun:sqlite, WAL mode), one key per e-mail, stored only as
 * SHA-256. Lookups go through an LRU cache of hits and misses with a short TTL (and, for keys
 * found active, by the value presented: ./lookup-cache.ts), so auth does no I/O on the hot path.
 * Every change (create, regenerate, revoke, limits) commits in its own transaction and bumps
 * `key_meta.generation`; each process watches `PRAGMA data_version` (a counter SQLite moves
 * whenever *another* connection commits, read from the WAL index in shared memory) and clears its
 * cache when it moves, so a regenerated or revoked key stops working at once in every process that
 * shares the file. The dashboard's sign-in links and sessions live
 * in the same file (./sqlite-sign-ins.ts). The PostgreSQL twin is ./pg-key-store.ts.
 */
export class KeyStore implements KeyDirectory {
  readonly kind = 'sqlite' as const
  readonly path: string
  readonly #signIns: SqliteSignIns
  readonly #db: Database
  readonly #cache: KeyLookupCache
  readonly #changeCheckMs: number
  #lastCheck = 0
  #dataVersion = -1
  readonly #byHash
  readonly #dataVersionQuery

  private constructor(path: string, db: Database, opts: KeyStoreOptions) {
    this.path = path
    this.#db = db
    this.#cache = new KeyLookupCache(opts.cacheEntries ?? 10_000, opts.cacheTtlMs ?? 2_000)
    this.#changeCheckMs = opts.changeCheckMs ?? 10
    this.#byHash = db.query<Row, [string]>(
      `SELECT ${KEY_COLUMNS} FROM api_keys WHERE key_hash = ?`,
    )
    this.#dataVersionQuery = db.query<{ data_version: number }, []>('PRAGMA data_version')
    this.#dataVersion = this.#dataVersionQuery.get()!.data_version
    this.#signIns = new SqliteSignIns(db)
  }

  get location(): string {
    return this.path
  }

  /** Opens (creating if needed) the key file at `path`. */
  static open(path: string, opts: KeyStoreOptions = {}): KeyStore {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
    const db = new Database(path, { create: true, strict: true })
    db.exec('PRAGMA busy_timeout = 5000') // first: other processes (the CLI, other instances) may hold the lock
    db.exec('PRAGMA journal_mode = WAL')
    db.exec('PRAGMA synchronous = NORMAL')
    db.exec(SQLITE_SCHEMA)
    return new KeyStore(path, db, opts)
  }

  /**
   * The active key record for a presented key, or undefined (bad format, unknown or revoked:
   * the caller answers all three with the same "invalid key" 401).
   */
  lookup(key: string): KeyRecord | undefined {
    const now = performance.now()
    this.#watchChanges(now) // first: a change seen now clears what would answer below
    const known = this.#cache.presented(key, now)
    if (known !== undefined) return known
    if (!isWellFormedKey(key)) return undefined
    const hash = hashKey(key)
    const hit = this.#cache.get(hash)
    if (hit !== undefined) return hit ?? undefined
    const record = this.#cache.answer(hash, this.#byHash.get(hash))
    // Kept by value from the moment its hash entry is made, for the same TTL: never longer.
    if (record !== undefined) this.#cache.remember(key, record, now)
    return record
  }

  /** Creates the key of `email` and returns its value (shown once; never stored). One key per e-mail. */
  create(email: string, limits: KeyLimits = {}): string {
    const owner = normaliseEmail(email)
    const key = generateKey()
    const now = new Date().toISOString()
    this.#change(() => {
      const exists = this.#db.query(`SELECT 1 FROM api_keys WHERE email = ?`).get(owner)
      if (exists) throw new KeyStoreError(`${owner} already has a key; use "regenerate" to replace it`)
      this.#db
        .query(
          `INSERT INTO api_keys (email, key_hash, status, created_at, updated_at, hourly_limit, daily_limit, concurrent_limit)
           VALUES (?, ?, 'active', ?, ?, ?, ?, ?)`,
        )
        .run(owner, hashKey(key), now, now, limits.hourly ?? null, limits.daily ?? null, limits.concurrent ?? null)
    })
    return key
  }

  /** Replaces the key of `email` with a new one (the old stops working at once) and re-activates it. */
  regenerate(email: string): string {
    const owner = normaliseEmail(email)
    const key = generateKey()
    this.#change(() => {
      const r = this.#db
        .query(`UPDATE api_keys SET key_hash = ?, status = 'active', updated_at = ? WHERE email = ?`)
        .run(hashKey(key), new Date().toISOString(), owner)
      if (r.changes === 0) throw new KeyStoreError(`no key for ${owner}; use "create"`)
      this.#db.query(`DELETE FROM feed_tokens WHERE email = ?`).run(owner)
    })
    return key
  }

  /** Revokes the key of `email`: it gets the "invalid key" 401 from then on. */
  revoke(email: string): void {
    const owner = normaliseEmail(email)
    this.#change(() => {
      const r = this.#db.query(`UPDATE api_keys SET status = 'revoked', updated_at = ? WHERE email = ?`).run(new Date().toISOString(), owner)
      if (r.changes === 0) throw new KeyStoreError(`no key for ${owner}`)
      this.#db.query(`DELETE FROM feed_tokens WHERE email = ?`).run(owner)
    })
  }

  /** Sets (or with null clears) the operator limits of `email`'s key. */
  setLimits(email: string, limits: { hourly?: number | null; daily?: number | null; concurrent?: number | null }): void {
    const owner = normaliseEmail(email)
    this.#change(() => {
      const row = this.#db.query<Row, [string]>(`SELECT * FROM api_keys WHERE email = ?`).get(owner)
      if (!row) throw new KeyStoreError(`no key for ${owner}`)
      const pick = (v: number | null | undefined, old: number | null) => (v === undefined ? old : v)
      this.#db
        .query(`UPDATE api_keys SET hourly_limit = ?, daily_limit = ?, concurrent_limit = ?, updated_at = ? WHERE email = ?`)
        .run(
          pick(limits.hourly, row.hourly_limit),
          pick(limits.daily, row.daily_limit),
          pick(limits.concurrent, row.concurrent_limit),
          new Date().toISOString(),
          owner,
        )
    })
  }

  list(): KeyListing[] {
    return this.#db
      .query<Row, []>(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY email`)
      .all()
      .map(toListing)
  }

  keyOf(email: string): KeyListing | undefined {
    const row = this.#db.query<Row, [string]>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE email = ?`).get(normaliseEmail(email))
    return row ? toListing(row) : undefined
  }

  createFeedToken(email: string): string {
    const owner = normaliseEmail(email)
    const token = generateFeedToken()
    this.#change(() => {
      const active = this.#db.query(`SELECT 1 FROM api_keys WHERE email = ? AND status = 'active'`).get(owner)
      if (!active) throw new KeyStoreError(`${owner} has no active key; a feed token answers for one`)
      this.#db.query(`DELETE FROM feed_tokens WHERE email = ?`).run(owner)
      this.#db.query(`INSERT INTO feed_tokens (token_hash, email, created_at) VALUES (?, ?, ?)`).run(hashKey(token), owner, new Date().toISOString())
    })
    return token
  }

  // Not cached: feed readers poll minutes apart and are answered 304 mostly; one indexed query each.
  lookupFeedToken(token: string): KeyRecord | undefined {
    if (!isWellFormedFeedToken(token)) return undefined
    const row = this.#db
      .query<Row, [string]>(`SELECT ${FEED_KEY_COLUMNS} FROM feed_tokens f JOIN api_keys k ON k.email = f.email WHERE f.token_hash = ? AND k.status = 'active'`)
      .get(hashKey(token))
    return row ? toRecord(row) : undefined
  }

  hasFeedToken(email: string): boolean {
    return !!this.#db.query(`SELECT 1 FROM feed_tokens WHERE email = ?`).get(normaliseEmail(email))
  }

  deleteAccount(email: string): void {
    const owner = normaliseEmail(email)
    this.#change(() => {
      this.#db.query(`DELETE FROM api_keys WHERE email = ?`).run(owner)
      this.#db.query(`DELETE FROM feed_tokens WHERE email = ?`).run(owner)
      this.#signIns.forget(owner)
    })
  }

  issueSignIn(tokenHash: string, email: string, client: string, nowMs: number, ttlMs: number, limits: SignInLimits): SignInIssue {
    return this.#signIns.issue(tokenHash, normaliseEmail(email), client, nowMs, ttlMs, limits)
  }

  redeemSignIn(tokenHash: string, nowMs: number): string | undefined {
    return this.#signIns.redeem(tokenHash, nowMs)
  }

  startSession(sessionHash: string, email: string, nowMs: number, ttlMs: number): void {
    this.#signIns.startSession(sessionHash, normaliseEmail(email), nowMs, ttlMs)
  }

  session(sessionHash: string, nowMs: number): SessionRecord | undefined {
    return this.#signIns.session(sessionHash, nowMs)
  }

  endSession(sessionHash: string): void {
    this.#signIns.endSession(sessionHash)
  }

  putFlash(sessionHash: string, email: string, sealed: string, expiresAt: number): void {
    this.#signIns.putFlash(sessionHash, normaliseEmail(email), sealed, expiresAt)
  }

  takeFlash(sessionHash: string, nowMs: number): string | undefined {
    return this.#signIns.takeFlash(sessionHash, nowMs)
  }

  /** The generation counter: moves on every key change (any process). */
  generation(): number {
    return this.#db.query<{ value: number }, []>(`SELECT value FROM key_meta WHERE name = 'generation'`).get()!.value
  }

  close(): void {
    this.#cache.clear()
    this.#db.close()
  }

  /** Clears the cache when another connection committed since the last look (throttled to once per changeCheckMs). */
  #watchChanges(now: number): void {
    if (now - this.#lastCheck < this.#changeCheckMs) return
    this.#lastCheck = now
    const v = this.#dataVersionQuery.get()!.data_version
    if (v !== this.#dataVersion) {
      this.#dataVersion = v
      this.#cache.clear()
    }
  }

  #change(fn: () => void): void {
    this.#db.transaction(() => {
      fn()
      this.#db.exec(`UPDATE key_meta SET value = value + 1 WHERE name = 'generation'`)
    }).immediate()
    // Our own commits do not move data_version for this connection: clear here.
    this.#cache.clear()
  }
}
