/**
 * The 404 page a browser gets for a path outside the API that no route takes (`/nope`, a
 * mistyped `/dashbord`): where to go instead. Static text: nothing from the request is echoed
 * (the path could carry markup). API clients get the problem document instead.
 */
import { acceptRanges } from '../../src/http/accept-ranges'

export const NOT_FOUND_LINKS = [
  { href: '/', label: 'Home', note: 'what this service is' },
  { href: '/api/v2/docs', label: 'API reference', note: 'every endpoint, parameter and answer' },
  { href: '/dashboard', label: 'Dashboard', note: 'sign in to get and manage your API key' },
] as const

export function notFoundPage(): string {
  const items = NOT_FOUND_LINKS.map((l) => `<li><a href="${l.href}">${l.label}</a> <span>${l.note}</span></li>`).join('\n')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Page not found · Mars rover photo query API</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
header{background:#8a2b0e;color:#fff;padding:1.2rem 2rem}h1{margin:0;font-size:1.5rem}
main{max-width:760px;margin:0 auto;padding:1rem 2rem}li{margin:.5rem 0}li span{color:#555}
</style></head>
<body><header><h1>Page not found</h1></header>
<main>
<p>There is no page at this address. Perhaps one of these:</p>
<ul>
${items}
</ul>
</main></body></html>`
}

/**
 * Whether Accept asks for HTML at least as much as for JSON (RFC 9110 §12.5.1: an explicit
 * text/html with q > 0, not below the q of an explicit JSON type): a browser's navigation.
 */
export function prefersHtml(accept: string | null): boolean {
  if (!accept) return false
  let html = 0
  let json = 0
  for (const { type, q } of acceptRanges(accept)) {
    if (type === 'text/html') html = Math.max(html, q)
    else if (type === 'application/json' || type === 'application/problem+json') json = Math.max(json, q)
  }
  return html > 0 && html >= json
}
