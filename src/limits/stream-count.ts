import type { StreamHold } from './counter-store'

/**
 * The open photo streams of one process, by key record id: each stream is a member name in its
 * key's set, so taking a place is one synchronous check-and-add (atomic under JS's single thread)
 * and giving it back removes exactly that stream. The in-memory counter store counts with it
 * alone; the Redis one keeps it as the list of its own streams to renew, and counts with it when
 * Redis cannot answer.
 */
export class StreamCount {
  readonly #byKey = new Map<number, Set<string>>()

  /** Open streams of key `id` in this process. */
  count(id: number): number {
    return this.#byKey.get(id)?.size ?? 0
  }

  /** Adds `member` to key `id` when fewer than `limit` are held (no limit: always); whether it was added. */
  take(id: number, member: string, limit = Infinity): boolean {
    let set = this.#byKey.get(id)
    if ((set?.size ?? 0) >= limit) return false
    if (!set) this.#byKey.set(id, (set = new Set()))
    set.add(member)
    return true
  }

  drop(id: number, member: string): void {
    const set = this.#byKey.get(id)
    if (!set) return
    set.delete(member)
    if (set.size === 0) this.#byKey.delete(id)
  }

  /** Every key with open streams, and their members. */
  entries(): IterableIterator<[number, ReadonlySet<string>]> {
    return this.#byKey.entries()
  }
}

/** A hold that runs `drop` once, however often it is released. */
export function streamHold(drop: () => void): StreamHold {
  let held = true
  return {
    release() {
      if (!held) return
      held = false
      drop()
    },
  }
}
