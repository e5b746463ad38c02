import { perSnapshot } from '../../store/per-snapshot'
import type { Store } from '../../store/store'

/**
 * Where each rover's rows, and each (rover, camera code) group's rows, start in the access
 * paths sorted by rover first (src/store/access-paths.ts), found once per snapshot. A narrowed
 * query then reads its group's bounds from these tables and binary-searches only inside the
 * group: the searches from the start of a 1.9M-row permutation, each step a random read of the
 * rover and camera columns, were most of a (cameras, earth_date) query's planning.
 *
 *  - `solStarts[c]` .. `solStarts[c + 1]`: rover c's positions in by_rover_sol;
 *  - `siteStarts[c]` .. `siteStarts[c + 1]`: the same in by_rover_site_drive (when present);
 *  - `cameraStarts[c * cameraSpan + code]` .. `[... + 1]`: the (rover c, camera code) group in
 *    by_rover_camera, and in by_rover_camera_date, which orders the same groups (by date
 *    inside each).
 * Rover codes at or above `rovers` hold no rows.
 */
export interface RoverGroups {
  rovers: number
  cameraSpan: number
  solStarts: Int32Array
  siteStarts?: Int32Array
  cameraStarts: Int32Array
}

export const roverGroups = perSnapshot((store: Store): RoverGroups => {
  const p = store.photos
  const paths = store.paths
  const n = paths.byRoverSol.length
  const rovers = n > 0 ? p.rover[paths.byRoverSol[n - 1]] + 1 : 0
  const cameraSpan = Math.max(1, p.camera.dict.length)
  const roverStarts = (perm: Int32Array): Int32Array => {
    const out = new Int32Array(rovers + 1)
    for (let c = 0; c <= rovers; c++) out[c] = firstAtLeast(perm.length, (pos) => p.rover[perm[pos]], c)
    return out
  }
  const camera = paths.byRoverCamera
  const groups = rovers * cameraSpan
  const cameraStarts = new Int32Array(groups + 1)
  for (let k = 0; k <= groups; k++) {
    cameraStarts[k] = firstAtLeast(camera.length, (pos) => p.rover[camera[pos]] * cameraSpan + p.camera.codes[camera[pos]], k)
  }
  return {
    rovers,
    cameraSpan,
    solStarts: roverStarts(paths.byRoverSol),
    siteStarts: paths.byRoverSiteDrive && roverStarts(paths.byRoverSiteDrive),
    cameraStarts,
  }
})

/** First position in [0, n) whose key is >= k (keys ascending along the positions). */
function firstAtLeast(n: number, key: (pos: number) => number, k: number): number {
  let lo = 0
  let hi = n
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (key(mid) < k) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Positions [start, end) of rover c in a table of rover starts (empty for a rover without rows). */
export function roverSpan(starts: Int32Array, c: number): [number, number] {
  if (c + 1 >= starts.length) return [starts[starts.length - 1], starts[starts.length - 1]]
  return [starts[c], starts[c + 1]]
}

/** Positions [start, end) of the (rover c, camera code) group (empty when the rover has no rows or the code is unknown). */
export function cameraGroup(g: RoverGroups, c: number, code: number): [number, number] {
  const end = g.cameraStarts[g.cameraStarts.length - 1]
  if (c >= g.rovers || code < 0 || code >= g.cameraSpan) return [end, end]
  const k = c * g.cameraSpan + code
  return [g.cameraStarts[k], g.cameraStarts[k + 1]]
}
