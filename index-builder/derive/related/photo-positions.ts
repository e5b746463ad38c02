import type { PhotoColumns, TraverseColumns } from '../../../src/store/schema'
import { derivesRow, type KeptRows } from '../kept-rows'

/**
 * Each photo's planetocentric position (latitude, east longitude 0..360): the traverse waypoint at
 * its rover, site and drive, as the journeys place a stop (journey-stops.ts). Never interpolated:
 * a photo taken mid-drive, between two waypoints, may be hundreds of metres from either, which is
 * more than the distances "taken near here" answers, so it has no position (NaN).
 * With `kept`, a published row keeps its position (its own facts and the traverses are unchanged).
 */
export function photoPositions(p: PhotoColumns, t: TraverseColumns, kept?: KeptRows): { lat: Float64Array; lon: Float64Array } {
  // Per rover and site, the traverse row of each drive: number keys, no string per photo (the
  // synthetic catalogue places all of its 1.9M photos).
  const at = new Map<number, Map<number, number>>()
  for (let i = 0; i < t.length; i++) {
    const k = t.rover[i]! * 2 ** 32 + t.site[i]!
    let drives = at.get(k)
    if (!drives) at.set(k, (drives = new Map()))
    drives.set(t.drive[i]!, i)
  }
  const lat = kept ? p.lat : new Float64Array(p.length).fill(NaN)
  const lon = kept ? p.lon : new Float64Array(p.length).fill(NaN)
  for (let r = 0; r < p.length; r++) {
    if (!derivesRow(kept, r)) continue
    lat[r] = NaN
    lon[r] = NaN
    if (p.site[r]! < 0 || p.drive[r]! < 0) continue
    const i = at.get(p.rover[r]! * 2 ** 32 + p.site[r]!)?.get(p.drive[r]!)
    if (i === undefined || !Number.isFinite(t.lat[i]!) || !Number.isFinite(t.lon[i]!)) continue
    lat[r] = t.lat[i]!
    lon[r] = ((t.lon[i]! % 360) + 360) % 360
  }
  return { lat, lon }
}
