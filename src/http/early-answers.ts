import type { RequestContext } from './request-context'

/**
 * What a gate says about a request at the edge: `next` (decided here, ask the next gate),
 * `pipeline` (cannot be decided here: the whole pipeline answers, as if the edge had not looked),
 * or the answer itself.
 */
export type EarlyVerdict = 'next' | 'pipeline' | Response | Promise<Response>
export type EarlyGate = (ctx: RequestContext, request: Request, route: string) => EarlyVerdict

const MAX_ENTRIES = 4096
const MAX_URL_LENGTH = 2048

/**
 * Revalidations (`If-None-Match` on a keyed GET; a HEAD goes through Elysia, whose HEAD answer
 * carries its own framing headers) answered at the edge, before Elysia routes the
 * request and runs its hooks: a 304 then costs the key lookup, the tag and the 304 itself.
 *
 * Which route the request is for is never decided here: it is the route Elysia matched for the
 * very same method and URL string on an earlier request (noted by the ETag gate), and Elysia's
 * match is a function of those two alone (the path read from the URL; nothing else routes). A
 * URL that has not been routed yet, or any doubt in a gate (no key header, a key store that must
 * be asked asynchronously, an unknown key, `If-None-Match: *`), goes down the whole pipeline,
 * which decides as always; the gates here run the same functions (authenticate, the ETag
 * validators, the counters' peek) and leave what they decided in the request's context, where
 * the pipeline's gates find it instead of deciding again. The gates register in pipeline order
 * (auth, then ETag). Bounded: cleared when full; long URLs are not kept.
 */
export class EarlyAnswers {
  readonly #get = new Map<string, string>()
  readonly #gates: EarlyGate[] = []

  /** Records the route Elysia matched for a GET of `url`. */
  noteRoute(method: string, url: string, route: string): void {
    const m = this.#get
    if (method !== 'GET' || url.length > MAX_URL_LENGTH || m.get(url) === route) return
    if (m.size >= MAX_ENTRIES) m.clear()
    m.set(url, route)
  }

  addGate(gate: EarlyGate): void {
    this.#gates.push(gate)
  }

  /** The answer decided at the edge, or undefined: the pipeline answers. */
  answer(ctx: RequestContext, request: Request): Response | Promise<Response> | undefined {
    if (this.#gates.length === 0) return undefined
    if (request.method !== 'GET') return undefined
    const route = this.#get.get(request.url)
    if (route === undefined) return undefined
    ctx.route = route
    for (const gate of this.#gates) {
      const v = gate(ctx, request, route)
      if (v === 'next') continue
      return v === 'pipeline' ? undefined : v
    }
    return undefined
  }
}
