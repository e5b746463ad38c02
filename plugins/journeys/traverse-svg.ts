import type { TraverseColumns } from '../../src/store/schema'
import { douglasPeucker } from '../../src/geo/douglas-peucker'
import { localFrame } from '../../src/geo/great-circle'

/**
 * A rover's traverse as inline SVG (no tiles, no script): the path coloured by the sol it was
 * driven on, start and end marked, the most photographed places as numbered circles linking to
 * their section of the page, a sol colour legend and a scale bar. Drawn in a local metric frame
 * (north up, equal scale on both axes) and simplified to half a pixel first, so even Spirit's
 * 8,500-point path is a few hundred vertices.
 */
export interface SiteMark {
  point: number
  rank: number
  photos: number
  anchor: string
  label: string
}

const WIDTH = 900
const PAD = 28
const BINS = 32
/** Width of one digit of a rank at the page's 13px bold, and the gap after each rank; a row of ranks is ROW_PX high. */
const RANK_DIGIT_PX = 8.5
const RANK_GAP_PX = 8
const ROW_PX = 18
/** The largest circle (the most photographed place). */
const MAX_RADIUS = 16

interface Box {
  x0: number
  x1: number
  y0: number
  y1: number
}

const overlap = (a: Box, b: Box) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1

/**
 * Where a row of ranks `width` wide goes beside a circle at (x, y) of radius r: the first of
 * right, left, then the same a row lower or higher (and so on, up to 4 rows away), that stays in
 * the drawing and overlaps no box in `taken`; right of the circle when none is free.
 */
function labelRow(x: number, y: number, r: number, width: number, taken: Box[]): Box {
  const candidates: Box[] = []
  for (const dy of [0, 1, -1, 2, -2, 3, -3, 4, -4].map((k) => k * ROW_PX)) {
    const cy = y + dy
    candidates.push({ x0: x + r + 4, x1: x + r + 4 + width, y0: cy - ROW_PX / 2, y1: cy + ROW_PX / 2 })
    candidates.push({ x0: x - r - 4 - width, x1: x - r - 4, y0: cy - ROW_PX / 2, y1: cy + ROW_PX / 2 })
  }
  const inside = (b: Box) => b.x0 >= PAD / 2 && b.x1 <= WIDTH - PAD / 2 && b.y0 >= 0
  const own = (b: Box) => taken.filter((t) => !(t.x0 === x - MAX_RADIUS && t.y0 === y - MAX_RADIUS))
  return candidates.find((b) => inside(b) && !own(b).some((t) => overlap(t, b))) ?? candidates[0]!
}

/** Perceptually ordered colours (viridis, 9 stops) from the earliest to the latest sol. */
const STOPS = ['#440154', '#472d7b', '#3b528b', '#2c728e', '#21918c', '#28ae80', '#5ec962', '#addc30', '#fde725']

export function solColour(f: number): string {
  const x = Math.min(1, Math.max(0, f)) * (STOPS.length - 1)
  const i = Math.min(STOPS.length - 2, Math.floor(x))
  const a = hex(STOPS[i]!)
  const b = hex(STOPS[i + 1]!)
  const t = x - i
  return '#' + a.map((v, k) => Math.round(v + (b[k]! - v) * t).toString(16).padStart(2, '0')).join('')
}

function hex(c: string): number[] {
  return [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16))
}

export function traverseSvg(t: TraverseColumns, first: number, end: number, marks: SiteMark[], title: string): string {
  let west = Infinity, east = -Infinity, south = Infinity, north = -Infinity
  for (let r = first; r < end; r++) {
    west = Math.min(west, t.lon[r]!)
    east = Math.max(east, t.lon[r]!)
    south = Math.min(south, t.lat[r]!)
    north = Math.max(north, t.lat[r]!)
  }
  const frame = localFrame((west + east) / 2, (south + north) / 2)
  const xs = new Float64Array(end - first)
  const ys = new Float64Array(end - first)
  for (let r = first; r < end; r++) {
    xs[r - first] = frame.x(t.lon[r]!)
    ys[r - first] = frame.y(t.lat[r]!)
  }
  const spanX = Math.max(frame.x(east) - frame.x(west), 1)
  const spanY = Math.max(frame.y(north) - frame.y(south), 1)
  const height = Math.round(Math.min(640, Math.max(320, (WIDTH - 2 * PAD) * (spanY / spanX) + 2 * PAD)))
  const scale = Math.min((WIDTH - 2 * PAD) / spanX, (height - 2 * PAD - 40) / spanY)
  const x0 = frame.x(west)
  const y0 = frame.y(north)
  const left = PAD + (WIDTH - 2 * PAD - spanX * scale) / 2
  const topY = PAD + (height - 2 * PAD - 40 - spanY * scale) / 2
  const px = (i: number) => (left + (xs[i]! - x0) * scale).toFixed(1)
  const py = (i: number) => (topY + (y0 - ys[i]!) * scale).toFixed(1)
  const kept = douglasPeucker(xs, ys, 0.5 / scale)
  const sol0 = t.sol[first]!
  const sol1 = t.sol[end - 1]!
  const bin = (i: number) => Math.min(BINS - 1, Math.floor(((t.sol[first + i]! - sol0) / Math.max(1, sol1 - sol0)) * BINS))

  const lines: string[] = []
  let run: number[] = [kept[0]!]
  let runBin = kept.length > 1 ? bin(kept[1]!) : 0
  for (let k = 1; k < kept.length; k++) {
    const b = bin(kept[k]!)
    if (b !== runBin) {
      lines.push(polyline(run, runBin))
      run = [run[run.length - 1]!]
      runBin = b
    }
    run.push(kept[k]!)
  }
  if (run.length > 1) lines.push(polyline(run, runBin))
  function polyline(idx: number[], b: number): string {
    return `<polyline points="${idx.map((i) => `${px(i)},${py(i)}`).join(' ')}" stroke="${solColour((b + 0.5) / BINS)}"/>`
  }

  const last = end - 1 - first
  const maxPhotos = Math.max(1, ...marks.map((m) => m.photos))
  // marks whose circles would touch share one circle (labelled with every rank), so none hides another
  const clusters: Array<{ x: number; y: number; marks: SiteMark[] }> = []
  for (const m of marks) {
    const x = Number(px(m.point - first))
    const y = Number(py(m.point - first))
    const near = clusters.find((c) => Math.hypot(c.x - x, c.y - y) < 2 * MAX_RADIUS + 2)
    if (near) near.marks.push(m)
    else clusters.push({ x, y, marks: [m] })
  }
  // every circle first, then each row of ranks where it covers no circle and no earlier row
  const taken: Box[] = clusters.map((c) => ({ x0: c.x - MAX_RADIUS, x1: c.x + MAX_RADIUS, y0: c.y - MAX_RADIUS, y1: c.y + MAX_RADIUS }))
  const circles = clusters.map((c) => {
    const photos = c.marks.reduce((s, m) => s + m.photos, 0)
    const r = 6 + (MAX_RADIUS - 6) * Math.sqrt(Math.min(1, photos / maxPhotos))
    const title = `<title>${escapeXml(c.marks.map((m) => m.label).join('\n'))}</title>`
    if (c.marks.length === 1) {
      const m = c.marks[0]!
      return `<a href="#${m.anchor}"><circle cx="${c.x}" cy="${c.y}" r="${r.toFixed(1)}" class="mark">${title}</circle><text x="${c.x}" y="${c.y}" class="rank">${m.rank}</text></a>`
    }
    // several places at one spot: one circle, and each rank as its own link beside it, spaced by
    // the width of its digits (a two-digit rank never runs into the next), in the first place
    // beside the circle (right, left, then a row lower or higher) that overlaps nothing placed,
    // each with a light halo so the path under it does not blur it
    const widths = c.marks.map((m) => String(m.rank).length * RANK_DIGIT_PX + RANK_GAP_PX)
    const total = widths.reduce((s, w) => s + w, 0)
    const row = labelRow(c.x, c.y, r, total, taken)
    taken.push(row)
    let x = row.x0
    const y = (row.y0 + row.y1) / 2
    const links = c.marks.map((m, k) => {
      const at = x
      x += widths[k]!
      return `<a href="#${m.anchor}"><text x="${at.toFixed(1)}" y="${y.toFixed(1)}" class="rank tag">${m.rank}<title>${escapeXml(m.label)}</title></text></a>`
    })
    return `<circle cx="${c.x}" cy="${c.y}" r="${r.toFixed(1)}" class="mark">${title}</circle>${links.join('')}`
  })
  const barM = niceLength(spanX / 4)
  const barPx = barM * scale
  const legendY = height - 26
  const gradient = STOPS.map((c, k) => `<stop offset="${((k / (STOPS.length - 1)) * 100).toFixed(1)}%" stop-color="${c}"/>`).join('')
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escapeXml(title)}">` +
    `<defs><linearGradient id="sols">${gradient}</linearGradient></defs>` +
    `<rect width="${WIDTH}" height="${height}" class="ground"/>` +
    `<g class="path">${lines.join('')}</g>` +
    `<circle cx="${px(0)}" cy="${py(0)}" r="5" class="start"><title>Start: sol ${sol0}</title></circle>` +
    `<circle cx="${px(last)}" cy="${py(last)}" r="5" class="end"><title>Last waypoint: sol ${sol1}</title></circle>` +
    circles.join('') +
    `<g class="legend"><rect x="${PAD}" y="${legendY}" width="220" height="10" fill="url(#sols)"/>` +
    `<text x="${PAD}" y="${legendY - 4}">sol ${sol0}</text><text x="${PAD + 220}" y="${legendY - 4}" text-anchor="end">sol ${sol1}</text>` +
    `<line x1="${WIDTH - PAD - barPx}" y1="${legendY + 5}" x2="${WIDTH - PAD}" y2="${legendY + 5}" class="bar"/>` +
    `<text x="${WIDTH - PAD - barPx / 2}" y="${legendY - 4}" text-anchor="middle">${barM >= 1000 ? `${barM / 1000} km` : `${barM} m`}</text>` +
    `<text x="${WIDTH / 2}" y="${legendY + 9}" text-anchor="middle">north up</text></g>` +
    `</svg>`
  )
}

/** 1, 2 or 5 times a power of ten, at most `m`. */
function niceLength(m: number): number {
  const p = 10 ** Math.floor(Math.log10(Math.max(m, 1)))
  return [5, 2, 1].map((k) => k * p).find((v) => v <= m) ?? p
}

export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
}
