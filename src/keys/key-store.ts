import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { LRUCache } from 'lru-cache'
import { generateKey, hashKey, isWellFormedKey } from './api-key'

/** Operator-set limits of one key; a missing figure means "the configured default". */
export interface KeyLimits {
  hourly?: number
  daily?: number
  concurrent?: number
}

/** What auth hands on to the rest of the pipeline. Never holds the key value. */
export interface KeyRecord {
  /** Record id: rate-limit counters are keyed by it, never by the key or its hash. */
  id: number
  email: string
  limits: KeyLimits
}

/** One row of `list`: owners, dates and status, never key values or hashes. */
export interface KeyListing {
  id: number
  email: string
  status: 'active' | 'revoked'
  created_at: string
  updated_at: string
  limits: KeyLimits
}

export interface KeyStoreOptions {
  /** Lifetime of cached lookups (hits and misses), ms. */
  cacheTtlMs?: number
  cacheEntries?: number
  /** How often, at most, a lookup asks SQLite whether another process changed the keys, ms. */
  changeCheckMs?: number
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS api_keys (
  id               INTEGER PRIMARY KEY,
  email            TEXT NOT NULL UNIQUE,
  key_hash         TEXT NOT NULL UNIQUE,
  status           TEXT NOT NULL CHECK (status IN ('active', 'revoked')),
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  hourly_limit     INTEGER,
  daily_limit      INTEGER,
  concurrent_limit INTEGER
);
CREATE TABLE IF NOT EXISTS key_meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT OR IGNORE INTO key_meta (name, value) VALUES ('generation', 0);
`

interface Row {
  id: number
  email: string
  status: 'active' | 'revoked'
  created_at: string
  updated_at: string
  hourly_limit: number | null
  daily_limit: number | null
  concurrent_limit: number | null
}

/** Cached "no such active key" (lru-cache stores no null). */
const MISS = Object.freeze({ miss: true as const })
type Cached = KeyRecord | typeof MISS

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

export class KeyStoreError extends Error {}

/**
 * API keys in an embedded SQLite file (bun:sqlite, WAL mode), one key per e-mail, stored only as
 * SHA-256. Lookups go through an LRU cache of hits and misses with a short TTL, so auth does no
 * I/O on the hot path. Every change (create, regenerate, revoke, limits) commits in its own
 * transaction and bumps `key_meta.generation`; each process watches `PRAGMA data_version`
 * (a counter SQLite moves whenever *another* connection commits, read from the WAL index in
 * shared memory) and clears its cache when it moves, so a regenerated or revoked key stops working
 * at once in every process that shares the file.
 */
export class KeyStore {
  readonly path: string
  readonly #db: Database
  readonly #cache: LRUCache<string, Cached>
  readonly #changeCheckMs: number
  #lastCheck = 0
  #dataVersion = -1
  readonly #byHash
  readonly #dataVersionQuery

  private constructor(path: string, db: Database, opts: KeyStoreOptions) {
    this.path = path
    this.#db = db
    this.#cache = new LRUCache<string, Cached>({ max: opts.cacheEntries ?? 10_000, ttl: opts.cacheTtlMs ?? 2_000, ttlAutopurge: false })
    this.#changeCheckMs = opts.changeCheckMs ?? 2
    this.#byHash = db.query<Row, [string]>(
      `SELECT id, email, status, created_at, updated_at, hourly_limit, daily_limit, concurrent_limit FROM api_keys WHERE key_hash = ?`,
    )
    this.#dataVersionQuery = db.query<{ data_version: number }, []>('PRAGMA data_version')
    this.#dataVersion = this.#dataVersionQuery.get()!.data_version
  }

  /** Opens (creating if needed) the key file at `path`. */
  static open(path: string, opts: KeyStoreOptions = {}): KeyStore {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
    const db = new Database(path, { create: true, strict: true })
    db.exec('PRAGMA busy_timeout = 5000') // first: other processes (the CLI, other instances) may hold the lock
    db.exec('PRAGMA journal_mode = WAL')
    db.exec('PRAGMA synchronous = NORMAL')
    db.exec(SCHEMA)
    return new KeyStore(path, db, opts)
  }

  /**
   * The active key record for a presented key, or undefined (bad format, unknown or revoked:
   * the caller answers all three with the same "invalid key" 401).
   */
  lookup(key: string): KeyRecord | undefined {
    if (!isWellFormedKey(key)) return undefined
    this.#watchChanges()
    const hash = hashKey(key)
    let hit = this.#cache.get(hash)
    if (hit === undefined) {
      const row = this.#byHash.get(hash)
      hit = row && row.status === 'active' ? toRecord(row) : MISS
      this.#cache.set(hash, hit)
    }
    return hit === MISS ? undefined : (hit as KeyRecord)
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
    })
    return key
  }

  /** Revokes the key of `email`: it gets the "invalid key" 401 from then on. */
  revoke(email: string): void {
    const owner = normaliseEmail(email)
    this.#change(() => {
      const r = this.#db.query(`UPDATE api_keys SET status = 'revoked', updated_at = ? WHERE email = ?`).run(new Date().toISOString(), owner)
      if (r.changes === 0) throw new KeyStoreError(`no key for ${owner}`)
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
      .query<Row, []>(`SELECT id, email, status, created_at, updated_at, hourly_limit, daily_limit, concurrent_limit FROM api_keys ORDER BY email`)
      .all()
      .map((r) => ({ id: r.id, email: r.email, status: r.status, created_at: r.created_at, updated_at: r.updated_at, limits: limitsOf(r) }))
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
  #watchChanges(): void {
    const now = performance.now()
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

function normaliseEmail(email: string): string {
  const e = email.trim().toLowerCase()
  if (!EMAIL.test(e)) throw new KeyStoreError(`not an e-mail address: "${email}"`)
  return e
}

function limitsOf(r: Row): KeyLimits {
  const l: KeyLimits = {}
  if (r.hourly_limit !== null) l.hourly = r.hourly_limit
  if (r.daily_limit !== null) l.daily = r.daily_limit
  if (r.concurrent_limit !== null) l.concurrent = r.concurrent_limit
  return l
}

function toRecord(r: Row): KeyRecord {
  return { id: r.id, email: r.email, limits: limitsOf(r) }
}
