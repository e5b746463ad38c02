import { LRUCache } from 'lru-cache'
import type { Config } from '../../config'
import { fillTimestamp } from '../render/envelope'
import { textBound, type DroppedTexts, type OnTurnover } from './dropped-texts'

/**
 * Serialised responses of hot queries: JSON text keyed by index version + origin +
 * the canonical request key (src/http/request-key.ts, the same key the ETag is made from), so
 * a repeated query costs neither a scan nor JSON work. Bounded by entries
 * (config.responseCacheEntries) and by bytes. Only successes are stored: a thrown problem
 * propagates and nothing is kept. Texts keep TIMESTAMP_SLOT; callers fill it per response.
 */
export const RESPONSE_CACHE_MAX_BYTES = 64 * 1024 * 1024
/** Larger texts are served but not kept (one would evict many hot small ones). */
export const RESPONSE_CACHE_MAX_ENTRY_BYTES = 1024 * 1024

/**
 * One cached text, and the copy of it with meta.timestamp filled in for the current millisecond.
 * Why keep the copy: filling the slot builds a new string of the whole body, and the HTTP server
 * must then flatten and copy it: per request that halved the list query's throughput in a bare
 * Bun.serve probe (18 KB body: ~14k req/s filled per request, ~20k filled once per millisecond,
 * ~22k constant). Requests in the same millisecond share one filled text (their timestamps are
 * equal anyway).
 *
 * Why only for the current millisecond (the copies of earlier ones are let go when the clock
 * moves on, `StampedCopies`): a copy still held when a young-generation collection runs is
 * promoted, and a promoted copy that is then replaced waits for a full collection, which the
 * collector spaces by a heap that counts the index's columns. Each entry keeping its last copy,
 * 8 clients asking 500 cached 100-photo pages in turn grew the server by 2,856 MB RSS in 15 s.
 */
export class Entry {
  #stampMs = NaN
  #stamped = ''
  /** Compressed pieces of this text, by coding (plugins/compression/spliced-body.ts); not counted in the byte bound. */
  readonly variants = new Map<string, unknown>()
  constructor(readonly text: string) {}

  stampedAt(nowMs: number): string {
    if (nowMs !== copies.ms) copies.moveTo(nowMs)
    if (nowMs !== this.#stampMs) {
      this.#stamped = fillTimestamp(this.text, new Date(nowMs))
      this.#stampMs = nowMs
      copies.held.push(this)
    }
    return this.#stamped
  }

  /** Lets the filled copy go (its millisecond has passed). */
  release(): void {
    this.#stamped = ''
    this.#stampMs = NaN
  }
}

/** The entries holding a filled copy for the millisecond `ms`; all released when the clock moves on. */
class StampedCopies {
  ms = NaN
  held: Entry[] = []

  moveTo(ms: number): void {
    const held = this.held
    for (let i = 0; i < held.length; i++) held[i]!.release()
    held.length = 0
    this.ms = ms
  }
}

const copies = new StampedCopies()

/** How many entries hold a filled copy now (tests). */
export function stampedCopiesHeld(): number {
  return copies.held.length
}

export class ResponseCache {
  readonly #lru?: LRUCache<string, Entry>
  readonly #dropped: DroppedTexts

  constructor(entries: number, maxBytes = RESPONSE_CACHE_MAX_BYTES, onTurnover?: OnTurnover) {
    const bound = textBound(maxBytes, (e: Entry, key) => e.text.length + key.length, onTurnover)
    this.#dropped = bound.dropped
    if (entries > 0) this.#lru = new LRUCache<string, Entry>({ max: entries, maxEntrySize: RESPONSE_CACHE_MAX_ENTRY_BYTES, ...bound.options })
  }

  /** Lookups answered from the cache, and those that computed the text (metrics). */
  hits = 0
  misses = 0

  /**
   * The entry under `key`, which must be responseCacheKey(version, base, requestKey) of the
   * answer `compute` makes (src/http/cached-answer.ts; for GETs the string is kept per URL by
   * src/http/url-facts.ts), made on a miss; undefined when caching is off.
   */
  entryAt(key: string, compute: () => string): Entry | undefined {
    const lru = this.#lru
    if (lru === undefined) return undefined
    let e = lru.get(key)
    if (e === undefined) {
      this.misses++
      e = new Entry(compute())
      lru.set(key, e)
    } else this.hits++
    return e
  }

  /** How often the texts this cache dropped added up to its byte bound (metrics). */
  get turnovers(): number {
    return this.#dropped.turnovers
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
