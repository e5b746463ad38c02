import { ROVERS } from '../catalog/rovers'

/**
 * The header every HTML page of the service shares (the landing page, the dashboard, the rover
 * pages), so they read as one product: the name linking home, then the API reference, the key
 * dashboard and each rover's page. Static text and catalogue names only; nothing from a request.
 * The pages put SITE_STYLE in their own inline style (their CSP allows it by hash or inline), so
 * the header loads nothing either. It wraps onto more lines on a narrow (phone) screen.
 */
export type SitePlace = 'home' | 'docs' | 'dashboard' | `rover:${string}`

export const SITE_STYLE =
  '.site{background:#8a2b0e;color:#fff;padding:.55rem 1rem;display:flex;flex-wrap:wrap;align-items:baseline;gap:.3rem 1.4rem;font-family:system-ui,sans-serif;line-height:1.4}' +
  '.site a{color:#ffe4d6;text-decoration:none}.site a:hover,.site a:focus,.site a[aria-current]{color:#fff;text-decoration:underline}' +
  '.site .brand{color:#fff;font-weight:700;font-size:1.05rem}' +
  '.site nav{display:flex;flex-wrap:wrap;gap:.2rem 1rem;font-size:.95rem}.site nav span{color:#f3c2ab}'

export function siteHeader(here: SitePlace): string {
  const link = (href: string, label: string, place: SitePlace) => `<a href="${href}"${place === here ? ' aria-current="page"' : ''}>${label}</a>`
  const rovers = ROVERS.map((r) => link(`/rovers/${r.slug}`, r.name, `rover:${r.slug}`)).join('')
  return (
    `<header class="site"><a class="brand" href="/"${here === 'home' ? ' aria-current="page"' : ''}>Mars rover photo API</a>` +
    `<nav aria-label="Site">${link('/api/v2/docs', 'API docs', 'docs')}${link('/dashboard', 'Dashboard', 'dashboard')}<span>Rovers:</span>${rovers}</nav></header>`
  )
}
