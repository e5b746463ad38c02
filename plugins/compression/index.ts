import type { AppDeps } from '../../src/app-deps'
import { contextOf } from '../../src/http/request-context'
import { chooseCoding, type Coding } from './accept-encoding'
import { compressWhole, splicedBody } from './spliced-body'

/**
 * Content coding of JSON answers (RFC 9110 §8.4): bodies of at least MIN_BYTES are sent gzip,
 * br or zstd encoded when Accept-Encoding allows it; every JSON answer says
 * `Vary: Accept, Accept-Encoding`. Cached answers are spliced from pieces compressed once per
 * cache entry; other bodies (errors are small; the OpenAPI document) are compressed whole, the
 * last few kept by text.
 * Used by plugins/content-type where the Response is built: returns the body to send and notes
 * its size and coding in the request's context (the renderer writes Content-Encoding from it).
 */
export const MIN_BYTES = 1024
const WHOLE_MEMO = 16

export function compressionFor(deps: AppDeps): (request: Request, text: string) => string | Uint8Array {
  const on = deps.config.compression !== false
  const whole = new Map<string, Uint8Array>()
  return (request, text) => {
    const coding = on && text.length >= MIN_BYTES ? chooseCoding(request.headers.get('accept-encoding')) : undefined
    const ctx = contextOf(request)
    if (coding === undefined) {
      ctx.noteText(text)
      return text
    }
    const template = ctx.template
    let body = template ? splicedBody(template.text, text, coding, template.variants) : undefined
    if (body === undefined) body = wholeBody(whole, text, coding)
    ctx.noteBody(body.length, coding)
    return body
  }
}

function wholeBody(memo: Map<string, Uint8Array>, text: string, coding: Coding): Uint8Array {
  const key = coding + '\n' + text
  let body = memo.get(key)
  if (body === undefined) {
    body = compressWhole(text, coding)
    if (memo.size >= WHOLE_MEMO) memo.delete(memo.keys().next().value!)
    memo.set(key, body)
  }
  return body
}
