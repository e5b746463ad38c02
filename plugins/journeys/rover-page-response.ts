import type { AppDeps } from '../../src/app-deps'
import type { Store } from '../../src/store/store'
import { roverOfSlug } from './journey-params'
import { NASA_IMAGE_SOURCES } from './nasa-image-hosts'
import { roverPage } from './rover-page'

/**
 * GET /rovers/{slug}: the rover page (./rover-page.ts), rendered once per index snapshot and
 * rover, with an ETag of the snapshot version (RFC 9110 §8.8.3) so a revisit costs a 304. A
 * Content-Security-Policy that allows no script and, from elsewhere, only images from NASA's
 * image hosts (the photo thumbnails: ./nasa-image-hosts.ts) backs the page's promise (W3C
 * Content Security Policy Level 3): its own inline styles and those images render, nothing else.
 * Unknown rover: 404.
 */
export const ROVER_PAGE_PATH = '/rovers/:slug'

export const ROVER_PAGE_CSP = `default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data: ${NASA_IMAGE_SOURCES}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`

const pages = new WeakMap<Store, Map<number, string>>()

export function roverPageResponse(deps: AppDeps, request: Request, slug: string): Response {
  const code = roverOfSlug(slug)
  const store = deps.stores.forRequest(request)
  let byRover = pages.get(store)
  if (!byRover) pages.set(store, (byRover = new Map()))
  let html = byRover.get(code)
  if (html === undefined) byRover.set(code, (html = roverPage(store, code)))
  const etag = `"rover-page-${store.version}-${code}"`
  const headers: Record<string, string> = { etag, 'cache-control': 'public, max-age=3600, must-revalidate', 'content-security-policy': ROVER_PAGE_CSP, 'x-content-type-options': 'nosniff' }
  const inm = request.headers.get('if-none-match')
  if (inm && (inm.trim() === '*' || inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag))) return new Response(null, { status: 304, headers })
  return new Response(html, { headers: { ...headers, 'content-type': 'text/html; charset=utf-8' } })
}
