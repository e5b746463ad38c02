import { LRUCache } from 'lru-cache'
import type { KeyRecord } from './key-directory'
import { toRecord, type KeyRow } from './key-schema'

/** Cached "no such active key" (lru-cache stores no null). */
const MISS = Object.freeze({ miss: true as const })

/**
 * The answers of key lookups by key hash, hits and misses alike, for a short TTL: what lets
 * auth do no I/O on the hot path. Both key stores (SQLite, PostgreSQL) keep one and clear it
 * whenever they learn that the keys changed.
 */
export class KeyLookupCache {
  readonly #lru: LRUCache<string, KeyRecord | typeof MISS>
  /**
   * Active records by the exact key value presented, each kept no longer than its hash entry
   * (the same TTL, cleared with it): a key presented again within that time skips the format
   * check, the SHA-256 and the LRU, which together cost about 1 µs of a revalidation served at
   * ~10 µs (bench/http). Only records of active keys are kept, never misses, so unknown keys
   * cannot fill it; and nothing outlives a clear(), so a revoked, regenerated or re-limited key
   * stops answering from here exactly when it stops answering from the hash entries. It holds
   * key values (the hash entries hold only SHA-256), in this process's memory only, for at most
   * the TTL after the key was last looked up in full, as the request that carried it did.
   */
  readonly #presented = new Map<string, { record: KeyRecord; expires: number }>()
  readonly #entries: number
  readonly #ttlMs: number

  constructor(entries: number, ttlMs: number) {
    this.#lru = new LRUCache({ max: entries, ttl: ttlMs, ttlAutopurge: false })
    this.#entries = entries
    this.#ttlMs = ttlMs
  }

  /** The active record last found for exactly this key value, if found in full within the TTL (`nowMs`: performance.now()). */
  presented(key: string, nowMs: number): KeyRecord | undefined {
    const p = this.#presented.get(key)
    if (p === undefined) return undefined
    if (p.expires > nowMs) return p.record
    this.#presented.delete(key)
    return undefined
  }

  /** Remembers the active record found in full for this key value (see presented()). Bounded: cleared when full. */
  remember(key: string, record: KeyRecord, nowMs: number): void {
    if (this.#presented.size >= this.#entries) this.#presented.clear()
    this.#presented.set(key, { record, expires: nowMs + this.#ttlMs })
  }

  /** The cached answer: the active record, `null` when the hash is known not to be an active key, undefined when nothing is cached. */
  get(hash: string): KeyRecord | null | undefined {
    const hit = this.#lru.get(hash)
    return hit === undefined ? undefined : hit === MISS ? null : (hit as KeyRecord)
  }

  /** The answer a stored row gives (a record only for an active key), remembered unless `store` is false. */
  answer(hash: string, row: KeyRow | null | undefined, store = true): KeyRecord | undefined {
    const record = row && row.status === 'active' ? (toRecord(row) as KeyRecord) : undefined
    if (store) this.#lru.set(hash, record ?? MISS)
    return record
  }

  clear(): void {
    this.#lru.clear()
    this.#presented.clear()
  }
}
