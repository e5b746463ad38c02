import type { Store } from '../store/store'
import { ROVER_SLUGS } from '../catalog/rovers'

/**
 * Per-rover and per-(rover, camera) photo statistics, computed from the index once per store
 * snapshot (one pass over the rover, camera, sol and earth_date columns; memoised by Store, so a
 * reloaded index gets fresh figures and the old ones are collected with the old snapshot).
 * behaviour.md §12.1: max_sol = highest sol with photos, max_date = latest earth_date,
 * total_photos = count. Cameras (§13.1): photo_count, first and last sol with photos.
 */
export interface RoverStats {
  total: number
  /** -1 when the rover has no photos. */
  maxSol: number
  /** Days since 1970-01-01; NaN when the rover has no photos. */
  maxDate: number
}

export interface CameraStats {
  count: number
  firstSol: number
  lastSol: number
}

export interface CatalogueStats {
  /** By rover code. */
  rovers: RoverStats[]
  /** By rover code, then camera name (only cameras with photos). */
  cameras: Array<Map<string, CameraStats>>
}

const memo = new WeakMap<Store, CatalogueStats>()

export function roverStats(store: Store): CatalogueStats {
  let stats = memo.get(store)
  if (!stats) {
    stats = computeStats(store)
    memo.set(store, stats)
  }
  return stats
}

function computeStats(store: Store): CatalogueStats {
  const p = store.photos
  const rovers = ROVER_SLUGS.length
  const names = p.camera.dict
  const width = names.length
  const count = new Int32Array(rovers * width)
  const minSol = new Int32Array(rovers * width).fill(2_147_483_647)
  const maxSol = new Int32Array(rovers * width).fill(-1)
  const maxDate = new Float64Array(rovers).fill(NaN)
  const { rover, sol, earth_date } = p
  const codes = p.camera.codes
  for (let row = 0; row < p.length; row++) {
    const r = rover[row]!
    const k = r * width + codes[row]!
    const s = sol[row]!
    count[k]!++
    if (s < minSol[k]!) minSol[k] = s
    if (s > maxSol[k]!) maxSol[k] = s
    const d = earth_date[row]!
    if (!(d <= maxDate[r]!)) maxDate[r] = d
  }
  const out: CatalogueStats = { rovers: [], cameras: [] }
  for (let r = 0; r < rovers; r++) {
    const cams = new Map<string, CameraStats>()
    let total = 0
    let top = -1
    for (let c = 0; c < width; c++) {
      const k = r * width + c
      if (count[k] === 0) continue
      total += count[k]!
      if (maxSol[k]! > top) top = maxSol[k]!
      const prior = cams.get(names[c]!)
      // a camera name appears once per dictionary, but stay correct if a builder ever repeats one
      cams.set(names[c]!, prior ? merge(prior, count[k]!, minSol[k]!, maxSol[k]!) : { count: count[k]!, firstSol: minSol[k]!, lastSol: maxSol[k]! })
    }
    out.rovers.push({ total, maxSol: top, maxDate: total ? maxDate[r]! : NaN })
    out.cameras.push(cams)
  }
  return out
}

function merge(a: CameraStats, count: number, first: number, last: number): CameraStats {
  return { count: a.count + count, firstSol: Math.min(a.firstSol, first), lastSol: Math.max(a.lastSol, last) }
}
