import { announcedLength } from '../../src/http/read-capped-body'

/**
 * True when the request announces a body larger than `maxBytes` (Content-Length, RFC 9110 §8.6).
 * Bodies without a length (chunked) are bounded by the server's maxRequestBodySize (app/server.ts).
 */
export function bodyTooLarge(request: Request, maxBytes: number): boolean {
  const n = announcedLength(request)
  return n !== undefined && n > maxBytes
}

/**
 * True when a GET or HEAD request announces a body (Transfer-Encoding, or a Content-Length above
 * 0). RFC 9110 §9.3.1: such content has no meaning and may be refused, as it is here, since no
 * route reads it. Left unread, a body the HTTP layer later finds malformed would close the
 * connection in the middle of an answer already streaming (an export), cutting it short.
 */
export function bodyOnSafeMethod(request: Request): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false
  if (request.headers.get('transfer-encoding') !== null) return true
  return (announcedLength(request) ?? 0) > 0
}
