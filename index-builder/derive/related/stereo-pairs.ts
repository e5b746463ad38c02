import { ROVER_SLUGS } from '../../../src/catalog/rovers'
import { INT_ABSENT, type PhotoColumns } from '../../../src/store/schema'
import { lowerBound } from '../../../src/query/page/table-ranges'
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
 * A left photo's pairing reads the right photos within the tolerance of it (its nearest one, kept
 * only within the tolerance) and then the left photos nearer that right one than itself, all
 * within twice the tolerance of it; likewise for a right photo. Beyond that (plus one second of
 * margin for rounding), a change is invisible to it.
 */
export const STEREO_REACH_S = 2 * STEREO_CLOCK_TOLERANCE_S + 1

/**
 * Each photo's stereo partner, by id (-1 none): the other eye of the same rig whose product has
 * the same letters (full with full, thumbnail with thumbnail, same filter and sequence), exposed
 * within STEREO_CLOCK_TOLERANCE_S. Each left photo takes its nearest right one by clock and keeps
 * it only when that right photo's nearest left one is itself, so a pair is always mutual.
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
  const groups = new Map<string, { left: number[]; right: number[] }>()
  for (let r = 0; r < p.length; r++) {
    if (kept && again(r)) out[r] = INT_ABSENT
    if (Number.isNaN(p.sclk[r]!) || !read(r)) continue
    const rover = ROVER_SLUGS[p.rover[r]!]!
    const eye = stereoEye(rover, text.decode(p.nasa_id.data.subarray(p.nasa_id.offsets[r]!, p.nasa_id.offsets[r + 1]!)))
    if (!eye) continue
    const k = `${rover} ${eye.key}`
    let g = groups.get(k)
    if (!g) groups.set(k, (g = { left: [], right: [] }))
    ;(eye.eye === 'L' ? g.left : g.right).push(r)
  }
  const bySclk = (a: number, b: number) => p.sclk[a]! - p.sclk[b]! || p.id[a]! - p.id[b]!
  for (const { left, right } of groups.values()) {
    if (left.length === 0 || right.length === 0) continue
    left.sort(bySclk)
    right.sort(bySclk)
    for (const l of left) {
      const r = nearest(p.sclk, right, p.sclk[l]!)
      if (Math.abs(p.sclk[r]! - p.sclk[l]!) > STEREO_CLOCK_TOLERANCE_S) continue
      if (nearest(p.sclk, left, p.sclk[r]!) !== l) continue
      if (again(l)) out[l] = p.id[r]!
      if (again(r)) out[r] = p.id[l]!
    }
  }
  return out
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
