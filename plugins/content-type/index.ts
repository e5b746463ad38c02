import { Elysia } from 'elysia'
import type { AppDeps } from '../../src/app-deps'
import { JsonBody } from '../../src/http/json-body'
import { ProblemError } from '../../src/http/problems'
import { CATCH_ALL_ROUTE } from '../../src/http/route-docs'
import { negotiateMediaType } from '../../src/http/negotiate'
import { bodyOnSafeMethod, bodyTooLarge } from './body-limit'
import { contextOf, type RequestContext } from '../../src/http/request-context'
import { syncHook } from '../../src/http/sync-hook'
import { HeaderSet } from '../../src/http/header-set'
import { RATE_LIMIT_FIELD_NAMES, RateLimitFields } from '../../src/limits/limit-rules'

/**
 * Content coding of a JSON body (plugins/compression): the body to send, its coding noted in the
 * request's context (`bodyCoding`); its answers vary on Accept-Encoding too.
 */
export type Encode = (request: Request, text: string) => string | Uint8Array

/**
 * Turns what resource handlers return (JsonBody, or a plain object/array) into a Response whose
 * Content-Type is the media type Accept asks for (src/http/negotiate.ts), with `Vary: Accept`
 * (RFC 9110 §12.5.5) and `X-Content-Type-Options: nosniff` (the body is data, never to be sniffed
 * as HTML). Error bodies are negotiated the same way by plugins/errors.
 * Mounted before any route: Elysia applies a global mapResponse only to routes added after it.
 */
export function contentTypePlugin(_deps: AppDeps, opts: { encode?: Encode } = {}) {
  const encode = opts.encode
  // Synchronous: declared so (src/http/sync-hook.ts).
  const map = syncHook(({ response, request, set }: { response: unknown; request: Request; set: { status?: number | string; headers: Record<string, unknown> } }) =>
    toResponse(response, request, set, encode),
  )
  return new Elysia({ name: 'content-type' }).mapResponse({ as: 'global' }, map)
}

/** A handler's result as a Response with the gate headers, or undefined to leave it to Elysia. */
function toResponse(response: unknown, request: Request, set: { status?: number | string; headers: Record<string, unknown> }, encode?: Encode): Response | undefined {
  const g = contextOf(request)
  if (g.star && response instanceof JsonBody && response.status >= 200 && response.status < 300) {
    // RFC 9110 §13.1.2: `*` matched a representation that exists, for a request that was valid.
    g.notModified = true
    g.answered()
    const headers: Record<string, string> = { ...g.success, vary: encode ? 'Accept, Accept-Encoding' : 'Accept', ...g.always }
    g.stampId(headers)
    return new Response(null, { status: 304, headers })
  }
  g.answered()
  if (response instanceof JsonBody) return jsonResponse(request, g, response.text, response.status, response.headers, encode)
  if (response instanceof Response) return g.success || g.always ? withGateHeaders(response, g) : response
  if (response !== null && typeof response === 'object' && isPlainJson(response))
    return jsonResponse(request, g, JSON.stringify(response), typeof set.status === 'number' ? set.status : 200)
  // Anything else (a string, nothing) Elysia maps itself: hand it the gate headers the slow way.
  const status = typeof set.status === 'number' ? set.status : 200
  if (g.success && status >= 200 && status < 300) Object.assign(set.headers, g.success)
  if (g.always) Object.assign(set.headers, g.always)
  return undefined
}

function jsonResponse(request: Request, g: RequestContext, text: string, status: number, own?: Record<string, string>, encode?: Encode): Response {
  // plugins/compression: Content-Encoding negotiated from Accept-Encoding (and Vary for it).
  const body = encode ? encode(request, text) : text
  const always = g.always
  const limited = always instanceof RateLimitFields
  const set = headerSetFor(negotiateMediaType(request.headers.get('accept')), status >= 200 && status < 300 ? g.success : undefined, encode !== undefined, g.bodyCoding, always === undefined ? 0 : limited ? 1 : 2)
  const id = g.id
  g.idSent = true
  if (own === undefined && (always === undefined || limited)) return set.response(body, status, always, id)
  // Headers of the handler's own, or gate headers of another shape: added to a copy.
  const headers = set.copy(always, id)
  if (always && !limited) for (const k in always) headers.set(k, always[k]!)
  if (own) for (const k in own) headers.set(k, own[k]!)
  return new Response(body, { status, headers })
}

/**
 * The headers a JSON answer shares with every other answer of the same media type, validators
 * (one frozen object per URL and index version, plugins/etag), content coding and kind of gate
 * headers: a HeaderSet (src/http/header-set.ts) whose slots are the rate-limit fields (a keyed
 * call) and the request id. Found by the validators object, then the media type (one of a few
 * strings negotiate.ts hands out), then a small index: no key string is built per answer.
 * Bounded: a media-type table that fills is dropped whole.
 */
const SET_MAX = 64
const plainSets = new Map<string, HeaderSet[]>()
const validatedSets = new WeakMap<object, Map<string, HeaderSet[]>>()
const LIMITED_SLOTS = [...RATE_LIMIT_FIELD_NAMES, 'x-request-id']
const ID_SLOT = ['x-request-id']
/** The codings plugins/compression chooses from (the Encode it is given), and none. */
const CODINGS: ReadonlyArray<string | undefined> = [undefined, 'zstd', 'gzip', 'br']

/** `gates`: 0 no gate headers, 1 the rate-limit fields, 2 others (only the id is a slot; the caller adds them). */
function headerSetFor(contentType: string, success: Readonly<Record<string, string>> | undefined, coded: boolean, coding: string | undefined, gates: 0 | 1 | 2): HeaderSet {
  let byType = plainSets
  if (success !== undefined) {
    let m = validatedSets.get(success)
    if (m === undefined) validatedSets.set(success, (m = new Map()))
    byType = m
  }
  let sets = byType.get(contentType)
  if (sets === undefined) {
    if (byType.size >= SET_MAX) byType.clear()
    byType.set(contentType, (sets = []))
  }
  // A coding not listed here (none today) still gets its headers, from a set made for it alone.
  const codingIndex = CODINGS.indexOf(coding)
  const i = codingIndex * 4 + (coded ? 2 : 0) + (gates === 1 ? 1 : 0)
  let t = codingIndex < 0 ? undefined : sets[i]
  if (t === undefined) {
    const fixed: Record<string, string> = { 'content-type': contentType, vary: coded ? 'Accept, Accept-Encoding' : 'Accept', 'x-content-type-options': 'nosniff', ...success }
    if (coding !== undefined) fixed['content-encoding'] = coding
    t = new HeaderSet(fixed, gates === 1 ? LIMITED_SLOTS : ID_SLOT)
    if (codingIndex >= 0) sets[i] = t
  }
  return t
}

/** A handler built its own Response: it still gets the gate headers (rate limit; ETag when 2xx). */
function withGateHeaders(response: Response, g: RequestContext): Response {
  const ok = response.status >= 200 && response.status < 300
  let out = response
  for (const h of ok ? [g.success, g.always] : [g.always]) {
    if (!h) continue
    for (const k in h) {
      if (out.headers.has(k)) continue
      try {
        out.headers.set(k, h[k]!)
      } catch {
        out = new Response(out.body, out) // immutable headers (a fetched Response): copy once
        out.headers.set(k, h[k]!)
      }
    }
  }
  return out
}

/**
 * 400 for a GET or HEAD announcing a body, and 413 for a body announced larger than
 * config.maxBodyBytes, before any of it is read.
 * At transform after rate limiting, so the refusal is an answered (and counted) keyed call.
 * (Routes that let Elysia parse their body read it before transform: Bun's maxRequestBodySize
 * bounds that read, app/server.ts.)
 */
export function bodyLimitPlugin(deps: AppDeps) {
  const maxBody = deps.config.maxBodyBytes
  const check = syncHook(({ request, route }: { request: Request; route?: string }) => {
    if (bodyOnSafeMethod(request))
      throw new ProblemError('validation', `A ${request.method} request carries no body (RFC 9110 §9.3.1); this one announces one.`, {
        errors: [{ parameter: 'body', message: 'must be absent on GET and HEAD (no Transfer-Encoding, Content-Length 0 or none)' }],
        headers: { connection: 'close' },
      })
    // A path no route takes never has its body read: it is answered as the catch-all decides
    // (401 where it may be meant for the API, else a plain 404), whatever the body's size, so
    // the answer to an unknown path does not depend on the body.
    if (route !== CATCH_ALL_ROUTE && bodyTooLarge(request, maxBody)) throw new ProblemError('payloadTooLarge', `The request body is larger than the limit of ${maxBody} bytes.`)
  })
  return new Elysia({ name: 'body-limit' }).onTransform({ as: 'global' }, check)
}

function isPlainJson(v: object): boolean {
  if (Array.isArray(v)) return true
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}
