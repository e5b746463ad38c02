import type { TraverseColumns } from '../../src/store/schema'
import { ROVERS } from '../../src/catalog/rovers'
import { lowerBound, roverRanges } from '../../src/query/page/table-ranges'

export { lowerBound }

/**
 * The stretch of a rover's traverse that a sol window covers (decisions.md, Journeys).
 *
 * Each point carries the sol the rover reached it. The stretch starts where the rover stood when
 * sol_min began, the last point reached before sol_min (or the rover's first point when none is),
 * and ends at the last point reached on or before sol_max; so the drive made on sol_min is
 * counted. Sols never decrease along a traverse (index-builder/derive/traverses.ts): two binary
 * searches. All figures of a stretch are differences of the builder's cumulative columns.
 *
 * When the rover has no traverse, or the window lies wholly outside the sols its waypoints
 * cover, there is no stretch and `reason` says why (the measured fields are then left out).
 */
export type TraverseWindow =
  | { ok: true; start: number; end: number; first: number; last: number }
  | { ok: false; reason: string; first?: number; last?: number }

/** Rows [lo, hi) of one rover in a table ordered by rover code (memoised per snapshot). */
export function roverRows(rover: Uint8Array, length: number, code: number): [number, number] {
  const starts = roverRanges(rover, length)
  return [starts[code]!, starts[code + 1]!]
}

export function traverseWindow(t: TraverseColumns, code: number, solMin: number | undefined, solMax: number | undefined): TraverseWindow {
  const [first, end] = roverRows(t.rover, t.length, code)
  const name = ROVERS[code]!.name
  if (first === end) return { ok: false, reason: `The index holds no waypoint table for ${name}: no source in the data gives its positions, so distance and elevation cannot be measured.` }
  const last = end - 1
  const lo = solMin === undefined ? first : lowerBound(t.sol, first, end, solMin)
  const hi = solMax === undefined ? end : lowerBound(t.sol, first, end, solMax + 1)
  if (hi === first) return { ok: false, reason: `${name}'s waypoints start at sol ${t.sol[first]}: none was reached on or before sol ${solMax}.`, first, last }
  // past the last point reached, but the table says the rover still stood there: it did not move
  if (lo === end && !(t.last_sol[last]! >= solMin!)) return { ok: false, reason: `${name}'s waypoints end at sol ${t.sol[last]}: none was reached on or after sol ${solMin}.`, first, last }
  return { ok: true, start: lo > first ? lo - 1 : first, end: hi - 1, first, last }
}
