/**
 * True when the request announces a body larger than `maxBytes` (Content-Length, RFC 9110 §8.6).
 * Bodies without a length (chunked) are bounded by the server's maxRequestBodySize (app/server.ts).
 */
export function bodyTooLarge(request: Request, maxBytes: number): boolean {
  const len = request.headers.get('content-length')
  if (len === null) return false
  const n = Number(len)
  return Number.isFinite(n) && n > maxBytes
}
