/**
 * HTTP GET for the feed fetcher, polite to NASA's servers and robust against them:
 * - a request rate cap (default 1 per second) shared by every request, retries included;
 * - `Retry-After` honoured on 429 and 503 (RFC 9110 §10.2.3: seconds or an HTTP-date), up to a
 *   bound past which the page counts as failed rather than stalling the run;
 * - exponential backoff with jitter on network errors, timeouts, 5xx and pages that do not
 *   validate (a body cut mid-JSON is a broken transfer, worth another try);
 * - a bounded number of tries, a per-request deadline covering the body, a bounded body size;
 * - conditional requests (RFC 9110 §13.1: If-None-Match / If-Modified-Since) with the validators
 *   the server gave last time; 304 means the saved page still stands.
 */

export interface PoliteOptions {
  /** Requests per second, retries included (default 1). */
  ratePerSecond: number
  /** Attempts per URL before giving up (default 5). */
  tries: number
  /** First backoff; doubles per failed attempt (default 2000 ms), capped at maxBackoffMs (default 60 s). */
  backoffMs: number
  maxBackoffMs: number
  /** Deadline of one attempt, headers and body (default 30 s). */
  timeoutMs: number
  /** Longest Retry-After waited for (default 300 s); a longer one fails the URL for this run. */
  maxRetryAfterS: number
  maxBytes: number
  userAgent: string
}

export const DEFAULT_POLITE: PoliteOptions = {
  ratePerSecond: 1,
  tries: 5,
  backoffMs: 2000,
  maxBackoffMs: 60_000,
  timeoutMs: 30_000,
  maxRetryAfterS: 300,
  maxBytes: 8 * 1024 * 1024,
  userAgent: 'mars-photo-query-fetch/0.1 (+raw-image feed mirror; polite: 1 req/s)',
}

export interface Validators {
  etag?: string
  lastModified?: string
}

export type GetResult<T> = { status: 200; value: T; validators: Validators } | { status: 304 }

export interface ClientStats {
  requests: number
  retries: number
  notModified: number
  /** Seconds spent waiting on Retry-After. */
  retryAfterWaitS: number
}

export class FetchFailed extends Error {}

/** A failure no retry can fix (404, 400, an oversized body): reported at once. */
class Permanent extends Error {}

export class PoliteClient {
  readonly stats: ClientStats = { requests: 0, retries: 0, notModified: 0, retryAfterWaitS: 0 }
  private nextSlot = 0

  constructor(
    private readonly opts: PoliteOptions,
    private readonly random: () => number = Math.random,
  ) {}

  /**
   * GETs `url` and hands the body to `check`, which returns what the caller keeps or throws when
   * the body is not acceptable (then the URL is tried again, like a broken transfer).
   */
  async get<T>(url: string, check: (text: string) => T, conditional?: Validators): Promise<GetResult<T>> {
    let lastError = ''
    for (let attempt = 0; attempt < this.opts.tries; attempt++) {
      if (attempt > 0) this.stats.retries++
      await this.slot()
      let wait: number
      try {
        this.stats.requests++
        const res = await this.request(url, conditional)
        if (res.status === 304 && conditional) {
          this.stats.notModified++
          return { status: 304 }
        }
        if (res.status === 200) {
          const text = await this.body(res)
          const value = check(text)
          return { status: 200, value, validators: validatorsOf(res.headers) }
        }
        await res.body?.cancel().catch(() => {})
        lastError = `HTTP ${res.status}`
        if (res.status === 429 || res.status === 503) {
          const after = retryAfterSeconds(res.headers.get('retry-after'), Date.now())
          if (after !== undefined && after > this.opts.maxRetryAfterS) throw new Permanent(`HTTP ${res.status} asking to wait ${after}s, more than the ${this.opts.maxRetryAfterS}s allowed`)
          if (after !== undefined) {
            this.stats.retryAfterWaitS += after
            wait = after * 1000
          } else wait = this.backoff(attempt)
        } else if (res.status >= 500 || res.status === 408) wait = this.backoff(attempt)
        else throw new Permanent(`HTTP ${res.status}`)
      } catch (e) {
        if (e instanceof Permanent) throw new FetchFailed(`${e.message} for ${url}`)
        lastError = e instanceof Error ? (e.name === 'TimeoutError' ? `timed out after ${this.opts.timeoutMs} ms` : e.message) : String(e)
        wait = this.backoff(attempt)
      }
      if (attempt + 1 < this.opts.tries) await Bun.sleep(wait)
    }
    throw new FetchFailed(`${lastError} for ${url} (${this.opts.tries} tries)`)
  }

  private request(url: string, conditional?: Validators): Promise<Response> {
    const headers: Record<string, string> = { 'user-agent': this.opts.userAgent, accept: 'application/json' }
    if (conditional?.etag) headers['if-none-match'] = conditional.etag
    if (conditional?.lastModified) headers['if-modified-since'] = conditional.lastModified
    return fetch(url, { headers, redirect: 'error', signal: AbortSignal.timeout(this.opts.timeoutMs) })
  }

  /** The body as text, refused past maxBytes whether or not Content-Length announced it. */
  private async body(res: Response): Promise<string> {
    const announced = Number(res.headers.get('content-length'))
    if (Number.isFinite(announced) && announced > this.opts.maxBytes) {
      await res.body?.cancel().catch(() => {})
      throw new Permanent(`body of ${announced} bytes is over ${this.opts.maxBytes}`)
    }
    const chunks: Uint8Array[] = []
    let size = 0
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength
      if (size > this.opts.maxBytes) throw new Permanent(`body over ${this.opts.maxBytes} bytes`)
      chunks.push(chunk)
    }
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks))
  }

  /** Waits for this request's turn under the rate cap. */
  private async slot(): Promise<void> {
    const now = performance.now()
    const at = Math.max(now, this.nextSlot)
    this.nextSlot = at + 1000 / this.opts.ratePerSecond
    if (at > now) await Bun.sleep(at - now)
  }

  /** Half the exponential step plus a random half ("equal jitter"): spread out, never zero. */
  private backoff(attempt: number): number {
    const step = Math.min(this.opts.maxBackoffMs, this.opts.backoffMs * 2 ** attempt)
    return step / 2 + this.random() * (step / 2)
  }
}

function validatorsOf(h: Headers): Validators {
  const v: Validators = {}
  const etag = h.get('etag')
  const lm = h.get('last-modified')
  if (etag && etag.length <= 256) v.etag = etag
  if (lm && lm.length <= 64) v.lastModified = lm
  return v
}

/** Retry-After as seconds from now: delta-seconds or an HTTP-date (RFC 9110 §10.2.3). */
export function retryAfterSeconds(value: string | null, now: number): number | undefined {
  if (!value) return undefined
  const v = value.trim()
  if (/^\d{1,9}$/.test(v)) return Number(v)
  if (v.length > 64) return undefined
  const at = Date.parse(v)
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - now) / 1000)) : undefined
}
