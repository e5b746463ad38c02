import { RedisClient } from 'bun'
import type { Logger } from '../log'
import type { Charge, CounterStore, CounterStoreStatus, Decision, Lease, Limits, StreamHold, Usage } from './counter-store'
import { type Giveback, type Grant, KeyBudget } from './key-budget'
import { leaseKeys, LEASE_SCRIPT, RETURN_SCRIPT } from './lease-script'
import { MemoryCounterStore } from './memory-counter-store'
import { SharedStreamCount } from './shared-stream-count'
import { OPEN_STREAM_SCRIPT, RENEW_STREAMS_SCRIPT } from './stream-script'
import { DAY_MS, HOUR_MS, windowsAt } from './windows'
import { withTimeout } from './with-timeout'

export interface RedisCounterStoreOptions {
  /** A command slower than this fails open for that request, ms. */
  commandTimeoutMs?: number
  /** First and largest delay between reconnection attempts, ms. */
  reconnectMinMs?: number
  reconnectMaxMs?: number
  /** An instance silent this long is taken for dead and its in-flight slots are dropped, ms. */
  staleInFlightMs?: number
  /** How often spare slots and idle units go back to Redis (and heartbeats go out), ms. */
  tickMs?: number
  /** Units of a key unused this long go back to Redis, ms. */
  idleReturnMs?: number
  /** The clock of the tick (tests); decisions use the time they are given. */
  clock?: () => number
}

const WINDOW_SLACK_MS = 60_000
/** One failed key attempt: count it, and let the window's key expire by itself. */
const FAILED_AUTH_SCRIPT = "local c = redis.call('INCR', KEYS[1]) if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return c"
/** An instance refused for a spent budget asks Redis again at most this often (others may give units back). */
const SPENT_RECHECK_MS = 1_000
/** Calls a waiting request may wait through before it is refused for what is still missing. */
const MAX_LEASE_ROUNDS = 4

/**
 * Counters in Redis, shared by every instance, with Redis off the per-request path: each instance
 * leases blocks of a key's budget (units of the hourly and daily windows, in-flight slots) in one
 * Lua call (./lease-script.ts) and admits calls from its lease synchronously, like the in-memory
 * store. The calls that arrive while a lease is on the wire wait for it and are served by one
 * round trip. Blocks shrink as the budget runs out (./lease-sizing.ts); spare slots and idle
 * units go back every tick, everything at close. What Redis counts is what was granted, so the
 * instances together never admit more than a limit; what one instance holds unused can be
 * refused to another for a while (docs/scale-out.md states how much and how long). Open photo
 * streams per key are counted in Redis too, each hold renewed every tick (./shared-stream-count.ts).
 *
 * Redis unreachable (documented choice: fail open): the service keeps answering, each decision
 * that needs Redis falls back to this process's in-memory counters (a single instance still
 * enforces its own limits), a warning is logged once per outage, and a reconnect loop with
 * backoff brings Redis back.
 */
export class RedisCounterStore implements CounterStore {
  readonly kind = 'redis' as const
  readonly #client: RedisClient
  readonly #log: Logger
  readonly #local = new MemoryCounterStore()
  readonly #budgets = new Map<number, KeyBudget>()
  readonly #timeoutMs: number
  readonly #reconnectMinMs: number
  readonly #reconnectMaxMs: number
  readonly #staleMs: number
  readonly #idleMs: number
  readonly #clock: () => number
  readonly #sha = {
    lease: new Bun.CryptoHasher('sha1').update(LEASE_SCRIPT).digest('hex'),
    back: new Bun.CryptoHasher('sha1').update(RETURN_SCRIPT).digest('hex'),
  }
  readonly #shaOf = new Map<string, string>([OPEN_STREAM_SCRIPT, RENEW_STREAMS_SCRIPT].map((s) => [s, new Bun.CryptoHasher('sha1').update(s).digest('hex')]))
  readonly #streams: SharedStreamCount
  readonly #instance = crypto.randomUUID()
  #degraded = false
  /** After a failed or slow command, decisions stay local until then (performance.now ms): no request waits on a sick Redis twice a second. */
  #skipUntil = 0
  #closed = false
  #reconnectTimer: ReturnType<typeof setTimeout> | undefined
  #reconnectDelay: number
  #tick: ReturnType<typeof setInterval>

  private constructor(url: string, log: Logger, opts: RedisCounterStoreOptions) {
    this.#log = log
    this.#timeoutMs = opts.commandTimeoutMs ?? 500
    this.#reconnectMinMs = opts.reconnectMinMs ?? 250
    this.#reconnectMaxMs = opts.reconnectMaxMs ?? 5_000
    this.#reconnectDelay = this.#reconnectMinMs
    this.#staleMs = opts.staleInFlightMs ?? 10_000
    this.#idleMs = opts.idleReturnMs ?? 5_000
    this.#clock = opts.clock ?? Date.now
    // No offline queue: while disconnected a command fails at once and we fail open instead of waiting.
    this.#client = new RedisClient(url, { enableOfflineQueue: false, autoReconnect: false, connectionTimeout: 2_000 })
    this.#client.onclose = (err) => {
      if (this.#closed) return
      this.#warn('redis connection lost; rate limits fall back to local counters', err)
      this.#scheduleReconnect()
    }
    this.#client.onconnect = () => {
      this.#reconnectDelay = this.#reconnectMinMs
      this.#skipUntil = 0
      if (this.#degraded) this.#log.log('info', 'rate-limit.redis-restored', {})
      this.#degraded = false
    }
    // The heartbeat must come well within the stale time, or live grants would be dropped.
    const tickMs = Math.min(opts.tickMs ?? 1_000, Math.floor(this.#staleMs / 3))
    this.#tick = setInterval(() => this.#onTick(), tickMs)
    this.#tick.unref?.()
    // An open stream's hold lapses as a dead instance's slots do: after staleMs without renewal.
    this.#streams = new SharedStreamCount(
      {
        eval: (script, keys, argv) => this.#eval(this.#shaOf.get(script)!, script, keys, argv),
        send: (command, args) => this.#client.send(command, args),
        usable: () => this.#usable(),
        failed: (message, err) => {
          this.#warn(message, err)
          if (err !== undefined) this.#skipUntil = performance.now() + 1_000
        },
        timeoutMs: this.#timeoutMs,
        instance: this.#instance,
      },
      this.#staleMs,
    )
  }

  /** Connects (without failing when Redis is down: see the class comment). */
  static async open(url: string, log: Logger, opts: RedisCounterStoreOptions = {}): Promise<RedisCounterStore> {
    const store = new RedisCounterStore(url, log, opts)
    try {
      await withTimeout(store.#client.connect(), 2_000)
      await store.#client.send('SCRIPT', ['LOAD', LEASE_SCRIPT])
      await store.#client.send('SCRIPT', ['LOAD', RETURN_SCRIPT])
      for (const script of store.#shaOf.keys()) await store.#client.send('SCRIPT', ['LOAD', script])
    } catch (err) {
      store.#warn('redis unreachable at start; rate limits use local counters until it answers', err)
      store.#scheduleReconnect()
    }
    return store
  }

  /** Whether decisions currently go to Redis. */
  get connected(): boolean {
    return this.#client.connected && !this.#degraded && performance.now() >= this.#skipUntil
  }

  /** Synchronous while the lease holds a unit and a slot; a promise when Redis must be asked. */
  acquire(id: number, limits: Limits, nowMs: number): Decision | Promise<Decision> {
    const b = this.#budget(id, nowMs)
    if (b.canAdmit()) return this.#admit(b, id, limits, nowMs)
    if (b.units === 0 && nowMs < b.spentUntil) return { refused: b.spentLimit(limits), hourCount: b.hourCount, dayCount: b.dayCount }
    if (!this.#usable()) return this.#fallback(id, limits, nowMs)
    return this.#acquireSlow(b, id, limits, nowMs)
  }

  async #acquireSlow(b: KeyBudget, id: number, limits: Limits, nowMs: number): Promise<Decision> {
    for (let round = 0; round < MAX_LEASE_ROUNDS; round++) {
      b.waiting++
      let grant: Grant
      try {
        grant = await (b.pending ?? this.#lease(b, id, limits, nowMs))
      } catch {
        return this.#fallback(id, limits, nowMs)
      } finally {
        b.waiting--
      }
      if (b.canAdmit()) return this.#admit(b, id, limits, nowMs)
      // Refused only on what a lease asked for and Redis did not grant: a lease that asked for
      // units only (a prefetch) says nothing about slots, and the next round asks for them.
      if (b.units === 0 && grant.wanted.units > 0 && grant.units === 0) {
        b.spentUntil = nowMs + SPENT_RECHECK_MS
        return { refused: b.spentLimit(limits), hourCount: b.hourCount, dayCount: b.dayCount }
      }
      if (b.units > 0 && grant.wanted.slots > 0 && grant.slots === 0) return { refused: 'concurrent', hourCount: b.hourCount, dayCount: b.dayCount }
    }
    return { refused: b.units === 0 ? b.spentLimit(limits) : 'concurrent', hourCount: b.hourCount, dayCount: b.dayCount }
  }

  #admit(b: KeyBudget, id: number, limits: Limits, nowMs: number): Decision {
    b.admit(nowMs)
    // Fetch the next block before this one runs dry: later calls then never wait on Redis.
    if (!b.pending && b.runningLow(limits) && this.#usable()) this.#lease(b, id, limits, nowMs).catch(() => {})
    return { hourCount: b.hourCount, dayCount: b.dayCount, lease: new BudgetLease(b) }
  }

  /**
   * Charges `units` more calls at once (a bulk export), all or nothing, from the lease: the
   * shortfall is leased first. A negative `units` gives calls back to the lease (they stay
   * counted in Redis, unused, and go back there with the lease).
   */
  charge(id: number, units: number, limits: Limits, nowMs: number): Charge | Promise<Charge> {
    const b = this.#budget(id, nowMs)
    if (units <= 0 || b.units >= units) {
      b.units -= units
      b.lastUsedMs = nowMs
      return { hourCount: b.hourCount, dayCount: b.dayCount }
    }
    if (!this.#usable()) return this.#local.charge(id, units, limits, nowMs)
    return (async (): Promise<Charge> => {
      try {
        await (b.pending ?? Promise.resolve()).catch(() => {})
        if (b.units < units) await this.#lease(b, id, limits, nowMs, { units: units - b.units, slots: 0 })
      } catch {
        return this.#local.charge(id, units, limits, nowMs)
      }
      if (b.units < units) return { refused: limits.daily - b.dayCount < units ? 'daily' : 'hourly', hourCount: b.hourCount, dayCount: b.dayCount }
      b.units -= units
      b.lastUsedMs = nowMs
      return { hourCount: b.hourCount, dayCount: b.dayCount }
    })()
  }

  /** One lease call for what `b` wants now (or `wanted`); concurrent callers share it through b.pending. */
  #lease(b: KeyBudget, id: number, limits: Limits, nowMs: number, wanted?: { units: number; slots: number }): Promise<Grant> {
    const want = wanted ?? b.want(limits)
    const { hourStart, dayStart } = b
    const keys = leaseKeys(id, hourStart, dayStart)
    const argv = [
      String(limits.hourly),
      String(limits.daily),
      String(limits.concurrent),
      String(want.units),
      String(want.slots),
      String(nowMs),
      String(this.#staleMs),
      this.#instance,
      String(hourStart + HOUR_MS - nowMs + WINDOW_SLACK_MS),
      String(dayStart + DAY_MS - nowMs + WINDOW_SLACK_MS),
    ]
    const call = this.#eval(this.#sha.lease, LEASE_SCRIPT, keys, argv).then((reply) => {
      const [units, slots, hourTotal, dayTotal, held] = (reply as unknown[]).map(Number) as [number, number, number, number, number]
      return { units, slots, hourTotal, dayTotal, held, wanted: want }
    })
    const pending = withTimeout(call, this.#timeoutMs)
      .then((grant) => {
        this.#degraded = false
        if (!b.take(grant, hourStart, dayStart)) this.#giveBack(id, { hourStart, dayStart, hourUnits: 0, dayUnits: 0, slots: grant.slots }, nowMs)
        return grant
      })
      .catch((err) => {
        // A lease that timed out may still be granted when Redis wakes up: take it then, so the
        // units and slots are used or given back instead of lost.
        call.then((late) => (b.take(late, hourStart, dayStart) ? undefined : this.#giveBack(id, { hourStart, dayStart, hourUnits: 0, dayUnits: 0, slots: late.slots }, nowMs))).catch(() => {})
        this.#warn('redis rate-limit lease failed; using local counters', err)
        this.#skipUntil = performance.now() + 1_000
        throw err
      })
      .finally(() => {
        if (b.pending === pending) b.pending = undefined
      })
    b.pending = pending
    return pending
  }

  /** One place among the key's open streams on every worker and instance (./shared-stream-count.ts). */
  openStream(id: number, limit: number): StreamHold | undefined | Promise<StreamHold | undefined> {
    return this.#streams.open(id, limit)
  }

  /** Open photo streams this process holds for `id` (tests). */
  streamsHeld(id: number): number {
    return this.#streams.held(id)
  }

  async peek(id: number, nowMs: number): Promise<Usage> {
    if (!this.#usable()) return this.#local.peek(id, nowMs)
    const w = windowsAt(nowMs)
    const [h, d] = leaseKeys(id, w.hourStart, w.dayStart)
    // Units this instance holds unused are counted in Redis but were not used by anyone.
    const held = this.#budgets.get(id)
    const unused = held && held.hourStart === w.hourStart ? held.units : 0
    try {
      const [hc, dc] = (await withTimeout(this.#client.send('MGET', [h, d]), this.#timeoutMs)) as Array<string | null>
      return { hourCount: Math.max(0, Number(hc ?? 0) - unused), dayCount: Math.max(0, Number(dc ?? 0) - unused) }
    } catch {
      return this.#local.peek(id, nowMs)
    }
  }

  /**
   * Counts one failed key attempt from `address` in its fixed window (windowMs, aligned on the
   * epoch) shared by every instance; the count so far, or undefined when Redis cannot answer
   * (the caller then counts locally).
   */
  async countFailedAuth(address: string, windowMs: number, nowMs: number): Promise<number | undefined> {
    if (!this.#usable()) return undefined
    const start = nowMs - (nowMs % windowMs)
    const key = `authfail:${start}:${address}`
    try {
      const n = await withTimeout(this.#client.send('EVAL', [FAILED_AUTH_SCRIPT, '1', key, String(windowMs + WINDOW_SLACK_MS)]), this.#timeoutMs)
      return Number(n)
    } catch (err) {
      this.#warn('redis failed-key count failed; using local counters', err)
      this.#skipUntil = performance.now() + 1_000
      return undefined
    }
  }

  status(): CounterStoreStatus {
    return { kind: 'redis', redisConnected: this.connected }
  }

  /** Gives every lease back (so other instances can use it at once), then closes the connection. */
  async close(): Promise<void> {
    if (this.#closed) return
    clearInterval(this.#tick)
    const now = this.#clock()
    if (this.#usable())
      await Promise.allSettled([
        ...[...this.#budgets].map(([id, b]) => {
          b.roll(now)
          return this.#giveBack(id, b.all(), now)
        }),
        this.#streams.close(),
      ])
    this.#closed = true
    clearTimeout(this.#reconnectTimer)
    this.#client.close()
  }

  #budget(id: number, nowMs: number): KeyBudget {
    let b = this.#budgets.get(id)
    if (!b) this.#budgets.set(id, (b = new KeyBudget(nowMs)))
    const back = b.roll(nowMs)
    if (back) void this.#giveBack(id, back, nowMs)
    return b
  }

  #usable(): boolean {
    return this.#client.connected && performance.now() >= this.#skipUntil
  }

  #onTick(): void {
    if (this.#closed || !this.#usable()) return
    this.#streams.renew()
    const now = this.#clock()
    for (const [id, b] of this.#budgets) {
      const rolled = b.roll(now)
      if (rolled) void this.#giveBack(id, rolled, now)
      if (b.pending) continue
      const back = b.spare(now, this.#idleMs)
      // Giving back also records the heartbeat; an instance holding slots speaks every tick.
      if (back || b.slots > 0) void this.#giveBack(id, back ?? { hourStart: b.hourStart, dayStart: b.dayStart, hourUnits: 0, dayUnits: 0, slots: 0 }, now)
      else if (b.idle(now, 60_000)) this.#budgets.delete(id)
    }
  }

  async #giveBack(id: number, back: Giveback, nowMs: number): Promise<void> {
    const keys = leaseKeys(id, back.hourStart, back.dayStart)
    const argv = [String(back.hourUnits), String(back.dayUnits), String(back.slots), this.#instance, String(nowMs), String(this.#staleMs)]
    try {
      await withTimeout(this.#eval(this.#sha.back, RETURN_SCRIPT, keys, argv), this.#timeoutMs)
    } catch {
      // Lost: the units stay counted (under-admission, never over) and the slots lapse once stale.
    }
  }

  async #eval(sha: string, script: string, keys: string[], argv: string[]): Promise<unknown> {
    try {
      return await this.#client.send('EVALSHA', [sha, String(keys.length), ...keys, ...argv])
    } catch (err) {
      if (!String((err as Error)?.message).includes('NOSCRIPT')) throw err
      return await this.#client.send('EVAL', [script, String(keys.length), ...keys, ...argv])
    }
  }

  #fallback(id: number, limits: Limits, nowMs: number): Decision {
    if (!this.#degraded) this.#warn('redis not connected; rate limits use local counters', undefined)
    return this.#local.acquire(id, limits, nowMs)
  }

  #warn(message: string, err: unknown): void {
    if (this.#degraded) return // once per outage
    this.#degraded = true
    this.#log.log('warn', 'rate-limit.redis-unavailable', { message, error: err instanceof Error ? err.message : err === undefined ? undefined : String(err) })
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#reconnectTimer) return
    const delay = this.#reconnectDelay
    this.#reconnectDelay = Math.min(this.#reconnectMaxMs, this.#reconnectDelay * 2)
    this.#reconnectTimer = setTimeout(async () => {
      this.#reconnectTimer = undefined
      if (this.#closed || this.#client.connected) return
      try {
        await withTimeout(this.#client.connect(), 2_000)
      } catch {
        this.#scheduleReconnect()
      }
    }, delay)
    this.#reconnectTimer.unref?.()
  }
}

/** The in-flight slot of one admitted call: back to the instance's lease (not to Redis) when done. */
class BudgetLease implements Lease {
  #budget: KeyBudget | undefined
  constructor(budget: KeyBudget) {
    this.#budget = budget
  }
  release(): void {
    this.#budget?.release()
    this.#budget = undefined
  }
}
