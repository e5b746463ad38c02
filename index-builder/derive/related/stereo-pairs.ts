import { ROVER_SLUGS } from '../../../src/catalog/rovers'
import { INT_ABSENT, type PhotoColumns } from '../../../src/store/schema'
import { stereoEye } from './id-conventions'

/**
 * Largest difference of exposure clock (the records' SCLK, seconds) between the two eyes of one
 * stereo pair. Measured on the real index: the eyes of a pair differ by at most 1.22 s
 * (Perseverance Navcam; Curiosity's ids state equal counts), and the nearest other-eye product of
 * the same kind that is not its partner is 8.0 s away (Mastcam-Z) — 2 s sits in that gap.
 */
export const STEREO_CLOCK_TOLERANCE_S = 2

/**
 * Each photo's stereo partner, by id (-1 none): the other eye of the same rig whose product has
 * the same letters (full with full, thumbnail with thumbnail, same filter and sequence), exposed
 * within STEREO_CLOCK_TOLERANCE_S. Each left photo takes its nearest right one by clock and keeps
 * it only when that right photo's nearest left one is itself, so a pair is always mutual.
 */
export function stereoPartners(p: PhotoColumns): Int32Array {
  const out = new Int32Array(p.length).fill(INT_ABSENT)
  const text = new TextDecoder()
  const groups = new Map<string, { left: number[]; right: number[] }>()
  for (let r = 0; r < p.length; r++) {
    if (Number.isNaN(p.sclk[r]!)) continue
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
      out[l] = p.id[r]!
      out[r] = p.id[l]!
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
