import type { Store } from '../../store/store'
import { perSnapshot } from '../../store/per-snapshot'
import { dayText } from '../bytes/day-text'
import { percentageUnits } from './percentages'
import type { StatsTally } from './tally-loops'

const asciiBytes = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0))
const NO_SOL_KEY = asciiBytes('{"key":"","count":')
const PERCENTAGE = asciiBytes(',"percentage":')
const CLOSE = asciiBytes('}')

/**
 * The sol groups, ascending by sol (= ascending dense rank), and how many. Thousands of groups
 * (some 370 kB for every sol of the synthetic catalogue): written as bytes into one buffer from
 * key and date bytes made once, decoded once. The writers are plain functions taking and
 * returning the write position (the same writes through closures sharing the position measured
 * about 1.5 times as slow; a template string per group, joined, about twice as slow).
 */
let solBuf = new Uint8Array(1 << 16)
export function solGroupsJson(store: Store, t: StatsTally): { json: string; count: number } {
  const { solCounts, solFirstDay } = t
  const d = store.paths.meta.distinct.sol
  // Only the ranks a sol bound left can hold counts (all of them without one).
  const from = t.solRankFrom
  const to = Math.min(t.solRankTo, d)
  const keys = solKeyBytes(store)
  // A group is at most key (< 40) + count and percentage (< 40) + date (< 40) bytes.
  if (solBuf.length < 128 * (d + 1)) solBuf = new Uint8Array(128 * (d + 1))
  const buf = solBuf
  // Units of 0.0001 % per non-empty group, in output order (largest remainder over all groups).
  const nonEmpty: number[] = []
  for (let k = from; k < to; k++) if (solCounts[k] > 0) nonEmpty.push(solCounts[k])
  if (solCounts[d] > 0) nonEmpty.push(solCounts[d])
  const units = percentageUnits(nonEmpty)
  let p = 0
  let count = 0
  for (let k = from; k < to; k++) {
    const n = solCounts[k]
    if (n === 0) continue
    if (count > 0) buf[p++] = 44
    p = writeGroup(buf, p, keys[k], n, units[count++], solFirstDay[k])
  }
  // Photos without a sol (none in practice) keep the sum equal to total_photos.
  if (solCounts[d] > 0) {
    if (count > 0) buf[p++] = 44
    p = writeGroup(buf, p, NO_SOL_KEY, solCounts[d], units[count++], Infinity)
  }
  return { json: count > 0 ? Buffer.from(buf.buffer, buf.byteOffset, p).toString('latin1') : '', count }
}

/** `<key>n,"percentage":u[,"earth_date":"day"]}` at p; returns the position after it. */
function writeGroup(buf: Uint8Array, p: number, key: Uint8Array, n: number, u: number, day: number): number {
  p = putBytes(buf, p, key)
  p = putUint(buf, p, n)
  p = putBytes(buf, p, PERCENTAGE)
  // percentage to 4 decimals as formatPercentUnits writes it (no trailing zeros); u < 10^6.
  const ip = (u / 10_000) | 0
  p = putUint(buf, p, ip)
  const f = u - ip * 10_000
  if (f !== 0) {
    buf[p++] = 46
    const d1 = (f / 1000) | 0
    const d2 = ((f / 100) | 0) % 10
    const d3 = ((f / 10) | 0) % 10
    const d4 = f % 10
    buf[p++] = 48 + d1
    if (d2 + d3 + d4 !== 0) {
      buf[p++] = 48 + d2
      if (d3 + d4 !== 0) {
        buf[p++] = 48 + d3
        if (d4 !== 0) buf[p++] = 48 + d4
      }
    }
  }
  return putBytes(buf, p, day !== Infinity ? dateTail(day) : CLOSE)
}

function putBytes(buf: Uint8Array, p: number, b: Uint8Array): number {
  for (let i = 0; i < b.length; i++) buf[p++] = b[i]
  return p
}

/** Decimal digits of a non-negative integer below 2^31 (integer division by `| 0`). */
function putUint(buf: Uint8Array, p: number, n: number): number {
  const end = p + (n < 10 ? 1 : n < 100 ? 2 : n < 1000 ? 3 : n < 10_000 ? 4 : n < 100_000 ? 5 : n < 1_000_000 ? 6 : String(n).length)
  let at = end
  do {
    const q = (n / 10) | 0
    buf[--at] = 48 + (n - q * 10)
    n = q
  } while (n > 0)
  return end
}

/** `,"earth_date":"YYYY-MM-DD"}` of a day number as bytes, memoised by day (an array read: days since 1970 are small). */
const dayMemo: Array<Uint8Array | undefined> = []
function dateTail(day: number): Uint8Array {
  if (!(day >= 0 && day < 200_000)) return asciiBytes(`,"earth_date":"${dayText(day)}"}`)
  let b = dayMemo[day]
  if (!b) {
    b = asciiBytes(`,"earth_date":"${dayText(day)}"}`)
    dayMemo[day] = b
  }
  return b
}

/** `{"key":"<sol>","count":` per sol rank, as bytes, once per store snapshot. */
const solKeyBytes = perSnapshot((store: Store): Uint8Array[] => {
  const keys: Uint8Array[] = []
  for (let k = 0; k < store.paths.meta.distinct.sol; k++) keys.push(asciiBytes('{"key":"' + store.paths.solOfRank(k) + '","count":'))
  return keys
})
