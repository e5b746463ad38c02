import { urlFacts } from '../http/url-facts'

/**
 * The API key a v1 client sends in the query string (`api_key=`, as api.nasa.gov took it). The
 * auth gate reads it only for a route declared `keyInQuery` (the v1 compatibility routes): v2
 * reads X-API-Key alone (decisions.md, Keys in the URL). The first `api_key` value counts, as
 * URLSearchParams.get. The value is never logged, cached or echoed: the request key and every
 * link drop `api_key` (src/http/request-key.ts, src/http/links.ts).
 */
export function queryApiKey(url: string): string | null {
  // Read as URLSearchParams decodes it, as the request key and links see the name (api%5Fkey too).
  return urlFacts(url).params().get('api_key')
}
