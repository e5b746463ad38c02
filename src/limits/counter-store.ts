/**
 * Rate-limit counters behind one interface (decisions.md, Keys, limits, caching): in memory for one
 * process, or in Redis so that several instances behind a load balancer share one budget.
 * Counters are keyed by the key's record id, never by the key.
 */
export interface Limits {
  hourly: number
  daily: number
  concurrent: number
}

export type LimitName = 'hourly' | 'daily' | 'concurrent'

/** Holds one in-flight slot; release() gives it back (idempotent). */
export interface Lease {
  release(): void
  /**
   * Marks the slot as still in use at `nowMs`, so a long answer (a streamed export) is not
   * purged as a leaked slot after the stale delay. Optional: a store without it lets the slot
   * age as any other.
   */
  renew?(nowMs: number): void
}

/** The outcome of charging extra units to a key (see CounterStore.charge). */
/** One open photo stream's place in its key's count of open streams; release() when the stream ends (idempotent). */
export interface StreamHold {
  release(): void
}

export interface Charge {
  /** Undefined when charged; otherwise the window that has fewer units left than asked (nothing charged). */
  refused?: 'hourly' | 'daily'
  /** Counts of the current UTC hour / day after the charge (before it when refused). */
  hourCount: number
  dayCount: number
}

export interface Decision {
  /** Undefined when admitted; otherwise the limit that refused the call (a refused call is not counted). */
  refused?: LimitName
  /** Calls counted in the current UTC hour / day, this one included when admitted. */
  hourCount: number
  dayCount: number
  /** Present when admitted: the in-flight slot to release once the response is done. */
  lease?: Lease
}

export interface Usage {
  hourCount: number
  dayCount: number
}

export interface CounterStoreStatus {
  kind: 'memory' | 'redis'
  /** Redis only: whether decisions currently go to Redis (false: failing open to local counters). */
  redisConnected?: boolean
}

export interface CounterStore {
  readonly kind: 'memory' | 'redis'
  /**
   * One atomic decision: refuse if the day, hour or in-flight figure is already at its limit;
   * otherwise count the call in both windows and take an in-flight slot.
   * Memory answers synchronously; Redis returns a promise.
   */
  acquire(id: number, limits: Limits, nowMs: number): Decision | Promise<Decision>
  /**
   * Charges `units` more calls to key `id` at once, in both windows, only if both have that many
   * left (all or nothing, atomic like acquire): what a bulk answer costs beyond its own call.
   * `units` 0 charges nothing and reports the counts; a negative `units` gives calls back (never
   * refused), as when a call already counted is then refused with 429.
   */
  charge(id: number, units: number, limits: Limits, nowMs: number): Charge | Promise<Charge>
  /**
   * Takes one of key `id`'s `limit` places for open photo streams (STREAMS_PER_KEY), atomically
   * with the count, so two streams asking for the last place at once cannot both get it;
   * undefined when every place is held. Counted where the other limits are: in this process
   * (memory), or across every worker and instance (Redis; ./shared-stream-count.ts).
   */
  openStream(id: number, limit: number): StreamHold | undefined | Promise<StreamHold | undefined>
  /** Current counts without counting anything (for 304 answers). */
  peek(id: number, nowMs: number): Usage | Promise<Usage>
  status(): CounterStoreStatus
  close(): Promise<void>
  /**
   * Shared stores only (Redis): counts one failed API-key attempt from a client address in a
   * fixed window shared by every instance; undefined when the store cannot answer. Absent on the
   * memory store: plugins/auth counts in process then.
   */
  countFailedAuth?(address: string, windowMs: number, nowMs: number): Promise<number | undefined>
}
