import type { Charge, CounterStore, CounterStoreStatus, Decision, Lease, Limits, StreamHold, Usage } from './counter-store'
import { StreamCount, streamHold } from './stream-count'
import { windowsAt } from './windows'

interface Entry {
  hourStart: number
  hourCount: number
  dayStart: number
  dayCount: number
  /** In-flight slots: token -> start ms. */
  inFlight: Map<number, number>
}

/** How long an in-flight slot may be held before it is considered leaked and purged, ms. */
export const STALE_IN_FLIGHT_MS = 60_000

/**
 * Counters of one process. Each decision is synchronous, hence atomic under JS's single thread.
 * A slot whose release never came (it should always come) is purged after STALE_IN_FLIGHT_MS.
 */
export class MemoryCounterStore implements CounterStore {
  readonly kind = 'memory' as const
  #entries = new Map<number, Entry>()
  #nextToken = 1
  readonly #streams = new StreamCount()

  acquire(id: number, limits: Limits, nowMs: number): Decision {
    const e = this.#entry(id, nowMs)
    if (e.dayCount >= limits.daily) return { refused: 'daily', hourCount: e.hourCount, dayCount: e.dayCount }
    if (e.hourCount >= limits.hourly) return { refused: 'hourly', hourCount: e.hourCount, dayCount: e.dayCount }
    if (e.inFlight.size >= limits.concurrent) {
      purgeStale(e.inFlight, nowMs)
      if (e.inFlight.size >= limits.concurrent) return { refused: 'concurrent', hourCount: e.hourCount, dayCount: e.dayCount }
    }
    e.hourCount++
    e.dayCount++
    const token = this.#nextToken++
    e.inFlight.set(token, nowMs)
    return { hourCount: e.hourCount, dayCount: e.dayCount, lease: new MemoryLease(e.inFlight, token) }
  }

  charge(id: number, units: number, limits: Limits, nowMs: number): Charge {
    const e = this.#entry(id, nowMs)
    if (e.dayCount + units > limits.daily) return { refused: 'daily', hourCount: e.hourCount, dayCount: e.dayCount }
    if (e.hourCount + units > limits.hourly) return { refused: 'hourly', hourCount: e.hourCount, dayCount: e.dayCount }
    e.hourCount += units
    e.dayCount += units
    return { hourCount: e.hourCount, dayCount: e.dayCount }
  }

  openStream(id: number, limit: number): StreamHold | undefined {
    const member = String(this.#nextToken++)
    if (!this.#streams.take(id, member, limit)) return undefined
    return streamHold(() => this.#streams.drop(id, member))
  }

  /** Open photo streams of `id` (tests). */
  streamsOpen(id: number): number {
    return this.#streams.count(id)
  }

  peek(id: number, nowMs: number): Usage {
    const e = this.#entries.get(id)
    if (!e) return { hourCount: 0, dayCount: 0 }
    const w = windowsAt(nowMs)
    return { hourCount: e.hourStart === w.hourStart ? e.hourCount : 0, dayCount: e.dayStart === w.dayStart ? e.dayCount : 0 }
  }

  /** In-flight slots held for `id` now (tests and health). */
  inFlight(id: number): number {
    return this.#entries.get(id)?.inFlight.size ?? 0
  }

  status(): CounterStoreStatus {
    return { kind: 'memory' }
  }

  async close(): Promise<void> {}

  #entry(id: number, nowMs: number): Entry {
    const w = windowsAt(nowMs)
    let e = this.#entries.get(id)
    if (!e) {
      e = { hourStart: w.hourStart, hourCount: 0, dayStart: w.dayStart, dayCount: 0, inFlight: new Map() }
      this.#entries.set(id, e)
    }
    if (e.hourStart !== w.hourStart) {
      e.hourStart = w.hourStart
      e.hourCount = 0
    }
    if (e.dayStart !== w.dayStart) {
      e.dayStart = w.dayStart
      e.dayCount = 0
    }
    return e
  }
}

class MemoryLease implements Lease {
  #slots: Map<number, number> | undefined
  constructor(slots: Map<number, number>, readonly token: number) {
    this.#slots = slots
  }
  release(): void {
    this.#slots?.delete(this.token)
    this.#slots = undefined
  }
  renew(nowMs: number): void {
    if (this.#slots?.has(this.token)) this.#slots.set(this.token, nowMs)
  }
}

function purgeStale(slots: Map<number, number>, nowMs: number): void {
  for (const [token, started] of slots) if (nowMs - started > STALE_IN_FLIGHT_MS) slots.delete(token)
}
