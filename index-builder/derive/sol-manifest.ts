import type { RoverManifest } from '../sources/v1-manifest'
import { ROVER_SLUGS } from '../../src/catalog/rovers'
import { INT_ABSENT, type Manifest, type PhotoColumns, type SolManifestColumns } from '../../src/store/schema'

/**
 * The mission manifest of every rover, computed once from the catalogue: one row per
 * (rover, sol, earth_date, camera) with the photos counted there. The v2 manifest and cameras
 * routes and the v1 `manifests/{name}` route all read these rows, so they agree with each other
 * and with what the photo endpoints return for the same sol.
 *
 * `nasa_total_photos` is what NASA's own v1 manifest states for that sol (SOURCES.md §2.1), on
 * every row of the sol; INT_ABSENT where no manifest covers the rover or the sol. It lets a user
 * see how much of each day the catalogue holds (our `total_photos` beside NASA's).
 *
 * `nasa_earth_date` is the date NASA's v1 manifest gives the sol (v1 dated each sol once; the v1
 * layer serves one entry per sol with it), INT_ABSENT where no manifest states the sol.
 *
 * Rows are ordered by rover code, sol, earth_date, then camera name (the v1 manifests list a
 * sol's cameras alphabetically), so rebuilds are byte-identical. One pass over the photos with a
 * numeric group key (exact in a double: 2 + 15 + 17 + 10 bits), no per-row objects.
 */
const SOL_SPAN = 2 ** 15
const DAY_SPAN = 2 ** 17
const CAM_SPAN = 2 ** 10

export function deriveSolManifest(photos: PhotoColumns, manifests: readonly RoverManifest[] = []): SolManifestColumns {
  const names = photos.camera.dict
  if (names.length > CAM_SPAN) throw new Error(`sol manifest: ${names.length} camera names exceed ${CAM_SPAN}`)
  // Camera rank by name, so the numeric key sorts a sol's cameras alphabetically.
  const byName = names.map((_, i) => i).sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : 0))
  const rank = new Int32Array(names.length)
  byName.forEach((code, r) => (rank[code] = r))

  const counts = new Map<number, number>()
  const { rover, sol, earth_date, camera } = photos
  for (let row = 0; row < photos.length; row++) {
    const s = sol[row]!
    const day = earth_date[row]!
    if (s === INT_ABSENT || day === INT_ABSENT || s < 0 || s >= SOL_SPAN || day < 0 || day >= DAY_SPAN) continue
    const key = ((rover[row]! * SOL_SPAN + s) * DAY_SPAN + day) * CAM_SPAN + rank[camera.codes[row]!]!
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  const keys = [...counts.keys()].sort((a, b) => a - b)

  const nasa = nasaTotals(manifests)
  const n = keys.length
  const out: SolManifestColumns = {
    length: n,
    rover: new Uint8Array(n),
    sol: new Int32Array(n),
    earth_date: new Int32Array(n),
    camera: { codes: new Int16Array(n), dict: byName.map((code) => names[code]!) },
    photo_count: new Int32Array(n),
    nasa_total_photos: new Int32Array(n),
    nasa_earth_date: new Int32Array(n),
  }
  for (let i = 0; i < n; i++) {
    const k = keys[i]!
    const cam = k % CAM_SPAN
    const day = Math.floor(k / CAM_SPAN) % DAY_SPAN
    const s = Math.floor(k / (CAM_SPAN * DAY_SPAN)) % SOL_SPAN
    const r = Math.floor(k / (CAM_SPAN * DAY_SPAN * SOL_SPAN))
    out.rover[i] = r
    out.sol[i] = s
    out.earth_date[i] = day
    ;(out.camera.codes as Int16Array)[i] = cam
    out.photo_count[i] = counts.get(k)!
    out.nasa_total_photos[i] = nasa[r]?.get(s)?.total ?? INT_ABSENT
    out.nasa_earth_date[i] = nasa[r]?.get(s)?.day ?? INT_ABSENT
  }
  return out
}

/**
 * Per rover NASA's v1 manifests cover: the photos they state summed over the sols they list, with
 * the same per-sol merge as the rows (the last manifest read wins a sol). Undefined when the build
 * read no manifest (the synthetic catalogue, or sources given without them).
 */
export function nasaManifestFacts(manifests: readonly RoverManifest[]): Manifest['nasa_manifests'] {
  if (manifests.length === 0) return undefined
  const out: NonNullable<Manifest['nasa_manifests']> = {}
  nasaTotals(manifests).forEach((sols, code) => {
    if (sols.size === 0) return
    let total = 0
    for (const n of sols.values()) total += n.total
    out[ROVER_SLUGS[code]!] = { total_photos: total, sols: sols.size }
  })
  return out
}

/** Per rover code: sol -> NASA's total_photos and earth_date (days) for that sol (the last manifest read wins). */
function nasaTotals(manifests: readonly RoverManifest[]): Array<Map<number, { total: number; day: number }>> {
  const out = ROVER_SLUGS.map(() => new Map<number, { total: number; day: number }>())
  for (const m of manifests) {
    const code = ROVER_SLUGS.indexOf(m.rover)
    if (code < 0) continue
    for (const s of m.sols) out[code]!.set(s.sol, { total: s.total_photos, day: Date.parse(`${s.earth_date}T00:00:00Z`) / 86_400_000 })
  }
  return out
}
