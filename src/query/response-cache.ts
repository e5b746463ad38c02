import { LRUCache } from 'lru-cache'
import type { Config } from '../config'

/**
 * Serialised responses of hot queries (issue 3): JSON text keyed by index version + origin +
 * the canonical request key (src/http/request-key.ts, the same key the ETag is made from), so
 * a repeated query costs neither a scan nor JSON work. Bounded by entries
 * (config.responseCacheEntries) and by bytes. Only successes are stored: a thrown problem
 * propagates and nothing is kept. Texts keep TIMESTAMP_SLOT; callers fill it per response.
 */
export const RESPONSE_CACHE_MAX_BYTES = 64 * 1024 * 1024
/** Larger texts are served but not kept (one would evict many hot small ones). */
export const RESPONSE_CACHE_MAX_ENTRY_BYTES = 1024 * 1024

export class ResponseCache {
  readonly #lru?: LRUCache<string, string>

  constructor(entries: number, maxBytes = RESPONSE_CACHE_MAX_BYTES) {
    if (entries > 0) {
      this.#lru = new LRUCache<string, string>({
        max: entries,
        maxSize: maxBytes,
        maxEntrySize: RESPONSE_CACHE_MAX_ENTRY_BYTES,
        sizeCalculation: (text, key) => text.length + key.length,
      })
    }
  }

  /** The cached text for this (version, origin, request key), else compute() stored and returned. */
  get(version: string, base: string, requestKey: string, compute: () => string): string {
    const lru = this.#lru
    if (!lru) return compute()
    const key = version + '\n' + base + '\n' + requestKey
    const hit = lru.get(key)
    if (hit !== undefined) return hit
    const text = compute()
    lru.set(key, text)
    return text
  }

  clear(): void {
    this.#lru?.clear()
  }

  get size(): number {
    return this.#lru?.size ?? 0
  }
}

const shared = new WeakMap<Config, ResponseCache>()

/** One cache per app configuration, shared by every resource plugin that asks for it. */
export function responseCacheFor(config: Config): ResponseCache {
  let c = shared.get(config)
  if (!c) {
    c = new ResponseCache(config.responseCacheEntries)
    shared.set(config, c)
  }
  return c
}
