/**
 * Douglas–Peucker line simplification (Douglas & Peucker 1973) on planar points: keeps the first
 * and last point, and recursively the point farthest from the chord of each span when it lies
 * more than `tolerance` from it; every dropped point is then within `tolerance` of the segment of
 * the kept line that spans it. Distances are to the chord as a segment (not the infinite line),
 * so a path that doubles back keeps its turning point. An explicit stack instead of recursion:
 * a path of thousands of points cannot exhaust the call stack. O(n log n) typical, O(n²) worst.
 *
 * Returns the indices of the kept points, ascending.
 */
export function douglasPeucker(xs: ArrayLike<number>, ys: ArrayLike<number>, tolerance: number): number[] {
  const n = xs.length
  if (n <= 2) return Array.from({ length: n }, (_, i) => i)
  const keep = new Uint8Array(n)
  keep[0] = 1
  keep[n - 1] = 1
  const stack: number[] = [0, n - 1]
  while (stack.length > 0) {
    const last = stack.pop()!
    const first = stack.pop()!
    let far = -1
    let farD = tolerance
    for (let i = first + 1; i < last; i++) {
      const d = segmentDistance(xs[i]!, ys[i]!, xs[first]!, ys[first]!, xs[last]!, ys[last]!)
      if (d > farD) {
        farD = d
        far = i
      }
    }
    if (far >= 0) {
      keep[far] = 1
      stack.push(first, far, far, last)
    }
  }
  const out: number[] = []
  for (let i = 0; i < n; i++) if (keep[i]) out.push(i)
  return out
}

/** Distance from (px, py) to the segment (ax, ay)–(bx, by). */
export function segmentDistance(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax
  const dy = by - ay
  const len2 = dx * dx + dy * dy
  let t = len2 === 0 ? 0 : ((px - ax) * dx + (py - ay) * dy) / len2
  if (t < 0) t = 0
  else if (t > 1) t = 1
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy))
}
