/**
 * Slows key guessing: per client address, requests that carried an X-API-Key the service does not
 * know (unknown, revoked or malformed) are counted in a fixed window (default 30 per 60 s,
 * AUTH_FAIL_LIMIT / AUTH_FAIL_WINDOW_S; 0 turns it off). Past the limit, further failed attempts
 * from that address get 429 with Retry-After (RFC 6585 §4, RFC 9110 §10.2.3) until the window
 * ends. Valid keys are looked up first and never counted nor refused, so a user behind the same
 * address as a guesser keeps working. A missing key is not a guess and is not counted.
 *
 * Addresses are bucketed so that one client cannot dodge the count by rotating addresses it
 * owns cheaply: IPv4-mapped IPv6 is read as IPv4, other IPv6 addresses count per /64 (the usual
 * size of one subscriber's prefix). The table is bounded (maxAddresses, the oldest window is
 * dropped first), so a flood of addresses costs bounded memory. Counts live in this process only.
 */
export interface FailedAuthThrottleOptions {
  /** Failed attempts allowed per address per window; 0 disables the throttle. */
  limit: number
  windowMs: number
  /** Addresses tracked at once (default 100,000). */
  maxAddresses?: number
}

interface Window {
  start: number
  count: number
}

export class FailedAuthThrottle {
  readonly limit: number
  readonly windowMs: number
  readonly #max: number
  /** Insertion order = window start order: the first entry is the oldest. */
  readonly #windows = new Map<string, Window>()

  constructor(opts: FailedAuthThrottleOptions) {
    this.limit = Math.max(0, Math.floor(opts.limit))
    this.windowMs = Math.max(1, opts.windowMs)
    this.#max = Math.max(1, opts.maxAddresses ?? 100_000)
  }

  get enabled(): boolean {
    return this.limit > 0
  }

  /** Addresses currently tracked. */
  get size(): number {
    return this.#windows.size
  }

  /**
   * Counts one failed attempt from `address` at `nowMs`. Returns undefined while the address is
   * within its limit, else the whole seconds until its window ends (at least 1).
   */
  fail(address: string, nowMs: number): number | undefined {
    if (!this.enabled) return undefined
    let w = this.#windows.get(address)
    if (!w || nowMs >= w.start + this.windowMs || nowMs < w.start) {
      if (w) this.#windows.delete(address)
      else if (this.#windows.size >= this.#max) this.#windows.delete(this.#windows.keys().next().value!)
      w = { start: nowMs, count: 0 }
      this.#windows.set(address, w)
    }
    w.count++
    if (w.count <= this.limit) return undefined
    return Math.max(1, Math.ceil((w.start + this.windowMs - nowMs) / 1000))
  }

  /** True when this attempt is the first one refused in its window (log it once, not per request). */
  firstRefusal(address: string): boolean {
    return this.#windows.get(address)?.count === this.limit + 1
  }
}

/**
 * The client address a request is counted under: the peer address of the connection, or, when
 * the service sits behind a proxy it trusts (TRUST_PROXY), the last X-Forwarded-For entry (the
 * one that proxy appended; earlier entries are whatever the client sent). Undefined when neither
 * is known (a request handed to app.handle without a socket): such requests are not throttled.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | null, trustProxy: boolean): string | undefined {
  if (trustProxy && forwardedFor) {
    const last = forwardedFor.slice(forwardedFor.lastIndexOf(',') + 1).trim()
    if (last) return addressBucket(last)
  }
  return peer ? addressBucket(peer) : undefined
}

/** `::ffff:1.2.3.4` -> `1.2.3.4`; other IPv6 -> its /64 prefix; anything else as it is (bounded in length). */
export function addressBucket(ip: string): string {
  let a = ip.trim().toLowerCase()
  if (a.startsWith('[')) a = a.slice(1, a.indexOf(']') > 0 ? a.indexOf(']') : undefined)
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(a)
  if (mapped) return mapped[1]!
  if (!a.includes(':')) return a.slice(0, 64)
  const zone = a.indexOf('%')
  if (zone >= 0) a = a.slice(0, zone)
  const [head = '', tail] = a.split('::', 2) as [string, string | undefined]
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const groups = tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
  const prefix = groups.slice(0, 4).map((g) => (g.replace(/^0+(?=.)/, '') || '0').slice(0, 4))
  while (prefix.length < 4) prefix.push('0')
  return `${prefix.join(':')}::/64`
}
