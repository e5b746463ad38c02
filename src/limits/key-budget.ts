import type { Limits, LimitName } from './counter-store'
import { lowWater, spareSlots, unitBlock } from './lease-sizing'
import { windowsAt } from './windows'

/** What one lease call granted (see LEASE_SCRIPT). */
export interface Grant {
  units: number
  slots: number
  hourTotal: number
  dayTotal: number
  /** Slots Redis says this instance holds after the call. */
  held: number
  /** What the call asked for. */
  wanted: { units: number; slots: number }
}

/** What to give back to Redis: units of an hour (and of its day), and slots. */
export interface Giveback {
  hourStart: number
  dayStart: number
  hourUnits: number
  dayUnits: number
  slots: number
}

/**
 * One instance's share of one key's budget, without I/O: the units it leased and has not used
 * yet (each already counted in Redis for this hour and day), the in-flight slots Redis granted it
 * and how many are in use. Admitting a call is a synchronous step on this object; asking Redis
 * for more is the caller's (./redis-counter-store.ts).
 */
export class KeyBudget {
  hourStart: number
  dayStart: number
  /** Leased units not yet used, valid for hourStart's hour and dayStart's day. */
  units = 0
  /** In-flight slots granted by Redis to this instance, and how many are taken now. */
  slots = 0
  inUse = 0
  /** Most slots in use at once since the last tick: what the tick keeps when it returns spare slots. */
  peakInUse = 0
  /** Redis totals at the last lease: every instance's grants in this hour and day. */
  hourTotal = 0
  dayTotal = 0
  /** Calls waiting for a lease right now. */
  waiting = 0
  /** When the last lease granted no unit although one was wanted: refuse locally until then (ms). */
  spentUntil = 0
  lastUsedMs: number
  pending: Promise<Grant> | undefined

  constructor(nowMs: number) {
    const w = windowsAt(nowMs)
    this.hourStart = w.hourStart
    this.dayStart = w.dayStart
    this.lastUsedMs = nowMs
  }

  /**
   * Moves to the windows of `nowMs`. Units leased for a past hour of the same day were counted
   * in that day and are given back to it; units of a past day lapse with their counters.
   */
  roll(nowMs: number): Giveback | undefined {
    const w = windowsAt(nowMs)
    if (w.hourStart === this.hourStart) return undefined
    const back: Giveback | undefined =
      this.units > 0 && w.dayStart === this.dayStart ? { hourStart: this.hourStart, dayStart: this.dayStart, hourUnits: 0, dayUnits: this.units, slots: 0 } : undefined
    if (w.dayStart !== this.dayStart) this.dayTotal = 0
    this.dayTotal = Math.max(0, this.dayTotal - (back?.dayUnits ?? 0))
    this.hourStart = w.hourStart
    this.dayStart = w.dayStart
    this.units = 0
    this.hourTotal = 0
    this.spentUntil = 0
    return back
  }

  /** Whether a call can be admitted now without asking Redis. */
  canAdmit(): boolean {
    return this.units > 0 && this.inUse < this.slots
  }

  /** Takes a unit and a slot (canAdmit() must hold). */
  admit(nowMs: number): void {
    this.units--
    this.inUse++
    if (this.inUse > this.peakInUse) this.peakInUse = this.inUse
    this.lastUsedMs = nowMs
  }

  release(): void {
    if (this.inUse > 0) this.inUse--
  }

  /** Calls counted in this hour and day as far as this instance knows: every grant, less what it holds unused. */
  get hourCount(): number {
    return Math.max(0, this.hourTotal - this.units)
  }
  get dayCount(): number {
    return Math.max(0, this.dayTotal - this.units)
  }

  /** The limit that refuses a call when no unit is to be had. */
  spentLimit(limits: Limits): 'hourly' | 'daily' {
    return this.dayTotal >= limits.daily ? 'daily' : 'hourly'
  }

  /** What the next lease asks for: units and slots for the waiting calls, plus a block and spare slots. */
  want(limits: Limits): { units: number; slots: number } {
    const remaining = Math.min(limits.hourly - this.hourTotal, limits.daily - this.dayTotal)
    const needUnits = Math.max(0, this.waiting - this.units)
    const block = unitBlock(remaining, needUnits)
    const units = needUnits > 0 || this.units <= lowWater(block) ? block : 0
    const needSlots = Math.max(0, this.inUse + this.waiting - this.slots)
    const slots = needSlots > 0 ? needSlots + spareSlots(limits.concurrent) : 0
    return { units, slots }
  }

  /** Whether the units are running low enough to fetch the next block in the background. */
  runningLow(limits: Limits): boolean {
    const remaining = Math.min(limits.hourly - this.hourTotal, limits.daily - this.dayTotal)
    return remaining > 0 && this.units <= lowWater(unitBlock(remaining, 0))
  }

  /** Takes a grant that was asked for in the windows `hourStart` / `dayStart`; false when those have passed. */
  take(grant: Grant, hourStart: number, dayStart: number): boolean {
    if (hourStart !== this.hourStart || dayStart !== this.dayStart) return false
    this.units += grant.units
    // Slots move by deltas (a tick may have given some back while this lease was on the wire);
    // Redis bounds them: after a pause longer than the stale time, another instance may have
    // dropped this one's grants.
    this.slots = Math.min(this.slots + grant.slots, grant.held)
    this.hourTotal = Math.max(this.hourTotal, grant.hourTotal)
    this.dayTotal = Math.max(this.dayTotal, grant.dayTotal)
    return true
  }

  /**
   * The tick's giveback: spare slots beyond the most used since the last tick, and every unit
   * when the key has been idle for `idleMs` (so another instance can use them).
   */
  spare(nowMs: number, idleMs: number): Giveback | undefined {
    const keep = Math.max(this.inUse, this.peakInUse)
    this.peakInUse = this.inUse
    const slots = Math.max(0, this.slots - keep)
    const units = nowMs - this.lastUsedMs >= idleMs ? this.units : 0
    if (slots === 0 && units === 0) return undefined
    this.slots -= slots
    this.units -= units
    this.hourTotal = Math.max(0, this.hourTotal - units)
    this.dayTotal = Math.max(0, this.dayTotal - units)
    return { hourStart: this.hourStart, dayStart: this.dayStart, hourUnits: units, dayUnits: units, slots }
  }

  /** Everything held, at shutdown. */
  all(): Giveback {
    const back = { hourStart: this.hourStart, dayStart: this.dayStart, hourUnits: this.units, dayUnits: this.units, slots: this.slots }
    this.units = 0
    this.slots = 0
    return back
  }

  /** Nothing held and nothing happening: the entry can be dropped. */
  idle(nowMs: number, idleMs: number): boolean {
    return this.units === 0 && this.slots === 0 && this.inUse === 0 && this.waiting === 0 && !this.pending && nowMs - this.lastUsedMs >= idleMs
  }
}
