import { INT_ABSENT, type LocationColumns, type PhotoColumns } from '../../src/store/schema'

/**
 * One location per (rover, site, drive) from photos that have both (decisions.md, Other
 * endpoints, Locations; fields of behaviour.md §14.2 as amended there):
 *  - first_date / last_date, first_sol / last_sol: min / max over the photos there;
 *  - photo_count: photos there;
 *  - visit_count: distinct sols with photos there (decisions.md; not the Anchor's sol span);
 *  - coordinates: those of the earliest photo there, earliest = lowest (sol, date_taken_utc,
 *    id) with unknown capture times after known ones. When that photo has no xyz, the earliest
 *    photo that has one is used (never invented: NaN only when no photo there has xyz).
 * Rows are ordered by rover code, then first_sol (decisions.md), then site, drive (so the order
 * is total and rebuilds are byte-identical).
 *
 * One pass over the photos with a numeric group key, no per-row objects.
 */
export function deriveLocations(photos: PhotoColumns): LocationColumns {
  const { rover, site, drive, sol, earth_date, date_taken_utc, id, coord_x } = photos
  const groups = new GroupTable()
  const solSeen = new Set<number>()

  for (let row = 0; row < photos.length; row++) {
    const s = site[row]!
    const d = drive[row]!
    if (s === INT_ABSENT || d === INT_ABSENT || s < 0 || d < 0) continue
    const g = groups.groupOf(rover[row]!, s, d)
    const so = sol[row]!
    const day = earth_date[row]!
    if (so < groups.firstSol[g]!) groups.firstSol[g] = so
    if (so > groups.lastSol[g]!) groups.lastSol[g] = so
    if (day < groups.firstDate[g]!) groups.firstDate[g] = day
    if (day > groups.lastDate[g]!) groups.lastDate[g] = day
    groups.photoCount[g]!++
    // distinct sols per group: one number per (group, sol) pair, exact in a double while g < 2^22
    const pair = g * 2_147_483_648 + so
    if (!solSeen.has(pair)) {
      solSeen.add(pair)
      groups.visitCount[g]!++
    }
    if (!Number.isNaN(coord_x[row]!)) {
      const best = groups.coordRow[g]!
      if (best < 0 || earlier(row, best, sol, date_taken_utc, id)) groups.coordRow[g] = row
    }
  }

  const count = groups.size
  const order = Array.from({ length: count }, (_, i) => i)
  order.sort((a, b) => groups.rover[a]! - groups.rover[b]! || groups.firstSol[a]! - groups.firstSol[b]! || groups.site[a]! - groups.site[b]! || groups.drive[a]! - groups.drive[b]!)

  const out: LocationColumns = {
    length: count,
    rover: new Uint8Array(count),
    site: new Int32Array(count),
    drive: new Int32Array(count),
    first_date: new Int32Array(count),
    last_date: new Int32Array(count),
    first_sol: new Int32Array(count),
    last_sol: new Int32Array(count),
    photo_count: new Int32Array(count),
    visit_count: new Int32Array(count),
    coord_x: new Float64Array(count),
    coord_y: new Float64Array(count),
    coord_z: new Float64Array(count),
  }
  for (let i = 0; i < count; i++) {
    const g = order[i]!
    out.rover[i] = groups.rover[g]!
    out.site[i] = groups.site[g]!
    out.drive[i] = groups.drive[g]!
    out.first_date[i] = groups.firstDate[g]!
    out.last_date[i] = groups.lastDate[g]!
    out.first_sol[i] = groups.firstSol[g]!
    out.last_sol[i] = groups.lastSol[g]!
    out.photo_count[i] = groups.photoCount[g]!
    out.visit_count[i] = groups.visitCount[g]!
    const c = groups.coordRow[g]!
    out.coord_x[i] = c < 0 ? NaN : photos.coord_x[c]!
    out.coord_y[i] = c < 0 ? NaN : photos.coord_y[c]!
    out.coord_z[i] = c < 0 ? NaN : photos.coord_z[c]!
  }
  return out
}

/** Is photo `a` earlier than photo `b`: by sol, then capture time (unknown last), then id. */
function earlier(a: number, b: number, sol: Int32Array, utc: Float64Array, id: Int32Array): boolean {
  if (sol[a] !== sol[b]) return sol[a]! < sol[b]!
  const ta = utc[a]!
  const tb = utc[b]!
  const na = Number.isNaN(ta)
  const nb = Number.isNaN(tb)
  if (na !== nb) return nb
  if (!na && ta !== tb) return ta < tb
  return id[a]! < id[b]!
}

/** Growable per-group accumulators keyed by (rover, site, drive). */
class GroupTable {
  readonly #byKey = new Map<number, number>()
  readonly #byText = new Map<string, number>()
  rover: number[] = []
  site: number[] = []
  drive: number[] = []
  firstSol: number[] = []
  lastSol: number[] = []
  firstDate: number[] = []
  lastDate: number[] = []
  photoCount: number[] = []
  visitCount: number[] = []
  coordRow: number[] = []

  get size(): number {
    return this.rover.length
  }

  groupOf(rover: number, site: number, drive: number): number {
    // rover < 4 (2 bits), site and drive < 2^24 each: the key stays below 2^50, exact in a double.
    const small = site < 16_777_216 && drive < 16_777_216
    const key = small ? (site * 16_777_216 + drive) * 4 + rover : 0
    const text = small ? '' : `${rover}_${site}_${drive}`
    const found = small ? this.#byKey.get(key) : this.#byText.get(text)
    if (found !== undefined) return found
    const g = this.rover.length
    if (small) this.#byKey.set(key, g)
    else this.#byText.set(text, g)
    this.rover.push(rover)
    this.site.push(site)
    this.drive.push(drive)
    this.firstSol.push(Number.MAX_SAFE_INTEGER)
    this.lastSol.push(-1)
    this.firstDate.push(Number.MAX_SAFE_INTEGER)
    this.lastDate.push(Number.MIN_SAFE_INTEGER)
    this.photoCount.push(0)
    this.visitCount.push(0)
    this.coordRow.push(-1)
    return g
  }
}
