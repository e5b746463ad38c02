import { ROVER_SLUGS } from '../../../src/catalog/rovers'
import { INT_ABSENT, type PhotoColumns } from '../../../src/store/schema'
import { lowerBound } from '../../../src/query/page/table-ranges'
import { nasaIdFromUrl } from '../../normalize/nasa-id'
import { stereoEye } from './id-conventions'
import type { KeptRows } from '../kept-rows'

/**
 * Largest difference of exposure clock (the records' SCLK, seconds) between the two eyes of one
 * stereo pair. Measured on the real index: the eyes of a pair differ by at most 1.22 s
 * (Perseverance Navcam; Curiosity's ids state equal counts), and the nearest other-eye product of
 * the same kind that is not its partner is 8.0 s away (Mastcam-Z) — 2 s sits in that gap.
 */
export const STEREO_CLOCK_TOLERANCE_S = 2

/**
 * Seconds of clock past which a photo added or removed cannot change a kept photo's partner.
 * In one pass a left photo's pairing reads the right photos within the tolerance of it (its
 * nearest one, kept only within the tolerance) and then the left photos nearer that right one
 * than itself, all within twice the tolerance of it; likewise for a right photo. The second pass
 * takes only the photos the first left unpaired, and whether a photo within twice the tolerance
 * was left unpaired reads twice the tolerance again: four times in all. Beyond that (plus one
 * second of margin for rounding), a change is invisible to it.
 */
export const STEREO_REACH_S = 4 * STEREO_CLOCK_TOLERANCE_S + 1

/**
 * Each photo's stereo partner, by id (-1 none): the other eye of the same rig whose product has
 * the same letters (full with full, thumbnail with thumbnail, same filter and sequence), exposed
 * within STEREO_CLOCK_TOLERANCE_S. Among the eyes of one kind, each left photo takes its nearest
 * right one by clock and keeps it only when that right photo's nearest left one is itself, so a
 * pair is always mutual. Where eyes of one side crowd (two within twice the tolerance) and their
 * products have several versions, this runs twice: first among the products of one version
 * (Perseverance serves one id for `…J01`, `…J02`, `…J03`, the same exposure processed again, and
 * their clocks tie: v01 pairs with v01, v02 with v02), then among the eyes still without a
 * partner, whatever their versions (a left v01 whose right eye exists only as v03).
 *
 * With `kept` (an update's merge, kept-rows.ts: the published partners in `p.stereo_partner`, ids
 * unchanged), only the photos within STEREO_REACH_S of a photo added or removed are paired again,
 * among the photos within twice that (every photo their pairing reads); the others keep theirs.
 */
export function stereoPartners(p: PhotoColumns, kept?: KeptRows): Int32Array {
  const out = kept ? p.stereo_partner : new Int32Array(p.length).fill(INT_ABSENT)
  // Rows paired again here (all of a build); rows read to pair them.
  const again = (r: number) => !kept || kept.fresh[r] === 1 || within(kept.changedSclk, p.sclk[r]!, STEREO_REACH_S)
  const read = (r: number) => !kept || kept.fresh[r] === 1 || within(kept.changedSclk, p.sclk[r]!, 2 * STEREO_REACH_S)
  const text = new TextDecoder()
  // The eyes of one kind (rover and shared letters).
  const kinds = new Map<string, Eyes>()
  for (let r = 0; r < p.length; r++) {
    if (kept && again(r)) out[r] = INT_ABSENT
    if (Number.isNaN(p.sclk[r]!) || !read(r)) continue
    const rover = ROVER_SLUGS[p.rover[r]!]!
    const eye = stereoEye(rover, text.decode(p.nasa_id.data.subarray(p.nasa_id.offsets[r]!, p.nasa_id.offsets[r + 1]!)))
    if (!eye) continue
    const k = `${rover} ${eye.key}`
    let g = kinds.get(k)
    if (!g) kinds.set(k, (g = { left: [], right: [] }))
    ;(eye.eye === 'L' ? g.left : g.right).push(r)
  }
  const bySclk = (a: number, b: number) => p.sclk[a]! - p.sclk[b]! || p.id[a]! - p.id[b]!
  // Pairs the eyes of lists sorted by clock (each kind's, and the lists taken from them in order).
  const pair = ({ left, right }: Eyes, found: (l: number, r: number) => void) => {
    if (left.length === 0 || right.length === 0) return
    for (const l of left) {
      const r = nearest(p.sclk, right, p.sclk[l]!)
      if (Math.abs(p.sclk[r]! - p.sclk[l]!) > STEREO_CLOCK_TOLERANCE_S) continue
      if (nearest(p.sclk, left, p.sclk[r]!) !== l) continue
      found(l, r)
    }
  }
  const keep = (l: number, r: number) => {
    if (again(l)) out[l] = p.id[r]!
    if (again(r)) out[r] = p.id[l]!
  }
  // Paired in the first pass (a kind split by version).
  const first = new Set<number>()
  for (const g of kinds.values()) {
    g.left.sort(bySclk)
    g.right.sort(bySclk)
    // Where no two eyes of one side lie within twice the tolerance, each eye has at most one
    // candidate and the versions cannot change a pair: one pass, no file names read.
    if (!crowded(p.sclk, g.left) && !crowded(p.sclk, g.right)) {
      pair(g, keep)
      continue
    }
    const byVersion = new Map<number, Eyes>()
    for (const [side, rows] of [['left', g.left], ['right', g.right]] as const) {
      for (const r of rows) {
        const v = productVersion(p, r, text)
        let e = byVersion.get(v)
        if (!e) byVersion.set(v, (e = { left: [], right: [] }))
        e[side].push(r)
      }
    }
    for (const e of byVersion.values()) {
      pair(e, (l, r) => {
        first.add(l)
        first.add(r)
        keep(l, r)
      })
    }
    if (byVersion.size > 1) pair({ left: g.left.filter((r) => !first.has(r)), right: g.right.filter((r) => !first.has(r)) }, keep)
  }
  return out
}

interface Eyes {
  left: number[]
  right: number[]
}

/** Whether two rows of `sorted` (ascending by clock) lie within twice the pairing tolerance. */
function crowded(sclk: Float64Array, sorted: number[]): boolean {
  for (let i = 1; i < sorted.length; i++) if (sclk[sorted[i]!]! - sclk[sorted[i - 1]!]! <= 2 * STEREO_CLOCK_TOLERANCE_S) return true
  return false
}

/** The product version of a row, from its image file names (Perseverance `…2I3J02_1200.jpg`: 2; 1 when none says). */
function productVersion(p: PhotoColumns, r: number, text: TextDecoder): number {
  for (const c of [p.image_full, p.image_large, p.image_medium, p.image_small]) {
    const a = c.offsets[r]!
    const b = c.offsets[r + 1]!
    if (b > a) return nasaIdFromUrl(text.decode(c.data.subarray(a, b))).version
  }
  return 1
}

/** The row of `sorted` (ordered by clock) whose clock is nearest `t`; the earlier one on a tie. */
function nearest(sclk: Float64Array, sorted: number[], t: number): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sclk[sorted[mid]!]! < t) lo = mid + 1
    else hi = mid
  }
  if (lo === sorted.length) return sorted[lo - 1]!
  if (lo === 0) return sorted[0]!
  const a = sorted[lo - 1]!
  const b = sorted[lo]!
  return t - sclk[a]! <= sclk[b]! - t ? a : b
}

/** Whether a value of `sorted` (ascending) lies within `reach` of `t`. */
function within(sorted: Float64Array, t: number, reach: number): boolean {
  if (Number.isNaN(t)) return false
  const lo = lowerBound(sorted, 0, sorted.length, t)
  return (lo < sorted.length && sorted[lo]! - t <= reach) || (lo > 0 && t - sorted[lo - 1]! <= reach)
}
