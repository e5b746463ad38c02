import type { RoverSlug } from '../../src/catalog/rovers'
import type { SolGroup } from './merge-state'

/**
 * The sols of one rover, besides the changed ones, whose rows a change of the changed sols' clock
 * labels can move, or 'all'. The clock fit (normalize/clock-fit.ts) is piecewise linear in the
 * clock count over one knot per labelled sol (at the median clock count of its labels), with the
 * rover's built-in points beyond the first and last knot; its LMST correction likewise over the
 * sols with stated Mars times, and 0 outside them. Changing some knots changes either function
 * only between the nearest unchanged knots around them (to either end when none is beyond), and
 * a sol's LMST knot moves when the UTC fit moves under its labels. A sol is affected when any of
 * its records' clock counts lies in either region. A fit needs three labelled sols: crossing that
 * count moves every sol ('all').
 */
export function clockRegions(rover: RoverSlug, before: Record<string, SolGroup>, after: Record<string, SolGroup>, changed: ReadonlySet<string>): string[] | 'all' {
  const mine = (groups: Record<string, SolGroup>) => Object.entries(groups).filter(([k]) => k.startsWith(`${rover}/`))
  const labelled = (groups: Record<string, SolGroup>) => mine(groups).filter(([, g]) => g.labels.length > 0).length
  const fitBefore = labelled(before) >= 3
  const fitAfter = labelled(after) >= 3
  if (fitBefore !== fitAfter) return 'all'
  if (!fitAfter) return []

  const utc = region(rover, before, after, changed, (g) => knot(g, false))
  const moved = new Set(changed)
  for (const [k, g] of mine(after)) if (!changed.has(k) && overlaps(g, utc)) moved.add(k)
  const lmst = region(rover, before, after, moved, (g) => knot(g, true))
  const out: string[] = []
  for (const [k, g] of mine(after)) if (!changed.has(k) && (overlaps(g, utc) || overlaps(g, lmst))) out.push(k)
  return out
}

type Interval = [lo: number, hi: number] | undefined

function overlaps(g: SolGroup, r: Interval): boolean {
  return r !== undefined && g.lo !== undefined && g.hi !== undefined && g.hi > r[0] && g.lo < r[1]
}

/** The open interval between the nearest unchanged knots around the changed ones (their old and new places), or undefined when no changed sol has a knot. */
function region(rover: string, before: Record<string, SolGroup>, after: Record<string, SolGroup>, changed: ReadonlySet<string>, at: (g: SolGroup) => number | undefined): Interval {
  const moving: number[] = []
  for (const k of changed) {
    for (const g of [before[k], after[k]]) {
      const x = g ? at(g) : undefined
      if (x !== undefined) moving.push(x)
    }
  }
  if (moving.length === 0) return undefined
  const a = Math.min(...moving)
  const b = Math.max(...moving)
  let lo = -Infinity
  let hi = Infinity
  for (const [k, g] of Object.entries(after)) {
    if (!k.startsWith(`${rover}/`) || changed.has(k)) continue
    const x = at(g)
    if (x === undefined) continue
    if (x < a && x > lo) lo = x
    if (x > b && x < hi) hi = x
  }
  return [lo, hi]
}

/** A sol's knot: the median clock count of its labels (of those stating a Mars time, for the LMST knot). */
function knot(g: SolGroup, lmst: boolean): number | undefined {
  const xs: number[] = []
  for (let i = 0; i < g.labels.length; i += 3) if (!lmst || g.labels[i + 2] !== null) xs.push(g.labels[i]!)
  if (xs.length === 0) return undefined
  xs.sort((p, q) => p - q)
  const m = xs.length >> 1
  return xs.length % 2 ? xs[m]! : (xs[m - 1]! + xs[m]!) / 2
}
