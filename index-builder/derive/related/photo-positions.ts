import type { PhotoColumns, TraverseColumns } from '../../../src/store/schema'

/**
 * Each photo's planetocentric position (latitude, east longitude 0..360): the traverse waypoint at
 * its rover, site and drive, as the journeys place a stop (journey-stops.ts). Never interpolated:
 * a photo taken mid-drive, between two waypoints, may be hundreds of metres from either, which is
 * more than the distances "taken near here" answers, so it has no position (NaN).
 */
export function photoPositions(p: PhotoColumns, t: TraverseColumns): { lat: Float64Array; lon: Float64Array } {
  const at = new Map<string, number>()
  for (let i = 0; i < t.length; i++) at.set(`${t.rover[i]}_${t.site[i]}_${t.drive[i]}`, i)
  const lat = new Float64Array(p.length).fill(NaN)
  const lon = new Float64Array(p.length).fill(NaN)
  for (let r = 0; r < p.length; r++) {
    if (p.site[r]! < 0 || p.drive[r]! < 0) continue
    const i = at.get(`${p.rover[r]}_${p.site[r]}_${p.drive[r]}`)
    if (i === undefined || !Number.isFinite(t.lat[i]!) || !Number.isFinite(t.lon[i]!)) continue
    lat[r] = t.lat[i]!
    lon[r] = ((t.lon[i]! % 360) + 360) % 360
  }
  return { lat, lon }
}
