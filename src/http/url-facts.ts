import type { ProblemError } from './problems'
import { unknownNamesProblem } from './query-names'
import { requestKey, responseCacheKey } from './request-key'

/**
 * What the gates and handlers derive from a request URL alone (path, canonical request key,
 * origin, route facts), computed once per distinct URL string and shared by every request with
 * that URL. Why: the bench's hot requests repeat one URL, and before this memo every request
 * parsed it 2-3 times (new URL, URLSearchParams, sort + encodeURIComponent in requestKey) and
 * rebuilt method lists: about 4 µs of the ~21 µs a 304 cost in process (bench/http).
 *
 * The memo holds only URL-derived values (never anything from headers), so sharing it between
 * requests cannot leak one request's state into another; per-request state lives in the
 * request's context (./request-context.ts). Bounded: cleared when full; very long URLs are not kept.
 */
export interface UrlFacts {
  readonly url: string
  /** The path as sent (pathOf): no query, no fragment. */
  readonly path: string
  /** requestKey('GET', path, query) (memoised; the key of GET and HEAD alike for the ETag). */
  getKey(): string
  /** The query parameters, as a fresh object (callers may hand it to code that mutates it). */
  params(): URLSearchParams
  /** `${protocol}//${host}` of the URL as new URL() normalises it. */
  urlOrigin(): string
  /**
   * The response cache's key of a GET of this URL (responseCacheKey(version, base, getKey())),
   * kept for the last index version and origin asked: one flat string per URL, its hash computed once.
   */
  cacheKey(version: string, base: string): string
  /**
   * The 400 for the query names that `takes` (a route's names, src/http/route-docs.ts) does not
   * hold, or null (src/http/query-names.ts); kept for the last set asked, so a URL is judged once per route.
   */
  queryProblem(takes: ReadonlySet<string>): ProblemError | null
  /** Whether the query has an `api_key` parameter, in any case (as the request key drops it). */
  hasQueryKey(): boolean
}

const MAX_ENTRIES = 4096
const MAX_URL_LENGTH = 2048
const memo = new Map<string, UrlFacts>()

class Facts implements UrlFacts {
  #key?: string
  #origin?: string
  #cacheVersion?: string
  #cacheBase?: string
  #cacheKey = ''
  #takes?: ReadonlySet<string>
  #hasQueryKey?: boolean
  #queryProblem: ProblemError | null = null
  constructor(
    readonly url: string,
    readonly path: string,
  ) {}

  getKey(): string {
    return (this.#key ??= requestKey('GET', this.path, this.params()))
  }

  params(): URLSearchParams {
    return new URL(this.url).searchParams
  }

  cacheKey(version: string, base: string): string {
    if (version !== this.#cacheVersion || base !== this.#cacheBase) {
      // Flattened now (a concatenation is a rope until read), so every later lookup hashes a flat string once.
      const k = responseCacheKey(version, base, this.getKey())
      k.charCodeAt(0)
      this.#cacheKey = k
      this.#cacheVersion = version
      this.#cacheBase = base
    }
    return this.#cacheKey
  }

  queryProblem(takes: ReadonlySet<string>): ProblemError | null {
    if (takes !== this.#takes) {
      this.#queryProblem = unknownNamesProblem(takes, this.params())
      this.#takes = takes
    }
    return this.#queryProblem
  }

  hasQueryKey(): boolean {
    if (this.#hasQueryKey === undefined) {
      this.#hasQueryKey = false
      for (const name of this.params().keys()) if (name.toLowerCase() === 'api_key') this.#hasQueryKey = true
    }
    return this.#hasQueryKey
  }

  urlOrigin(): string {
    if (this.#origin === undefined) {
      const u = new URL(this.url)
      this.#origin = `${u.protocol}//${u.host}`
    }
    return this.#origin
  }
}

/** The facts of `url` (an absolute request URL). */
export function urlFacts(url: string): UrlFacts {
  let f = memo.get(url)
  if (f === undefined) {
    f = new Facts(url, pathOf(url))
    if (url.length <= MAX_URL_LENGTH) {
      if (memo.size >= MAX_ENTRIES) memo.clear()
      memo.set(url, f)
    }
  }
  return f
}

/** The path of an absolute request URL without building a URL object (hot path). */
export function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start < 0) return '/'
  let end = url.indexOf('?', start)
  if (end < 0) end = url.length
  const hash = url.indexOf('#', start)
  if (hash >= 0 && hash < end) end = hash
  return url.slice(start, end)
}
