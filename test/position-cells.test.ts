/**
 * The position cells of "taken near here" (src/query/plan/position-cells.ts) give exactly the
 * photos of a circle: on points crowded around the places where a grid is easy to get wrong (both
 * sides of longitude 0/360, next to a pole, a circle wider than its cells), many at one position
 * as at a rover's stop, the rows of the circle's slices are those a test of every point finds.
 */
import { describe, expect, test } from 'bun:test'
import { greatCircleM } from '../src/geo/great-circle'
import { circleSlices, positionCells } from '../src/query/plan/position-cells'
import type { Store } from '../src/store/store'
import { Rng } from '../index-builder/sources/synthetic/rng'

/** The builder's seeded generator (mulberry32), so a failure repeats. */
function rng(seed: number): () => number {
  const r = new Rng(seed)
  return () => r.next()
}

const CENTRES = [
  { lat: 0.0004, lon: 0.0002 },
  { lat: -4.6, lon: 359.9995 },
  { lat: 89.9995, lon: 10 },
  { lat: -89.99, lon: 200 },
  { lat: 18.4447, lon: 77.4508 },
  { lat: -45, lon: 180 },
]

function storeOf(lat: Float64Array, lon: Float64Array): Store {
  return { photos: { length: lat.length, lat, lon } } as unknown as Store
}

describe('position cells', () => {
  test('the rows of a circle\'s slices are exactly the points within it, each slice in row order, across 0/360, at the poles, for 1 m to 5 km', () => {
    const next = rng(7)
    const n = 30_000
    const lat = new Float64Array(n)
    const lon = new Float64Array(n)
    for (let i = 0; i < n; i++) {
      if (i % 50 === 0) { lat[i] = NaN; lon[i] = NaN; continue }
      // The first half in stops: runs of rows at one position, as a rover's photos of one stop.
      if (i < n / 2 && i % 20 !== 1 && !Number.isNaN(lat[i - 1]!)) { lat[i] = lat[i - 1]!; lon[i] = lon[i - 1]!; continue }
      const c = CENTRES[i % CENTRES.length]!
      // Within about 0.2 degrees (12 km) of a centre, denser near it; some exactly on it.
      const spread = i % 7 === 0 ? 0 : 0.2 * next() ** 3
      const a = next() * 2 * Math.PI
      lat[i] = Math.max(-90, Math.min(90, c.lat + spread * Math.sin(a)))
      lon[i] = (((c.lon + spread * Math.cos(a)) % 360) + 360) % 360
    }
    const cells = positionCells(storeOf(lat, lon))
    expect(cells.perm.length).toBe(n - n / 50)
    for (const c of CENTRES) {
      for (const radius of [1, 50, 333, 5000]) {
        const want: number[] = []
        for (let r = 0; r < n; r++) if (greatCircleM(c.lon, c.lat, lon[r]!, lat[r]!) <= radius) want.push(r)
        const got: number[] = []
        const slices = circleSlices(cells, { ...c, radiusM: radius }, lat, lon)
        for (let i = 0; i < slices.length; i += 2) {
          if (i > 0) expect(slices[i]!).toBeGreaterThanOrEqual(slices[i - 1]!)
          for (let pos = slices[i]!; pos < slices[i + 1]!; pos++) {
            // Each slice ascending by row (the default order).
            if (pos > slices[i]!) expect(cells.perm[pos]!).toBeGreaterThan(cells.perm[pos - 1]!)
            got.push(cells.perm[pos]!)
          }
        }
        expect({ c, radius, rows: got.sort((a, b) => a - b) }).toEqual({ c, radius, rows: want })
      }
    }
  })
})
