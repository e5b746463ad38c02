/**
 * The request id: the client's X-Request-Id when it is a plausible id (1-128 characters of
 * A-Z a-z 0-9 . _ : -, so it cannot inject into a log line or a header), else a new UUID.
 * It is echoed on every answer and written in the access log, so a user's report can be
 * matched to the server's line.
 */
const VALID = /^[A-Za-z0-9._:-]{1,128}$/

export function requestIdOf(request: Request): string {
  const given = request.headers.get('x-request-id')
  return given !== null && VALID.test(given) ? given : crypto.randomUUID()
}
