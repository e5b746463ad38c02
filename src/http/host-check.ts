/**
 * Whether the authority of a request URL (what Bun built it from: the Host header) is a valid
 * RFC 9110 §7.2 Host: uri-host [ ":" port ] with uri-host an IP literal in brackets, or a
 * registered name / IPv4 address of unreserved characters (RFC 3986 §3.2.2; percent-encoding and
 * sub-delims are not used by real hosts, and refusing them keeps `"`, spaces and `@` out),
 * at most 255 characters, port 0-65535. Anything else is answered 400 before routing
 * (plugins/errors hostCheckPlugin): a malformed Host once reached Bun's own error page.
 */
const HOST = /^(?:\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9._~-]{1,253})(?::([0-9]{1,5}))?$/

/**
 * The scheme and authority of the last URL found valid, with the `/` that ends the authority:
 * a URL that starts with it has that same authority, so it is valid without the regex (most
 * requests of a server carry one Host).
 */
let lastValid = ''

export function validAuthority(url: string): boolean {
  if (lastValid !== '' && url.startsWith(lastValid)) return true
  // Bun builds request.url from the Host header; when it cannot (a Host such as `<a>` or `a/b`),
  // the URL is the bare request target, `//api/v1/…` for instance. Such a URL has no authority
  // to check, and Elysia's router, which skips a scheme and `//`, would read a shifted path from
  // it: only `http://` and `https://` URLs are valid.
  const start = url.startsWith('http://') ? 5 : url.startsWith('https://') ? 6 : -1
  if (start < 0) return false
  let end = url.indexOf('/', start + 2)
  if (end < 0) end = url.length
  const authority = url.slice(start + 2, end)
  if (authority.length === 0 || authority.length > 261) return false
  const m = HOST.exec(authority)
  const ok = m !== null && (m[1] === undefined || Number(m[1]) <= 65535)
  if (ok && end < url.length) lastValid = url.slice(0, end + 1)
  return ok
}
