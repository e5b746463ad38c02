import type { StreamHold } from './counter-store'
import { StreamCount, streamHold } from './stream-count'
import { OPEN_STREAM_SCRIPT, RENEW_STREAMS_SCRIPT, streamsKey } from './stream-script'
import { withTimeout } from './with-timeout'

/** What the shared count needs of the Redis counter store it belongs to. */
export interface StreamCountIo {
  /** Runs one of ./stream-script.ts's scripts (unbounded: the caller bounds it). */
  eval(script: string, keys: string[], argv: string[]): Promise<unknown>
  /** Sends one plain command. */
  send(command: string, args: string[]): Promise<unknown>
  /** Whether Redis is worth asking now. */
  usable(): boolean
  /** Decided locally: warn once per outage; after a failed or slow call (`err`), keep decisions local for a while. */
  failed(message: string, err?: unknown): void
  timeoutMs: number
  /** This instance's name in Redis. */
  instance: string
}

/**
 * Open photo streams per key counted in Redis, across every worker and instance
 * (./stream-script.ts): a stream takes a place with one atomic script call, gives it back when it
 * ends, and its hold lapses `ttlMs` after the last renewal, so a killed holder's streams stop
 * counting within `ttlMs`. The counter store renews every open stream of this process once per
 * tick (renew()).
 *
 * Redis unreachable (the counter store's documented fail-open choice): a place is decided on this
 * process's own open streams, those it opened through Redis included, so a lone process still
 * enforces the limit and each of N processes at most the limit (N × the limit in all). Streams
 * opened meanwhile join the shared count at the first renewal once Redis answers; holds that could
 * not be renewed or released meanwhile lapse within `ttlMs`.
 */
export class SharedStreamCount {
  /** Every stream this process holds: what renew() renews, and what counts when Redis cannot. */
  readonly #mine = new StreamCount()
  readonly #io: StreamCountIo
  readonly #ttlMs: number
  #next = 1

  constructor(io: StreamCountIo, ttlMs: number) {
    this.#io = io
    this.#ttlMs = ttlMs
  }

  open(id: number, limit: number): StreamHold | undefined | Promise<StreamHold | undefined> {
    const member = `${this.#io.instance}:${this.#next++}`
    if (!this.#io.usable()) {
      this.#io.failed('redis not connected; open streams are counted in this process')
      return this.#openLocally(id, limit, member)
    }
    const call = this.#io.eval(OPEN_STREAM_SCRIPT, [streamsKey(id)], [String(limit), member, String(this.#ttlMs)])
    return withTimeout(call, this.#io.timeoutMs).then(
      (reply) => {
        if (Number((reply as unknown[])[0]) !== 1) return undefined
        this.#mine.take(id, member)
        return this.#hold(id, member)
      },
      (err) => {
        this.#io.failed('redis stream count failed; open streams are counted in this process', err)
        const hold = this.#openLocally(id, limit, member)
        // Refused here but granted late by Redis: give the place back instead of letting it count until it lapses.
        if (!hold) call.then((late) => (Number((late as unknown[])[0]) === 1 ? this.#io.send('ZREM', [streamsKey(id), member]) : undefined)).catch(() => {})
        return hold
      },
    )
  }

  /** Open streams this process holds for key `id` (tests, and the count when Redis cannot answer). */
  held(id: number): number {
    return this.#mine.count(id)
  }

  /** Pushes back the lapse time of every stream this process holds: one call per key. */
  renew(): void {
    for (const [id, members] of this.#mine.entries()) {
      withTimeout(this.#io.eval(RENEW_STREAMS_SCRIPT, [streamsKey(id)], [String(this.#ttlMs), ...members]), this.#io.timeoutMs).catch(() => {
        // Not renewed: tried again next tick; past ttl the holds lapse and the next renewal adds them back.
      })
    }
  }

  /** Gives back every place this process holds (at shutdown: other instances may use them at once). */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#mine.entries()].map(([id, members]) => withTimeout(this.#io.send('ZREM', [streamsKey(id), ...members]), this.#io.timeoutMs)))
  }

  #openLocally(id: number, limit: number, member: string): StreamHold | undefined {
    if (!this.#mine.take(id, member, limit)) return undefined
    return this.#hold(id, member)
  }

  #hold(id: number, member: string): StreamHold {
    return streamHold(() => {
      this.#mine.drop(id, member)
      // Asked even while decisions are local (a disconnected client fails at once); not given back, the hold is no longer renewed and lapses within ttl.
      withTimeout(this.#io.send('ZREM', [streamsKey(id), member]), this.#io.timeoutMs).catch(() => {})
    })
  }
}
