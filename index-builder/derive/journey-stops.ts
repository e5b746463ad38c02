import { INT_ABSENT, type JourneyStopColumns, type PhotoColumns, type TraverseColumns } from '../../src/store/schema'

/**
 * The photos of each rover grouped by (sol, site, drive): where and when they were taken, for
 * GET /rovers/{slug}/journey and the rover pages (behaviour.md §16.2 groups the same way). A
 * photo without site or drive still counts, in a group whose site and drive are unknown (-1).
 * `point` is the row of the traverse point at the same (rover, site, drive), so a stop's position
 * is the waypoint table's, never inferred. Rows ordered by rover, sol, site, drive.
 * One pass over the photos with a numeric group key.
 */
export function deriveJourneyStops(photos: PhotoColumns, traverses: TraverseColumns): JourneyStopColumns {
  const { rover, sol, site, drive, earth_date } = photos
  const groups = new Map<string | number, number>()
  const g = { rover: [] as number[], sol: [] as number[], site: [] as number[], drive: [] as number[], firstDate: [] as number[], count: [] as number[] }
  for (let row = 0; row < photos.length; row++) {
    const r = rover[row]!
    const so = sol[row]!
    const s = site[row]! < 0 ? INT_ABSENT : site[row]!
    const d = drive[row]! < 0 || s === INT_ABSENT ? INT_ABSENT : drive[row]!
    const key = groupKey(r, so, s, d)
    let i = groups.get(key)
    if (i === undefined) {
      groups.set(key, (i = g.rover.length))
      g.rover.push(r)
      g.sol.push(so)
      g.site.push(s)
      g.drive.push(d)
      g.firstDate.push(earth_date[row]!)
      g.count.push(0)
    }
    g.count[i]!++
    if (earth_date[row]! < g.firstDate[i]!) g.firstDate[i] = earth_date[row]!
  }
  const order = Array.from({ length: g.rover.length }, (_, i) => i)
  order.sort((a, b) => g.rover[a]! - g.rover[b]! || g.sol[a]! - g.sol[b]! || g.site[a]! - g.site[b]! || g.drive[a]! - g.drive[b]!)
  const pointAt = new Map<string, number>()
  for (let p = 0; p < traverses.length; p++) pointAt.set(`${traverses.rover[p]}_${traverses.site[p]}_${traverses.drive[p]}`, p)
  const n = order.length
  const out: JourneyStopColumns = {
    length: n,
    rover: new Uint8Array(n),
    sol: new Int32Array(n),
    site: new Int32Array(n),
    drive: new Int32Array(n),
    first_date: new Int32Array(n),
    photo_count: new Int32Array(n),
    point: new Int32Array(n),
  }
  order.forEach((k, i) => {
    out.rover[i] = g.rover[k]!
    out.sol[i] = g.sol[k]!
    out.site[i] = g.site[k]!
    out.drive[i] = g.drive[k]!
    out.first_date[i] = g.firstDate[k]!
    out.photo_count[i] = g.count[k]!
    out.point[i] = g.site[k]! === INT_ABSENT ? INT_ABSENT : pointAt.get(`${g.rover[k]}_${g.site[k]}_${g.drive[k]}`) ?? INT_ABSENT
  })
  return out
}

/** rover (2 bits), sol (< 2^16), site + 1 (< 2^12), drive + 1 (< 2^16): below 2^46, exact in a double; text beyond. */
function groupKey(rover: number, sol: number, site: number, drive: number): string | number {
  if (sol >= 0 && sol < 65_536 && site < 4_095 && drive < 65_535) return ((rover * 65_536 + sol) * 4_096 + (site + 1)) * 65_536 + (drive + 1)
  return `${rover}_${sol}_${site}_${drive}`
}
