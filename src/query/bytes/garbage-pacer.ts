/**
 * Asks the collector for a collection after every PACE_BYTES of answer texts made, so the memory
 * of answers already sent is reused instead of fresh memory being touched for each new one.
 *
 * Why it is needed: the engine counts the mapped index (about 1 GB of columns at the full
 * catalogue) as memory of the JavaScript heap, and sizes the allowance between two collections
 * by the heap: about 1.2 GB of garbage before it collects on its own, where a heap without the
 * index is collected every ~15 MB. Every answer text of a few dozen KB or more is one large
 * allocation, so until then each one lands on memory never touched before, and the page faults
 * cost more than writing the text: with the synthetic index loaded, making a 139 KB text (a page
 * of 100 photos) took 0.6-0.8 ms p50 against 0.006 ms paced, and the process held ~1.2 GB more
 * RSS (the 2-core development machine, under load). PACE_BYTES is the allowance of a heap without
 * the index: after memory has been given back (a full collection, an idle scavenge) the first
 * answers fault pages in only until the first paced collection, ~115 pages of 100 photos (at
 * 64 MB, ~460: page-of-100 p50 0.64-0.73 ms in the 300 calls after a full collection; 16 MB:
 * 0.14-0.21 ms). The collection asked for is asynchronous (Bun.gc(false)): no request waits.
 */
export const PACE_BYTES = 16 * 1024 * 1024

export class GarbagePacer {
  #since = 0
  /** Collections asked for (tests, metrics). */
  requests = 0

  constructor(
    private readonly pace: number,
    private readonly collect: () => void,
  ) {}

  /** Counts `bytes` of an answer text or body just made; past the pace, asks for a collection. */
  note(bytes: number): void {
    this.#since += bytes
    if (this.#since >= this.pace) {
      this.#since = 0
      this.requests++
      this.collect()
    }
  }
}

const asyncCollection = typeof Bun !== 'undefined' && typeof Bun.gc === 'function' ? () => void Bun.gc(false) : () => {}

/** The process's pacer: every answer text the engine makes is counted here. */
export const answerGarbage = new GarbagePacer(PACE_BYTES, asyncCollection)

export function noteAnswerBytes(bytes: number): void {
  answerGarbage.note(bytes)
}
