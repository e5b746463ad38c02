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

  constructor(entries: number, ttlMs: number) {
    this.#lru = new LRUCache({ max: entries, ttl: ttlMs, ttlAutopurge: false })
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
  }
}
