import { urlFacts } from '../http/url-facts'
import { isV1Path } from './v1-paths'

/**
 * The API key a v1 client sends in the query string (`api_key=`, as api.nasa.gov took it), for
 * v1 paths only: v2 reads X-API-Key alone (decisions.md, Keys in the URL), so on any other path
 * this is null whatever the URL holds. The first `api_key` value counts, as URLSearchParams.get.
 * The value is never logged, cached or echoed: the canonical request key and every link drop
 * `api_key` (src/http/request-key.ts, src/http/links.ts).
 */
export function v1QueryKey(url: string): string | null {
  const f = urlFacts(url)
  if (!isV1Path(f.path)) return null
  // Read as URLSearchParams decodes it, as the request key and links see the name (api%5Fkey too).
  return f.params().get('api_key')
}
