/**
 * What the gates attach to one request's answer, kept per Request object:
 *  - headers written straight into the Response when it is built (here for success bodies, in
 *    plugins/errors for problems, in plugins/etag for 304s); cheaper than Elysia's `set.headers`,
 *    which costs a header merge on every response:
 *      `always`: on every answer, errors included (X-RateLimit-*);
 *      `success`: on 2xx answers only (ETag, Cache-Control);
 *  - `whenAnswered`: callbacks run once the Response exists (the rate limit gives its in-flight
 *    slot back there). Elysia's onAfterResponse would do, but it costs a setImmediate per request.
 * Every path that ends a request calls answered(): content-type's mapResponse (any handler result)
 * and the errors plugin's onError (any failure, Elysia's own included).
 */
export interface AnswerState {
  always?: Readonly<Record<string, string>>
  success?: Readonly<Record<string, string>>
  whenAnswered?: Array<() => void>
  /** `If-None-Match: *` on an existing GET resource: a successful answer becomes 304 (plugins/etag). */
  star?: boolean
  /** Set when that happened, before the whenAnswered callbacks run (the rate limit leaves a 304 uncounted). */
  notModified?: boolean
  /** Callbacks that mark held resources (the in-flight slot) as still in use, for long answers. */
  whenRenewed?: Array<(nowMs: number) => void>
  /** The route pattern Elysia matched, as the gates saw it (the access log and metrics name it). */
  route?: string
}

const byRequest = new WeakMap<Request, AnswerState>()

function state(request: Request): AnswerState {
  let s = byRequest.get(request)
  if (!s) byRequest.set(request, (s = {}))
  return s
}

/**
 * `headers` is kept as given (no copy: the ETag plugin hands over one frozen object per URL) and
 * never written to: a second call for the same kind merges into a new object.
 */
export function addHeaders(request: Request, kind: 'always' | 'success', headers: Readonly<Record<string, string>>): void {
  const s = state(request)
  const cur = s[kind]
  s[kind] = cur ? { ...cur, ...headers } : headers
}

export function whenAnswered(request: Request, fn: () => void): void {
  const s = state(request)
  ;(s.whenAnswered ??= []).push(fn)
}

export function markStarConditional(request: Request): void {
  state(request).star = true
}

export function whenRenewed(request: Request, fn: (nowMs: number) => void): void {
  const s = state(request)
  ;(s.whenRenewed ??= []).push(fn)
}

/**
 * For an answer that goes on after its Response exists (a streamed body): takes the request's
 * whenAnswered callbacks out, so building the Response does not run them (the in-flight slot
 * stays held), and hands them back as `finish` (idempotent) for when the stream ends, however
 * it ends; `renew` keeps the held resources from being taken for leaked while the stream runs.
 */
export function holdAnswer(request: Request): { finish(): void; renew(nowMs: number): void } {
  const s = state(request)
  const held = s.whenAnswered ?? []
  const renewals = s.whenRenewed ?? []
  s.whenAnswered = undefined
  s.whenRenewed = undefined
  let done = false
  return {
    finish() {
      if (done) return
      done = true
      for (const fn of held) fn()
    },
    renew(nowMs) {
      if (!done) for (const fn of renewals) fn(nowMs)
    },
  }
}

/** Records the route Elysia matched for this request, once, where the gates read it. */
export function noteRoute(request: Request, route: string): void {
  state(request).route = route
}

/** The route Elysia matched, or undefined when the request was answered before routing. */
export function matchedRoute(request: Request): string | undefined {
  return byRequest.get(request)?.route
}

export function answerState(request: Request): AnswerState | undefined {
  return byRequest.get(request)
}

/** Runs (once) the callbacks registered for this request; returns its state for the headers. */
export function answered(request: Request): AnswerState | undefined {
  const s = byRequest.get(request)
  if (s?.whenAnswered) {
    const fns = s.whenAnswered
    s.whenAnswered = undefined
    for (const fn of fns) fn()
  }
  return s
}
