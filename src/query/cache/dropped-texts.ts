import { fullGC } from 'bun:jsc'

/**
 * The texts a bounded cache has dropped (evicted, replaced, cleared), and one full collection
 * asked for each time they add up to the cache's own byte bound. Why: a cached text lives long
 * enough to reach JavaScriptCore's old generation, which only a full collection frees, and the
 * collector spaces full collections by the heap's size, which counts the index's columns
 * (~0.8 GB at 1.9M photos). Left to that, clients walking the 7,281 distinct 100-photo pages of
 * a rover grew the server by 3,056 MB RSS (0.73 to 3.79 GB) in 15 s; with one full collection
 * (~4 ms) per cache's worth of dropped texts, by 550 MB, for ~10% fewer answers per second under
 * that churn (bench/cache-churn.ts). A cache that mostly hits drops little and never asks.
 */
export type OnTurnover = () => void

export class DroppedTexts {
  /** Bytes (as the cache's bound counts them) dropped since the last turnover. */
  #bytes = 0
  /** How often the dropped texts added up to the bound (metrics). */
  turnovers = 0

  constructor(
    readonly bound: number,
    readonly onTurnover: OnTurnover = collectDroppedTexts,
  ) {}

  /** A text of `bytes` (the size the cache counted for it) has left the cache. */
  add(bytes: number): void {
    this.#bytes += bytes
    if (this.#bytes < this.bound) return
    this.#bytes = 0
    this.turnovers++
    this.onTurnover()
  }
}

/**
 * The byte bound of an LRU cache of texts (lru-cache options: spread them into its own), with
 * the same size counted for the bound and for what it drops, so the two cannot disagree.
 */
export function textBound<V extends {}>(maxBytes: number, size: (value: V, key: string) => number, onTurnover?: OnTurnover) {
  const dropped = new DroppedTexts(maxBytes, onTurnover)
  return {
    dropped,
    options: {
      maxSize: maxBytes,
      sizeCalculation: size,
      // Every way out of the cache (evicted, replaced, cleared) leaves a text for the collector.
      dispose: (value: V, key: string) => dropped.add(size(value, key)),
    },
  }
}

let collectionDue = false

/** A full collection on the next turn of the event loop (not inside the request that evicted), once however often asked. */
export function collectDroppedTexts(): void {
  if (collectionDue) return
  collectionDue = true
  setImmediate(() => {
    collectionDue = false
    fullGC()
  })
}
