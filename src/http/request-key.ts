/**
 * The canonical key of a request: one string per distinct query, so that the ETag (plugins/etag)
 * and the serialised-response cache agree on what "the same request" is.
 *
 * - method upper-cased (RFC 9110 §9.1: method names are case-sensitive, but ours are all upper case);
 * - path lower-cased, with a trailing slash removed (paths of this API are case-insensitive);
 * - query parameters sorted by name then value (order in the URL carries no meaning here),
 *   names lower-cased, each pair percent-encoded so no separator can be forged by a value.
 *
 * `api_key` is left out: it is a credential (v1 clients send it in the URL), never part of
 * what decides an answer, and the key is what the cache and ETag are made from.
 *
 * Equal keys => equal answers for one index version; the index version is added by the caller.
 */
export function requestKey(method: string, path: string, params: URLSearchParams): string {
  let p = path.toLowerCase()
  if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1)
  const pairs: string[] = []
  for (const [k, v] of params) {
    const name = k.toLowerCase()
    if (name === 'api_key') continue
    pairs.push(encodeURIComponent(name) + '=' + encodeURIComponent(v))
  }
  if (pairs.length === 0) return method.toUpperCase() + ' ' + p
  pairs.sort()
  return method.toUpperCase() + ' ' + p + '?' + pairs.join('&')
}
