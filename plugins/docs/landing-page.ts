import { ROVERS } from '../../src/catalog/rovers'
import { SITE_STYLE, siteHeader } from '../../src/http/site-header'

/**
 * GET /: a small self-contained HTML page (no script, no external asset) for someone who opens
 * the service in a browser, under the site's shared header: what it is, links to the reference,
 * the OpenAPI document, the health report, the account dashboard and each rover's page, and
 * whether the index served is a sample of NASA's catalogue. Nothing from the request is echoed.
 */
export const LANDING_LINKS = [
  { href: '/api/v2/docs', label: 'API reference', note: 'every endpoint, parameter and answer, with a form to try calls' },
  { href: '/api/v2/openapi.json', label: 'OpenAPI 3.1 document', note: 'for client generators (a typed TypeScript client is in the repository)' },
  { href: '/health', label: 'Health', note: 'index version, photo count and build time; no key needed' },
  { href: '/dashboard', label: 'Dashboard', note: 'sign in to get and manage your API key' },
] as const

/** `sample`: the index's one line saying it is a sample (src/query/stats/catalogue-share.ts), shown under the intro; HTML-escaped here. */
export function landingPage(sample?: string): string {
  const sampleP = sample ? `\n<p class="sample">This index is ${escapeHtml(sample).replace(/`([^`]*)`/g, '<code>$1</code>')}.</p>` : ''
  const items = LANDING_LINKS.map((l) => `<li><a href="${l.href}">${l.label}</a> <span>${l.note}</span></li>`).join('\n')
  const rovers = ROVERS.map((r) => `<li><a href="/rovers/${r.slug}">${r.name}</a> <span>where it went: its traverse and the places it photographed most (no key needed)</span></li>`).join('\n')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mars rover photo query API</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
${SITE_STYLE}
h1{margin:.5rem 0;font-size:1.6rem;color:#8a2b0e}h2{font-size:1.15rem}
main{max-width:760px;margin:0 auto;padding:1rem 2rem}li{margin:.5rem 0}li span{color:#555}
@media (max-width:600px){main{padding:.6rem .8rem}}
code{background:#eee;padding:0 .25rem;border-radius:3px}
</style></head>
<body>${siteHeader('home')}
<main><h1>Mars rover photo query API</h1>
<p>Read-only JSON API over the photos taken by Curiosity, Perseverance, Opportunity and Spirit: search photos, rovers, cameras, locations, panoramas and statistics under <code>/api/v2</code>.</p>${sampleP}
<ul>
${items}
</ul>
<h2>The rovers</h2>
<ul>
${rovers}
</ul>
<p>Calls need an <code>X-API-Key</code> header. Keep the key on your server: never ship it in browser code.</p>
</main></body></html>`
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}
