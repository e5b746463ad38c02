import type { Store } from '../../src/store/store'
import { ROVERS } from '../../src/catalog/rovers'
import { SITE_STYLE, siteHeader } from '../../src/http/site-header'
import { formatDay } from '../../src/query/bytes/day-text'
import { utf8At } from '../../src/query/order/sort-values'
import { stretchFigures } from './stretch-figures'
import { isNasaImageUrl } from './nasa-image-hosts'
import { escapeXml, traverseSvg, type SiteMark } from './traverse-svg'
import { roverRows } from './traverse-window'

/**
 * The public page of one rover (decisions.md, Journeys: public, rendered from the index): its
 * traverse as SVG coloured by sol (./traverse-svg.ts), the measured distance and elevation, and
 * the places where most of our photos were taken, marked on the map and listed below it with
 * a thumbnail of each photo. The thumbnails are NASA's own image files (the smallest size the
 * photo has), loaded from NASA's image hosts only (./nasa-image-hosts.ts, which the page's CSP
 * allows), lazily and without a Referer, and link to the largest size, which anyone can open: a
 * person without an API key can follow every link on the page. The keyed API query for the same
 * place is shown as text for those who have a key. Under the site's shared header; on a narrow
 * (phone) screen the thumbnails reflow and the map scrolls sideways at a readable size. No
 * script; all text escaped.
 */
export const TOP_SITES = 10
export const PHOTOS_PER_SITE = 24

interface Site {
  site: number
  drive: number
  point: number
  photos: number
  firstSol: number
  lastSol: number
}

export function roverPage(store: Store, code: number): string {
  const rover = ROVERS[code]!
  const t = store.traverses
  const s = store.journeyStops
  const [tFirst, tEnd] = roverRows(t.rover, t.length, code)
  const [sFirst, sEnd] = roverRows(s.rover, s.length, code)

  const sites = new Map<string, Site>()
  let photos = 0
  let unplaced = 0
  for (let i = sFirst; i < sEnd; i++) {
    photos += s.photo_count[i]!
    if (s.point[i]! < 0) {
      unplaced += s.photo_count[i]!
      continue
    }
    const key = `${s.site[i]}-${s.drive[i]}`
    const e = sites.get(key)
    if (e) {
      e.photos += s.photo_count[i]!
      e.lastSol = Math.max(e.lastSol, s.sol[i]!)
    } else sites.set(key, { site: s.site[i]!, drive: s.drive[i]!, point: s.point[i]!, photos: s.photo_count[i]!, firstSol: s.sol[i]!, lastSol: s.sol[i]! })
  }
  const top = [...sites.values()].sort((a, b) => b.photos - a.photos || a.firstSol - b.firstSol || a.site - b.site || a.drive - b.drive).slice(0, TOP_SITES)
  const marks: SiteMark[] = top.map((x, k) => ({
    point: x.point,
    rank: k + 1,
    photos: x.photos,
    anchor: `site-${x.site}-${x.drive}`,
    label: `#${k + 1} site ${x.site}, drive ${x.drive}: ${x.photos} photos (sol ${x.firstSol}${x.lastSol > x.firstSol ? `–${x.lastSol}` : ''})`,
  }))

  const facts: string[] = [`<li>Landed ${rover.landing_date}, ${rover.status === 'active' ? 'active' : 'mission complete'}</li>`, `<li>${photos.toLocaleString('en')} photos in this index</li>`]
  let map: string
  if (tEnd > tFirst) {
    const f = stretchFigures(t, tFirst, tEnd - 1)
    facts.push(`<li>${(f.distanceM / 1000).toFixed(2)} km driven between sol ${t.sol[tFirst]} and sol ${t.sol[tEnd - 1]} (${tEnd - tFirst} waypoints): ${escapeXml(f.note)}</li>`)
    if (f.elevation) facts.push(`<li>Elevation ${signed(f.elevation.net)} m net: ${f.elevation.gain.toFixed(0)} m climbed, ${f.elevation.loss.toFixed(0)} m descended</li>`)
    map = `<div class="map">${traverseSvg(t, tFirst, tEnd, marks, `${rover.name}'s traverse, coloured by sol`)}</div>`
  } else {
    map = `<p class="none">No waypoint table for ${escapeXml(rover.name)} is in the index: none of our sources gives its positions, so there is no traverse to draw.</p>`
  }
  if (unplaced > 0) facts.push(`<li>${unplaced.toLocaleString('en')} photos are not on the map: they state no site and drive, or no waypoint is known there</li>`)

  const listed = photosAt(store, code, top)
  const sections = top.map((x, k) => {
    const ps = listed.get(`${x.site}-${x.drive}`) ?? []
    const items = ps.map(photoCard).join('')
    const more = x.photos > ps.length ? `<p>${x.photos - ps.length} more: with an API key, <code>GET /api/v2/photos?rovers=${rover.slug}&amp;site=${x.site}&amp;drive=${x.drive}</code></p>` : ''
    return `<section id="site-${x.site}-${x.drive}"><h3>#${k + 1} Site ${x.site}, drive ${x.drive} <small>${x.photos} photos, sol ${x.firstSol}${x.lastSol > x.firstSol ? `–${x.lastSol}` : ''}</small></h3><ol class="photos">${items}</ol>${more}</section>`
  })

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeXml(rover.name)}: where it went</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
${SITE_STYLE}
main{max-width:960px;margin:0 auto;padding:1rem 2rem}h1{margin:.5rem 0;font-size:1.6rem;color:#8a2b0e}
.map{overflow-x:auto}svg{box-sizing:border-box;width:100%;min-width:600px;height:auto;border:1px solid #ccc;border-radius:6px;background:#f4ede6}
.ground{fill:#f4ede6}.path polyline{fill:none;stroke-width:2.5;stroke-linejoin:round;stroke-linecap:round}
.start{fill:#2f8f46;stroke:#fff}.end{fill:#c0392b;stroke:#fff}
.mark{fill:rgba(255,255,255,.9);stroke:#8a2b0e;stroke-width:2}.rank{font:700 13px system-ui;fill:#8a2b0e;text-anchor:middle;dominant-baseline:central}
.tag{text-anchor:start;text-decoration:underline;paint-order:stroke;stroke:#fff;stroke-width:4px;stroke-linejoin:round}
.legend text{font:13px system-ui;fill:#333}.bar{stroke:#333;stroke-width:2}
section{background:#fff;border:1px solid #ddd;border-radius:6px;padding:.2rem 1rem .6rem;margin:.8rem 0}
h3 small{font-weight:400;color:#666}.none{padding:2rem;background:#fff;border:1px solid #ddd}
ol.photos{list-style:none;padding:0;margin:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(140px,1fr));gap:.8rem}
ol.photos li{font-size:.8rem;line-height:1.35;color:#555;min-width:0}
ol.photos a.thumb{display:block;aspect-ratio:1;background:#eee3d8;border-radius:4px;overflow:hidden}
ol.photos img{display:block;width:100%;height:100%;object-fit:cover;font-size:.7rem;color:#8a6a5a}
ol.photos b{display:block;color:#1d1d1f;font-weight:600}ol.photos code{display:block;font-size:.72rem;overflow-wrap:anywhere;color:#666}
@media (max-width:600px){main{padding:.6rem .8rem}h1{font-size:1.3rem}ol.photos{grid-template-columns:repeat(2,minmax(0,1fr))}}
</style></head>
<body>${siteHeader(`rover:${rover.slug}`)}
<main><h1>${escapeXml(rover.name)}: where it went</h1>
<ul>${facts.join('')}</ul>
${map}
<h2>Where most photos were taken</h2>
${sections.length ? sections.join('\n') : '<p>No photo of this rover in the index states a site and drive with a known waypoint.</p>'}
</main></body></html>
`
}

function signed(v: number): string {
  return `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(0)}`
}

interface ListedPhoto {
  nasaId: string
  camera: string
  sol: number
  date: string
  /** The largest image (the link). */
  url: string
  /** The smallest image (the thumbnail). */
  thumb: string
}

/**
 * One photo of a place: its thumbnail linking to the largest image, then camera, sol and date,
 * and the image id on its own line, wrapped anywhere (long ids never run into the next photo).
 * Only an http(s) URL on NASA's image hosts becomes a link or an image: a catalogue value is
 * never trusted to be one.
 */
function photoCard(p: ListedPhoto): string {
  const caption = `<b>${escapeXml(p.camera)}, sol ${p.sol}</b>${p.date}<code>${escapeXml(p.nasaId)}</code>`
  if (!isNasaImageUrl(p.url)) return `<li>${caption}</li>`
  const img = isNasaImageUrl(p.thumb) ? `<img src="${escapeXml(p.thumb)}" alt="${escapeXml(`${p.camera} photo ${p.nasaId}, sol ${p.sol}`)}" loading="lazy" decoding="async" referrerpolicy="no-referrer" width="140" height="140">` : ''
  return `<li><a class="thumb" href="${escapeXml(p.url)}" rel="noreferrer">${img}</a>${caption}</li>`
}

/** Up to PHOTOS_PER_SITE photos of each listed place, lowest (sol, id) first: one pass over the photos. */
function photosAt(store: Store, code: number, sites: Site[]): Map<string, ListedPhoto[]> {
  const want = new Set(sites.map((x) => `${x.site}-${x.drive}`))
  const rows = new Map<string, number[]>()
  const p = store.photos
  for (let r = 0; r < p.length; r++) {
    if (p.rover[r] !== code || p.site[r]! < 0) continue
    const key = `${p.site[r]}-${p.drive[r]}`
    if (!want.has(key)) continue
    const list = rows.get(key) ?? rows.set(key, []).get(key)!
    list.push(r)
  }
  const out = new Map<string, ListedPhoto[]>()
  for (const [key, list] of rows) {
    list.sort((a, b) => p.sol[a]! - p.sol[b]! || p.id[a]! - p.id[b]!)
    out.set(
      key,
      list.slice(0, PHOTOS_PER_SITE).map((r) => {
        const dir = p.image_dir.dict[p.image_dir.codes[r]!] ?? ''
        const file = [p.image_large, p.image_full, p.image_medium, p.image_small].map((c) => utf8At(c, r)).find((f) => f !== '') ?? ''
        const small = [p.image_small, p.image_medium, p.image_large, p.image_full].map((c) => utf8At(c, r)).find((f) => f !== '') ?? ''
        return { nasaId: utf8At(p.nasa_id, r), camera: p.camera.dict[p.camera.codes[r]!] ?? '', sol: p.sol[r]!, date: formatDay(p.earth_date[r]!), url: dir + file, thumb: dir + small }
      }),
    )
  }
  return out
}
