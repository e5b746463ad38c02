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
