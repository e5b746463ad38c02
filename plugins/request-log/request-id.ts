/**
 * The request id: the client's X-Request-Id when it is a plausible id (1-128 characters of
 * A-Z a-z 0-9 . _ : -, so it cannot inject into a log line or a header), else a new UUID.
 * Decided once per request (kept per Request object), so the echoed header, the access log and
 * a 500's detail all name the same id.
 */
const VALID = /^[A-Za-z0-9._:-]{1,128}$/
const byRequest = new WeakMap<Request, string>()

export function requestIdOf(request: Request): string {
  let id = byRequest.get(request)
  if (id === undefined) {
    const given = request.headers.get('x-request-id')
    id = given !== null && VALID.test(given) ? given : crypto.randomUUID()
    byRequest.set(request, id)
  }
  return id
}
