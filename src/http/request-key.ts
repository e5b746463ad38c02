/**
 * The key of a request for the ETag (plugins/etag) and the serialised-response cache: the
 * method, the path exactly as sent, and every query parameter exactly as the parsers read it —
 * name as sent (the parsers read exact, case-sensitive names), value, and order (a repeated
 * parameter's first value is the one a parser uses, and `links` echo parameters in URL order).
 * Each pair is percent-encoded so no separator can be forged by a value.
 *
 * Two requests share a key only when the parsers see the same URLSearchParams on the same path,
 * so they get the same answer for one index version and origin (added by the caller). An
 * earlier key lower-cased names and sorted values, so `ROVERS=` (ignored by the parser) and
 * `rovers=` shared one entry, and one client could choose what another was served.
 *
 * `api_key` (in any case) is left out: it is a credential (v1 clients send it in the URL), no
 * parser reads it for an answer and links drop it, so it never decides an answer — and a key
 * must never sit in a cache entry's name.
 */
export function requestKey(method: string, path: string, params: URLSearchParams): string {
  let q = ''
  for (const [k, v] of params) if (!isCredentialParam(k)) q += (q === '' ? '?' : '&') + encodeURIComponent(k) + '=' + encodeURIComponent(v)
  return method.toUpperCase() + ' ' + path + q
}

/**
 * Query parameters that carry a credential: `api_key` (v1) and `feed_token` (the feeds), in any
 * case. Neither decides an answer, so neither is part of a request key, and links never carry
 * them back (links.ts): a credential must not sit in a cache entry's name or in an answer.
 */
export function isCredentialParam(name: string): boolean {
  const l = name.toLowerCase()
  return l === 'api_key' || l === 'feed_token'
}

/**
 * The key of one cached answer: everything that decides its text (the index version, the
 * absolute origin of its links, the canonical request key). Built once per URL on the hot path:
 * a key concatenated per request is a new string the cache's Map must flatten and hash every time.
 */
export function responseCacheKey(version: string, base: string, requestKey: string): string {
  return version + '\n' + base + '\n' + requestKey
}
