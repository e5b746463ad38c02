import { RedisClient } from 'bun'
import type { Logger } from '../log'
import type { Charge, CounterStore, CounterStoreStatus, Decision, Lease, Limits, Usage } from './counter-store'
import { MemoryCounterStore, STALE_IN_FLIGHT_MS } from './memory-counter-store'
import { CHARGE_SCRIPT, counterKeys, RATE_LIMIT_SCRIPT, REFUSAL_CODES } from './rate-limit-script'
import { DAY_MS, HOUR_MS, windowsAt } from './windows'

export interface RedisCounterStoreOptions {
  /** A command slower than this fails open for that request, ms. */
  commandTimeoutMs?: number
  /** First and largest delay between reconnection attempts, ms. */
  reconnectMinMs?: number
  reconnectMaxMs?: number
  staleInFlightMs?: number
}

const WINDOW_SLACK_MS = 60_000

/**
 * Counters in Redis, shared by every instance. Each decision is one EVALSHA of
 * RATE_LIMIT_SCRIPT. Bun's built-in client (RedisClient.send) runs it.
 *
 * Redis unreachable (documented choice: fail open): the service keeps answering, each decision
 * falls back to this process's in-memory counters (so a single instance still enforces its own
 * limits), a warning is logged once per outage, and a reconnect loop with backoff brings Redis back;
 * decisions go back to Redis as soon as it answers again.
 */
export class RedisCounterStore implements CounterStore {
  readonly kind = 'redis' as const
  readonly #client: RedisClient
  readonly #log: Logger
  readonly #local = new MemoryCounterStore()
  readonly #timeoutMs: number
  readonly #reconnectMinMs: number
  readonly #reconnectMaxMs: number
  readonly #staleMs: number
  readonly #sha = new Bun.CryptoHasher('sha1').update(RATE_LIMIT_SCRIPT).digest('hex')
  readonly #instance = crypto.randomUUID().slice(0, 8)
  #token = 0
  #degraded = false
  /** After a failed or slow command, decisions stay local until then (performance.now ms): no request waits on a sick Redis twice a second. */
  #skipUntil = 0
  #closed = false
  #reconnectTimer: ReturnType<typeof setTimeout> | undefined
  #reconnectDelay: number

  private constructor(url: string, log: Logger, opts: RedisCounterStoreOptions) {
    this.#log = log
    this.#timeoutMs = opts.commandTimeoutMs ?? 500
    this.#reconnectMinMs = opts.reconnectMinMs ?? 250
    this.#reconnectMaxMs = opts.reconnectMaxMs ?? 5_000
    this.#reconnectDelay = this.#reconnectMinMs
    this.#staleMs = opts.staleInFlightMs ?? STALE_IN_FLIGHT_MS
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
  }

  /** Connects (without failing when Redis is down: see the class comment). */
  static async open(url: string, log: Logger, opts: RedisCounterStoreOptions = {}): Promise<RedisCounterStore> {
    const store = new RedisCounterStore(url, log, opts)
    try {
      await withTimeout(store.#client.connect(), 2_000)
      await store.#client.send('SCRIPT', ['LOAD', RATE_LIMIT_SCRIPT])
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

  async acquire(id: number, limits: Limits, nowMs: number): Promise<Decision> {
    if (!this.#client.connected || performance.now() < this.#skipUntil) return this.#fallback(id, limits, nowMs)
    const w = windowsAt(nowMs)
    const keys = counterKeys(id, w.hourStart, w.dayStart)
    const token = `${this.#instance}:${++this.#token}`
    const argv = [
      String(limits.hourly),
      String(limits.daily),
      String(limits.concurrent),
      String(nowMs),
      String(this.#staleMs),
      token,
      String(w.hourStart + HOUR_MS - nowMs + WINDOW_SLACK_MS),
      String(w.dayStart + DAY_MS - nowMs + WINDOW_SLACK_MS),
    ]
    let reply: [number, number, number]
    const pending = this.#eval(keys, argv)
    try {
      reply = await withTimeout(pending, this.#timeoutMs)
    } catch (err) {
      // A decision that timed out may still run when Redis wakes up: give its slot back then
      // (its count stays: an over-count of one call, on the safe side).
      pending.then((late) => Number(late?.[0]) === 0 && this.#client.send('ZREM', [keys[2], token]).catch(() => {})).catch(() => {})
      this.#warn('redis rate-limit decision failed; using local counters', err)
      this.#skipUntil = performance.now() + 1_000
      return this.#fallback(id, limits, nowMs)
    }
    this.#degraded = false
    const [code, hourCount, dayCount] = reply.map(Number) as [number, number, number]
    if (code !== 0) return { refused: REFUSAL_CODES[code as 1 | 2 | 3], hourCount, dayCount }
    return { hourCount, dayCount, lease: new RedisLease(this.#client, keys[2], token, this.#staleMs) }
  }

  async charge(id: number, units: number, limits: Limits, nowMs: number): Promise<Charge> {
    if (!this.#client.connected || performance.now() < this.#skipUntil) return this.#local.charge(id, units, limits, nowMs)
    const w = windowsAt(nowMs)
    const [h, d] = counterKeys(id, w.hourStart, w.dayStart)
    const argv = [String(units), String(limits.hourly), String(limits.daily), String(w.hourStart + HOUR_MS - nowMs + WINDOW_SLACK_MS), String(w.dayStart + DAY_MS - nowMs + WINDOW_SLACK_MS)]
    try {
      const reply = (await withTimeout(this.#client.send('EVAL', [CHARGE_SCRIPT, '2', h, d, ...argv]), this.#timeoutMs)) as number[]
      const [code, hourCount, dayCount] = reply.map(Number) as [number, number, number]
      return code === 0 ? { hourCount, dayCount } : { refused: code === 1 ? 'hourly' : 'daily', hourCount, dayCount }
    } catch (err) {
      // Fail open as acquire does: this instance's own counters decide.
      this.#warn('redis charge failed; using local counters', err)
      this.#skipUntil = performance.now() + 1_000
      return this.#local.charge(id, units, limits, nowMs)
    }
  }

  async peek(id: number, nowMs: number): Promise<Usage> {
    if (!this.#client.connected || performance.now() < this.#skipUntil) return this.#local.peek(id, nowMs)
    const w = windowsAt(nowMs)
    const [h, d] = counterKeys(id, w.hourStart, w.dayStart)
    try {
      const [hc, dc] = (await withTimeout(this.#client.send('MGET', [h, d]), this.#timeoutMs)) as Array<string | null>
      return { hourCount: Number(hc ?? 0), dayCount: Number(dc ?? 0) }
    } catch {
      return this.#local.peek(id, nowMs)
    }
  }

  status(): CounterStoreStatus {
    return { kind: 'redis', redisConnected: this.connected }
  }

  async close(): Promise<void> {
    this.#closed = true
    clearTimeout(this.#reconnectTimer)
    this.#client.close()
  }

  async #eval(keys: string[], argv: string[]): Promise<[number, number, number]> {
    try {
      return await this.#client.send('EVALSHA', [this.#sha, String(keys.length), ...keys, ...argv])
    } catch (err) {
      if (!String((err as Error)?.message).includes('NOSCRIPT')) throw err
      return await this.#client.send('EVAL', [RATE_LIMIT_SCRIPT, String(keys.length), ...keys, ...argv])
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

class RedisLease implements Lease {
  #done = false
  constructor(
    private readonly client: RedisClient,
    private readonly set: string,
    private readonly token: string,
    private readonly staleMs: number,
  ) {}
  release(): void {
    if (this.#done) return
    this.#done = true
    // Fire and forget: if this is lost, the script purges the slot once it is stale.
    this.client.send('ZREM', [this.set, this.token]).catch(() => {})
  }
  renew(nowMs: number): void {
    if (this.#done) return
    // XX: only a slot still held is refreshed (a purged one stays purged).
    this.client.send('ZADD', [this.set, 'XX', String(nowMs), this.token]).catch(() => {})
    this.client.send('PEXPIRE', [this.set, String(this.staleMs)]).catch(() => {})
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout>
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`redis command timed out after ${ms} ms`)), ms)
  })
  return Promise.race([p, t]).finally(() => clearTimeout(timer))
}
