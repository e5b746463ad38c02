import type { Store } from '../../store/store'
import { INT_ABSENT } from '../../store/schema'
import { ROVERS } from '../../catalog/rovers'
import { perSnapshot } from '../../store/per-snapshot'

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
  /** NASA's v1 manifest date of the sol (days); undefined when no manifest states it. */
  nasaDay: number | undefined
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
      const nasaDay = m.nasa_earth_date[i]!
      last = { sol, day, total: 0, nasaTotal: nasa === INT_ABSENT ? undefined : nasa, nasaDay: nasaDay === INT_ABSENT ? undefined : nasaDay, cameras: [] }
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

/**
 * The v1 view of a rover's days (decisions.md, v1 layer; NASA's v1 manifests had one entry per
 * sol): one day per sol, dated with NASA's v1 earth_date of the sol where a manifest states it,
 * else with the sol's earliest date in the catalogue; totals summed over the sol's UTC dates,
 * cameras merged. `solsOnDay` answers v1's `photos?earth_date=`: the sols v1 dates that day.
 * (v2 keeps earth_date as the UTC date of capture, so a sol may span two v2 dates.)
 */
export interface V1RoverDays {
  days: ManifestDay[]
  /** v1 date (days) of each sol, -1 where the rover has no photo of the sol. */
  dayOfSol: Int32Array
  /** days -> the sols v1 dates that day, ascending. */
  solsOnDay: Map<number, number[]>
}

export const v1RoverDays: (store: Store) => V1RoverDays[] = perSnapshot((store) =>
  roverManifests(store).map((rover) => {
    const days: ManifestDay[] = []
    for (const d of rover.days) {
      const last = days[days.length - 1]
      if (last === undefined || last.sol !== d.sol) {
        days.push({ ...d, day: d.nasaDay ?? d.day, cameras: [...d.cameras] })
        continue
      }
      // Days of one sol come in date order: the first already holds the earliest date.
      last.total += d.total
      for (const c of d.cameras) if (!last.cameras.includes(c)) last.cameras.push(c)
      last.cameras.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    }
    const dayOfSol = new Int32Array(rover.maxSol + 1).fill(-1)
    const solsOnDay = new Map<number, number[]>()
    for (const d of days) {
      dayOfSol[d.sol] = d.day
      const list = solsOnDay.get(d.day)
      if (list) list.push(d.sol)
      else solsOnDay.set(d.day, [d.sol])
    }
    return { days, dayOfSol, solsOnDay }
  }),
)
