/**
 * Cumulative distance and elevation sums along one rover's traverse (decisions.md, Journeys:
 * NASA's own cumulative distance where the waypoints state it, else great-circle sums).
 *
 * NASA's `dist_total_m` is the odometry along the path actually driven, so between two points
 * that both state it, it is the distance travelled, wiggles included. Its credible values are the
 * ones that do not go back: the MMGIS layers hold a few mid-mission points whose stated total is
 * 0 (Curiosity 6, Perseverance 60), which are treated as not stated. Between two consecutive
 * credible statements the stated distance is shared over the segments in between in proportion
 * to their great-circle lengths, so the sum over the stretch stays NASA's figure exactly; those
 * segments count as NASA-measured. Segments before the first or after the last statement (or of
 * a rover whose table states none) are great-circle lengths.
 *
 * Elevation: climbs and descents between consecutive points whose elevations are known (a point
 * without one is skipped over, never guessed).
 */
export interface TraverseSums {
  /** The credible stated totals (NaN where not stated or not credible). */
  statedTotal: Float64Array
  distance: Float64Array
  gain: Float64Array
  loss: Float64Array
  nasaSegments: Int32Array
}

export function traverseSums(
  lon: readonly number[],
  lat: readonly number[],
  elevation: readonly number[],
  distTotal: readonly number[],
  segmentLength: (lon1: number, lat1: number, lon2: number, lat2: number) => number,
): TraverseSums {
  const n = lon.length
  const stated = new Float64Array(n).fill(NaN)
  let best = -Infinity
  for (let i = 0; i < n; i++) {
    const d = distTotal[i]!
    if (Number.isFinite(d) && d >= best) {
      stated[i] = d
      best = d
    }
  }
  const seg = new Float64Array(n) // seg[i]: length of the segment ending at point i
  const nasa = new Uint8Array(n)
  for (let i = 1; i < n; i++) seg[i] = segmentLength(lon[i - 1]!, lat[i - 1]!, lon[i]!, lat[i]!)
  let prev = -1
  for (let i = 0; i < n; i++) {
    if (Number.isNaN(stated[i]!)) continue
    if (prev >= 0) {
      const told = stated[i]! - stated[prev]!
      let circle = 0
      for (let k = prev + 1; k <= i; k++) circle += seg[k]!
      for (let k = prev + 1; k <= i; k++) {
        seg[k] = circle > 0 ? (told * seg[k]!) / circle : told / (i - prev)
        nasa[k] = 1
      }
    }
    prev = i
  }
  const out: TraverseSums = { statedTotal: stated, distance: new Float64Array(n), gain: new Float64Array(n), loss: new Float64Array(n), nasaSegments: new Int32Array(n) }
  let lastElevation = NaN
  for (let i = 0; i < n; i++) {
    if (i > 0) {
      out.distance[i] = out.distance[i - 1]! + seg[i]!
      out.nasaSegments[i] = out.nasaSegments[i - 1]! + nasa[i]!
      out.gain[i] = out.gain[i - 1]!
      out.loss[i] = out.loss[i - 1]!
    }
    const e = elevation[i]!
    if (Number.isNaN(e)) continue
    if (!Number.isNaN(lastElevation)) {
      if (e > lastElevation) out.gain[i]! += e - lastElevation
      else out.loss[i]! += lastElevation - e
    }
    lastElevation = e
  }
  return out
}
