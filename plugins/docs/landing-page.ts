/**
 * GET /: a small self-contained HTML page (no script, no external asset) for someone who opens
 * the service in a browser: what it is, and links to the reference, the OpenAPI document, the
 * health report and the account dashboard, and whether the index served is a sample of NASA's
 * catalogue. Nothing from the request is echoed.
 */
export const LANDING_LINKS = [
  { href: '/api/v2/docs', label: 'API reference', note: 'every endpoint, parameter and answer, with a form to try calls' },
  { href: '/api/v2/openapi.json', label: 'OpenAPI 3.1 document', note: 'for client generators (a typed TypeScript client is in the repository)' },
  { href: '/health', label: 'Health', note: 'index version, photo count and build time; no key needed' },
  { href: '/dashboard', label: 'Dashboard', note: 'sign in to get and manage your API key' },
] as const

/** `sample`: the index's one line saying it is a sample (src/query/catalogue-share.ts), shown under the intro; HTML-escaped here. */
export function landingPage(sample?: string): string {
  const sampleP = sample ? `\n<p class="sample">This index is ${escapeHtml(sample).replace(/`([^`]*)`/g, '<code>$1</code>')}.</p>` : ''
  const items = LANDING_LINKS.map((l) => `<li><a href="${l.href}">${l.label}</a> <span>${l.note}</span></li>`).join('\n')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mars rover photo query API</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
header{background:#8a2b0e;color:#fff;padding:1.2rem 2rem}h1{margin:0;font-size:1.5rem}
main{max-width:760px;margin:0 auto;padding:1rem 2rem}li{margin:.5rem 0}li span{color:#555}
code{background:#eee;padding:0 .25rem;border-radius:3px}
</style></head>
<body><header><h1>Mars rover photo query API</h1></header>
<main>
<p>Read-only JSON API over the photos taken by Curiosity, Perseverance, Opportunity and Spirit: search photos, rovers, cameras, locations, panoramas and statistics under <code>/api/v2</code>.</p>${sampleP}
<ul>
${items}
</ul>
<p>Calls need an <code>X-API-Key</code> header. Keep the key on your server: never ship it in browser code.</p>
</main></body></html>`
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}
