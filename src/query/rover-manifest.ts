import type { Store } from '../store/store'
import { INT_ABSENT } from '../store/schema'
import { ROVERS } from '../catalog/rovers'
import { perSnapshot } from '../store/per-snapshot'

/**
 * A rover's mission manifest as read from the builder's sol-manifest table (one row per
 * (rover, sol, earth_date, camera), see index-builder/derive/sol-manifest.ts): the rows are
 * grouped here into days, in the table's order, with no counting beyond sums. Made once per
 * index snapshot; the v2 manifest and cameras routes and the v1 manifest route all read it.
 */
export interface ManifestDay {
  sol: number
  /** Days since 1970-01-01. */
  day: number
  total: number
  /** NASA's v1 manifest total for the sol; undefined when no manifest states it. */
  nasaTotal: number | undefined
  /** Camera names, ascending. */
  cameras: string[]
}

export interface ManifestCamera {
  name: string
  count: number
  firstSol: number
  lastSol: number
}

export interface RoverManifest {
  total: number
  /** -1 when the rover has no photos. */
  maxSol: number
  /** NaN when the rover has no photos. */
  maxDate: number
  days: ManifestDay[]
  /** Cameras with photos, by name ascending. */
  cameras: Map<string, ManifestCamera>
}

export const roverManifests: (store: Store) => RoverManifest[] = perSnapshot((store) => {
  const m = store.solManifest
  const out: RoverManifest[] = ROVERS.map(() => ({ total: 0, maxSol: -1, maxDate: NaN, days: [], cameras: new Map() }))
  let last: ManifestDay | undefined
  let lastRover = -1
  for (let i = 0; i < m.length; i++) {
    const r = m.rover[i]!
    const rover = out[r]
    if (rover === undefined) continue
    const sol = m.sol[i]!
    const day = m.earth_date[i]!
    const count = m.photo_count[i]!
    const name = m.camera.dict[m.camera.codes[i]!]!
    if (last === undefined || lastRover !== r || last.sol !== sol || last.day !== day) {
      const nasa = m.nasa_total_photos[i]!
      last = { sol, day, total: 0, nasaTotal: nasa === INT_ABSENT ? undefined : nasa, cameras: [] }
      lastRover = r
      rover.days.push(last)
    }
    last.total += count
    last.cameras.push(name)
    rover.total += count
    if (sol > rover.maxSol) rover.maxSol = sol
    if (!(day <= rover.maxDate)) rover.maxDate = day
    const cam = rover.cameras.get(name)
    if (cam === undefined) rover.cameras.set(name, { name, count, firstSol: sol, lastSol: sol })
    else {
      cam.count += count
      if (sol < cam.firstSol) cam.firstSol = sol
      if (sol > cam.lastSol) cam.lastSol = sol
    }
  }
  for (const rover of out) rover.cameras = new Map([...rover.cameras].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  return out
})
