import { nthElement } from '../page/nth-element'

/**
 * Group shares of a total as percentages to 4 decimals by the largest-remainder method
 * (decisions.md, Clarifications: Percentages): each group gets the floor of its exact share in
 * units of 0.0001 %, the units left over go to the largest remainders (ties to the earlier group),
 * so the groups sum to exactly 100; then a non-empty group that rounded to 0 gets 0.0001, taken
 * from the largest group. Rounding to 0.1 instead summed to 63.8 over thousands of sols and showed
 * 0 for groups of hundreds of photos.
 */
export const PERCENT_UNITS = 1_000_000 // 100 % in units of 0.0001 %

/** Units of 0.0001 % per group (counts in output order; total = their sum). */
export function percentageUnits(counts: ArrayLike<number>): Int32Array {
  const n = counts.length
  const units = new Int32Array(n)
  let total = 0
  for (let i = 0; i < n; i++) total += counts[i]!
  if (total === 0) return units
  const rem = new Float64Array(n)
  let given = 0
  for (let i = 0; i < n; i++) {
    const exact = (counts[i]! * PERCENT_UNITS) / total
    const f = Math.floor(exact)
    units[i] = f
    rem[i] = exact - f
    given += f
  }
  const left = PERCENT_UNITS - given
  if (left >= n) for (let i = 0; i < n; i++) units[i]!++
  else if (left > 0) {
    // The `left` largest remainders, ties to the earlier group: every remainder above the
    // left-th largest gets a unit, then the earliest groups equal to it take the rest. A
    // selection finds that remainder in linear time (sorting the indices by remainder cost ~1 ms
    // for the ~5,000 sol groups of the synthetic catalogue, a numeric sort of them ~0.2 ms).
    const cut = kthSmallest(rem.slice(), n - left)
    let rest = left
    for (let i = 0; i < n; i++) {
      if (rem[i]! > cut) {
        units[i]!++
        rest--
      }
    }
    for (let i = 0; i < n && rest > 0; i++) {
      if (rem[i] === cut) {
        units[i]!++
        rest--
      }
    }
  }
  let largest = 0
  for (let i = 1; i < n; i++) if (units[i]! > units[largest]!) largest = i
  for (let i = 0; i < n; i++) {
    if (counts[i]! > 0 && units[i] === 0) {
      units[i] = 1
      units[largest]!--
    }
  }
  return units
}

/** The k-th smallest value of `a` (0-based; reorders `a`). */
function kthSmallest(a: Float64Array, k: number): number {
  nthElement(a, 0, a.length - 1, k)
  return a[k]!
}

/** "12.3456", "12.5", "100", "0.0001": units of 0.0001 % as a JSON number without trailing zeros. */
export function formatPercentUnits(u: number): string {
  const ip = Math.floor(u / 10_000)
  const f = u - ip * 10_000
  if (f === 0) return String(ip)
  return `${ip}.${String(f).padStart(4, '0').replace(/0+$/, '')}`
}
