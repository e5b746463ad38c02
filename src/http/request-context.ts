import type { KeyRecord } from '../keys/key-store'
import type { Store } from '../store/store'
import type { Lease } from '../limits/counter-store'
import type { ProblemError } from './problems'

/**
 * Everything one request gathers on its way through the pipeline, in one typed object created
 * once per request (by the edge, app/edge.ts, or by the first reader) and read by every
 * gate, renderer and handler through contextOf():
 *  - `route`: the route pattern Elysia matched, as the first gate saw it (the access log and
 *    metrics name it); undefined when the request was answered before routing;
 *  - `key`: the key record auth found (undefined for a route that needs none);
 *  - `store`: the index snapshot pinned for the request (StoreHolder.forRequest), so the ETag,
 *    the query and the answer belong to one index version even when a reload swaps mid-request;
 *  - gate headers written straight into the Response when it is built (cheaper than Elysia's
 *    `set.headers`, which costs a header merge on every response): `always` on every answer,
 *    errors included (X-RateLimit-*), `success` on 2xx answers only (ETag, Cache-Control);
 *  - release callbacks run once the Response exists (the in-flight slot, `lease`, goes back
 *    there; Elysia's onAfterResponse would do, but costs a setImmediate per request), and
 *    renewals for long answers; `star`/`notModified` for `If-None-Match: *`, decided once the answer is known;
 *  - the request id, start time, and the answer body's size and coding (access log, metrics).
 *
 * Where it lives: in a property of the Request object itself, under a symbol no other module
 * can name, so a context can never be reached from another request and goes away with its
 * request. Not an Elysia `derive`: the edge runs in Elysia's `wrap`, outside its context
 * object, and so do code paths in src/ that are handed only the Request (the cached answer, the
 * store holder); a derive would also cost Elysia a context merge per request. Not a WeakMap keyed
 * by the Request: on a busy server its inserts (a table that grows until the collector prunes it)
 * and the five lookups per request cost several percent of a 304 (bench/http CPU profile); a
 * symbol property is a plain property load.
 */
export class RequestContext {
  route: string | undefined = undefined
  key: KeyRecord | undefined = undefined
  store: Store | undefined = undefined
  always: Readonly<Record<string, string>> | undefined = undefined
  success: Readonly<Record<string, string>> | undefined = undefined
  whenAnswered: Array<() => void> | undefined = undefined
  whenRenewed: Array<(nowMs: number) => void> | undefined = undefined
  /** The in-flight slot the rate limit took for this request: given back with the whenAnswered callbacks (kept apart: no closure per request). */
  lease: Lease | undefined = undefined
  /** The 400 for query names the route does not take, null when it takes them all; undefined until decided (./query-problem.ts). */
  queryProblem: ProblemError | null | undefined = undefined
  /** `If-None-Match: *` on an existing GET resource: a successful answer becomes 304. */
  star = false
  /** Set when that happened, before the whenAnswered callbacks run (the rate limit leaves a 304 uncounted). */
  notModified = false
  /** Bytes of the answer body as sent, and its content coding, where the body is built. */
  #bodyBytes = -1
  #bodyText: string | undefined = undefined
  bodyCoding: string | undefined = undefined
  /** True once a renderer put X-Request-Id into the Response it built (the edge then need not set it). */
  idSent = false
  /** The cached answer the body was stamped from, so compression can splice its pieces. */
  template: AnswerTemplate | undefined = undefined
  #id: string | undefined = undefined
  #ifNoneMatch: string | null | undefined = undefined

  constructor(
    readonly request: Request,
    readonly started: number,
  ) {}

  /**
   * The request id: the client's X-Request-Id when it is a plausible id (1-128 characters of
   * A-Z a-z 0-9 . _ : -, so it cannot inject into a log line or a header), else a new UUID.
   * Decided once, so the echoed header, the access log and a 500's detail name the same id.
   */
  get id(): string {
    if (this.#id === undefined) {
      const given = this.request.headers.get('x-request-id')
      this.#id = given !== null && VALID_ID.test(given) ? given : crypto.randomUUID()
    }
    return this.#id
  }

  /** The If-None-Match header, read once for the edge and the ETag gate. */
  get ifNoneMatch(): string | null {
    if (this.#ifNoneMatch === undefined) this.#ifNoneMatch = this.request.headers.get('if-none-match')
    return this.#ifNoneMatch
  }

  /**
   * Adds gate headers of one kind. `headers` is kept as given (no copy: the ETag gate hands over
   * one frozen object per URL) and never written to: a second call merges into a new object.
   */
  addHeaders(kind: 'always' | 'success', headers: Readonly<Record<string, string>>): void {
    const cur = this[kind]
    this[kind] = cur ? { ...cur, ...headers } : headers
  }

  onAnswered(fn: () => void): void {
    ;(this.whenAnswered ??= []).push(fn)
  }

  onRenewed(fn: (nowMs: number) => void): void {
    ;(this.whenRenewed ??= []).push(fn)
  }

  /** Runs (once) the callbacks registered to run when the answer exists, and gives the lease back. */
  answered(): this {
    const lease = this.lease
    if (lease !== undefined) {
      this.lease = undefined
      lease.release()
    }
    const fns = this.whenAnswered
    if (fns !== undefined) {
      this.whenAnswered = undefined
      for (const fn of fns) fn()
    }
    return this
  }

  /**
   * For an answer that goes on after its Response exists (a streamed body): takes the
   * whenAnswered callbacks out, so building the Response does not run them (the in-flight slot
   * stays held), and hands them back as `finish` (idempotent) for when the stream ends, however
   * it ends; `renew` keeps the held resources from being taken for leaked while the stream runs.
   */
  hold(): { finish(): void; renew(nowMs: number): void } {
    const held = this.whenAnswered ?? []
    const renewals = this.whenRenewed ?? []
    const lease = this.lease
    this.whenAnswered = undefined
    this.whenRenewed = undefined
    this.lease = undefined
    let done = false
    return {
      finish() {
        if (done) return
        done = true
        lease?.release()
        for (const fn of held) fn()
      },
      renew(nowMs) {
        if (done) return
        lease?.renew?.(nowMs)
        for (const fn of renewals) fn(nowMs)
      },
    }
  }

  /** Puts X-Request-Id into the headers of the Response about to be built from them. */
  stampId(headers: Record<string, unknown>): void {
    headers['x-request-id'] = this.id
    this.idSent = true
  }

  noteBody(bytes: number, coding?: string): void {
    this.#bodyBytes = bytes
    this.#bodyText = undefined
    this.bodyCoding = coding
  }

  /** An uncoded text body: its UTF-8 length is measured only if someone asks (the access log). */
  noteText(text: string): void {
    this.#bodyText = text
    this.#bodyBytes = -1
    this.bodyCoding = undefined
  }

  /** Bytes of the body as noted, or -1 when none was. */
  get bodyBytes(): number {
    if (this.#bodyText !== undefined) {
      this.#bodyBytes = Buffer.byteLength(this.#bodyText)
      this.#bodyText = undefined
    }
    return this.#bodyBytes
  }
}

/** A cached answer's text and its per-coding compressed pieces (the response cache's entry; compression splices them). */
export interface AnswerTemplate {
  readonly text: string
  readonly variants: Map<string, unknown>
}

const VALID_ID = /^[A-Za-z0-9._:-]{1,128}$/
/** The property of a Request that holds its context (module-private: nothing else can read or write it). */
const SLOT = Symbol('request context')
type Holder = { [SLOT]?: RequestContext }

/** The request's context, created on first use (the edge creates it first, with the start time). */
export function contextOf(request: Request): RequestContext {
  const holder = request as Request & Holder
  let c = holder[SLOT]
  if (c === undefined) holder[SLOT] = c = new RequestContext(request, performance.now())
  return c
}
