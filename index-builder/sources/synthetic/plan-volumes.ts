import type { RoverSlug } from '../../../src/catalog/rovers'
import { PROFILES } from './camera-profiles'
import { readManifestVolumes, type ShapingFile } from './shaping-data'
import type { Rng } from './rng'

/**
 * How many photos each sol gets and which cameras may take them (SOURCES.md §6.1):
 *  - Curiosity: the real manifest, cut at sol 3940 (~676k);
 *  - Opportunity, Spirit: the real manifests' per-sol shape scaled by 2.76 and 1.80 (~548k, ~224k);
 *  - Perseverance: no manifest; a heavy-tailed (log-normal) per-sol volume over sols 0-1700 with
 *    5% gap sols, scaled to ~452k, all cameras available (EDL cameras on sol 0 only).
 * `scale` < 1 keeps each sol with probability `scale` at its full volume (so small catalogues keep
 * the real per-sol structure: busy sols, sweeps); `scale` > 1 multiplies the volumes.
 */
export interface SolPlan {
  sol: number
  count: number
  /** Indices into PROFILES of the cameras shooting that sol. */
  cameras: number[]
}

export const TARGETS: Record<RoverSlug, number> = { curiosity: 676_000, perseverance: 452_000, opportunity: 548_000, spirit: 224_000 }
const MANIFEST_FACTOR = { curiosity: 1, opportunity: 2.76, spirit: 1.8 } as const
const CURIOSITY_LAST_SOL = 3940
const PERSEVERANCE_LAST_SOL = 1700

export function planVolumes(rover: RoverSlug, scale: number, rng: Rng, used: ShapingFile[]): SolPlan[] {
  const own = PROFILES.map((p, i) => (p.rover === rover ? i : -1)).filter((i) => i >= 0)
  const landingSol = rover === 'spirit' || rover === 'opportunity' ? 1 : 0
  const camerasFor = (sol: number, names?: string[]) =>
    own.filter((i) => {
      const p = PROFILES[i]!
      if (p.landingOnly && sol !== landingSol) return false
      return names ? names.includes(p.camera) : true
    })

  let raw: SolPlan[]
  if (rover === 'perseverance') {
    raw = [{ sol: 0, count: 54, cameras: camerasFor(0).filter((i) => /EDL|LCAM|HAZCAM/.test(PROFILES[i]!.camera)) }]
    const weights: number[] = []
    for (let s = 1; s <= PERSEVERANCE_LAST_SOL; s++) weights.push(rng.next() < 0.05 ? 0 : Math.exp(0.6 * rng.normal()))
    const sum = weights.reduce((a, b) => a + b, 0)
    const surface = camerasFor(1)
    weights.forEach((w, k) => {
      if (w > 0) raw.push({ sol: k + 1, count: rng.round((w / sum) * (TARGETS.perseverance - 54)), cameras: surface })
    })
  } else {
    const factor = MANIFEST_FACTOR[rover]
    raw = readManifestVolumes(rover, used)
      .filter((v) => rover !== 'curiosity' || v.sol <= CURIOSITY_LAST_SOL)
      .map((v) => ({ sol: v.sol, count: rng.round(v.count * factor), cameras: camerasFor(v.sol, v.cameras) }))
  }
  const plans: SolPlan[] = []
  for (const p of raw) {
    if (p.cameras.length === 0 || p.count === 0) continue
    if (scale < 1) {
      if (rng.next() < scale) plans.push(p)
    } else {
      plans.push({ ...p, count: rng.round(p.count * scale) })
    }
  }
  return plans
}
