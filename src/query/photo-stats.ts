import { formatPercentUnits, percentageUnits } from './percentages'
import { ROVER_SLUGS } from '../catalog/rovers'
import type { ParamError } from '../http/problems'
import type { Store } from '../store/store'
import { TIMESTAMP_SLOT } from './envelope'
import { link } from '../http/links'
import { echo, rawParam } from './param-parsers'
import { dayText } from './day-text'
import { GROUP_BY_VALUES, parsePhotoQuery, type GroupBy } from './photo-params'
import { scanMatches } from './run-query'
import { cubeAnswers, tallyCube, type StatsTally } from './stats-cube'
import type { PhotoFilters } from './filters'
import { perSnapshot } from '../store/per-snapshot'

export const STATS_PATH = '/api/v2/photos/stats'

/**
 * `GET /api/v2/photos/stats` (interface "Photo statistics"; decisions.md, Other endpoints):
 * every photo filter applies (the same plan and scan as the list); `group_by` is camera
 * (default), rover or sol. Groups:
 *  - camera: keyed by camera name (same-named cameras of different rovers are one group),
 *    ordered by count descending, then key;
 *  - rover: keyed by slug, with avg_per_sol = count / distinct sols with photos in the group
 *    (one decimal), ordered by count descending, then key;
 *  - sol: keyed by the sol number (as a string), with earth_date = the earliest Earth date of
 *    the group's photos (a sol spans two UTC dates, and rovers share sol numbers), ordered by
 *    sol ascending. All groups are returned.
 * percentage = count / total_photos * 100 to 4 decimals by largest remainder (percentages.ts). period = earliest and latest
 * earth_date of the matched photos; `{}` when nothing matched.
 *
 * The counts come from the stats cube (stats-cube.ts) when the filters are only rovers,
 * cameras, sol and earth_date, else from a scan of the matching rows; `rowPathOnly` forces the
 * scan (tests compare both).
 */
export function photoStats(store: Store, params: URLSearchParams, base: string, rowPathOnly = false): string {
  const errors: ParamError[] = []
  const groupBy = parseGroupBy(rawParam(params, 'group_by'), errors)
  const q = parsePhotoQuery(params, store, errors)
  const p = store.photos
  const d = store.paths.meta.distinct.sol
  const span = d + 1
  // Counts by camera dictionary code; by rover with the (rover, sol rank) pairs seen; by sol rank.
  const t: StatsTally = {
    total: 0,
    period: new Float64Array([Infinity, -Infinity]),
    byCode: new Uint32Array(p.camera.dict.length + 1),
    roverCounts: new Uint32Array(4),
    roverSolSeen: groupBy === 'rover' ? new Uint8Array(4 * span) : new Uint8Array(0),
    solCounts: groupBy === 'sol' ? new Uint32Array(span) : new Uint32Array(0),
    solFirstDay: groupBy === 'sol' ? new Float64Array(span).fill(Infinity) : new Float64Array(0),
  }
  if (cubeAnswers(q.filters) && !rowPathOnly) tallyCube(store, q.filters, t, groupBy)
  else tallyRows(store, q.filters, t, groupBy)
  const len = t.total
  const { byCode, roverCounts, roverSolSeen, solCounts, solFirstDay, period } = t
  const [minDay, maxDay] = period

  const groups: string[] = []
  let groupsJson: string | undefined
  let groupCount = 0
  if (groupBy === 'camera') {
    const byName = new Map<string, number>()
    p.camera.dict.forEach((name, code) => { if (byCode[code] > 0) byName.set(name, (byName.get(name) ?? 0) + byCode[code]) })
    const sorted = [...byName].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    const units = percentageUnits(sorted.map((g) => g[1]))
    sorted.forEach(([name, count], i) => groups.push(`{"key":${JSON.stringify(name)},"count":${count},"percentage":${formatPercentUnits(units[i]!)}}`))
  } else if (groupBy === 'rover') {
    const sols = new Float64Array(4)
    for (let c = 0; c < 4; c++) for (let k = 0; k < d; k++) sols[c] += roverSolSeen[c * span + k]
    const order = [0, 1, 2, 3].filter((c) => roverCounts[c] > 0).sort((a, b) => roverCounts[b] - roverCounts[a] || a - b)
    const units = percentageUnits(order.map((c) => roverCounts[c]))
    order.forEach((c, i) => {
      const avg = sols[c] > 0 ? Math.round((roverCounts[c] / sols[c]) * 10) / 10 : 0
      groups.push(`{"key":"${ROVER_SLUGS[c]}","count":${roverCounts[c]},"percentage":${formatPercentUnits(units[i]!)},"avg_per_sol":${avg}}`)
    })
  } else {
    const sol = solGroupsJson(store, solCounts, solFirstDay)
    groupsJson = sol.json
    groupCount = sol.count
  }
  if (groupsJson === undefined) {
    groupsJson = groups.join(',')
    groupCount = groups.length
  }

  const periodJson = len > 0 && Number.isFinite(minDay) ? `{"from":"${dayText(minDay)}","to":"${dayText(maxDay)}"}` : '{}'
  const data = `{"total_photos":${len},"period":${periodJson},"groups":[${groupsJson}]}`
  const meta = `{"group_by":"${groupBy}","returned_count":${groupCount},"timestamp":${TIMESTAMP_SLOT}}`
  return `{"data":${data},"meta":${meta},"links":{"self":${JSON.stringify(link(base, STATS_PATH, params))}}}`
}

/** Counts the matching rows (any filters): the plan and scan of the list. */
function tallyRows(store: Store, f: PhotoFilters, t: StatsTally, groupBy: GroupBy): void {
  const p = store.photos
  const solRank = store.paths.rank.sol
  const span = store.paths.meta.distinct.sol + 1
  const { byCode, roverCounts, roverSolSeen, solCounts, solFirstDay, period } = t
  scanMatches(store, f, {
    rows(rows, n) {
      t.total += n
      if (groupBy === 'camera') countCodes(p.camera.codes, p.earth_date, rows, n, byCode, period)
      else if (groupBy === 'rover') countRoverSols(p.rover, solRank, span, p.earth_date, rows, n, roverCounts, roverSolSeen, period)
      else countSols(solRank, p.earth_date, rows, n, solCounts, solFirstDay, period)
    },
    range(from, to) {
      t.total += to - from
      if (groupBy === 'camera') countCodesRange(p.camera.codes, p.earth_date, from, to, byCode, period)
      else if (groupBy === 'rover') countRoverSolsRange(p.rover, solRank, span, p.earth_date, from, to, roverCounts, roverSolSeen, period)
      else countSolsRange(solRank, p.earth_date, from, to, solCounts, solFirstDay, period)
    },
  })
}

const asciiBytes = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0))
const NO_SOL_KEY = asciiBytes('{"key":"","count":')
const PERCENTAGE = asciiBytes(',"percentage":')
const EARTH_DATE = asciiBytes(',"earth_date":"')

/**
 * The sol groups, ascending by sol (= ascending dense rank), and how many. Thousands of groups
 * (some 370 kB for every sol of the synthetic catalogue): written as bytes into one buffer from
 * key and date bytes made once, decoded once; every write below is a local-variable loop (the
 * former template string per group, joined, measured about twice as slow).
 */
let solBuf = new Uint8Array(1 << 16)
function solGroupsJson(store: Store, solCounts: Uint32Array, solFirstDay: Float64Array): { json: string; count: number } {
  const d = store.paths.meta.distinct.sol
  const keys = solKeyBytes(store)
  // A group is at most key (< 40) + count and percentage (< 40) + date (< 40) bytes.
  if (solBuf.length < 128 * (d + 1)) solBuf = new Uint8Array(128 * (d + 1))
  const buf = solBuf
  let p = 0
  let count = 0
  const put = (b: Uint8Array) => {
    for (let i = 0; i < b.length; i++) buf[p++] = b[i]
  }
  const uint = (n: number) => {
    let digits = 1
    for (let x = n; x >= 10; x = Math.floor(x / 10)) digits++
    p += digits
    let at = p
    do {
      const q = Math.floor(n / 10)
      buf[--at] = 48 + (n - q * 10)
      n = q
    } while (n > 0)
  }
  // Units of 0.0001 % per non-empty group, in output order (largest remainder over all groups).
  const nonEmpty: number[] = []
  for (let k = 0; k <= d; k++) if (solCounts[k] > 0) nonEmpty.push(solCounts[k])
  const units = percentageUnits(nonEmpty)
  const group = (key: Uint8Array, n: number, day: number) => {
    const u = units[count]!
    if (count++ > 0) buf[p++] = 44
    put(key)
    uint(n)
    put(PERCENTAGE)
    // percentage to 4 decimals as formatPercentUnits writes it (no trailing zeros).
    const ip = Math.floor(u / 10_000)
    uint(ip)
    let f = u - ip * 10_000
    if (f !== 0) {
      buf[p++] = 46
      let div = 1000
      while (f !== 0) {
        const digit = Math.floor(f / div)
        buf[p++] = 48 + digit
        f -= digit * div
        div /= 10
      }
    }
    if (day !== Infinity) {
      put(EARTH_DATE)
      put(dayBytes(day))
      buf[p++] = 34
    }
    buf[p++] = 125
  }
  for (let k = 0; k < d; k++) if (solCounts[k] > 0) group(keys[k], solCounts[k], solFirstDay[k])
  // Photos without a sol (none in practice) keep the sum equal to total_photos.
  if (solCounts[d] > 0) group(NO_SOL_KEY, solCounts[d], Infinity)
  return { json: count > 0 ? Buffer.from(buf.buffer, buf.byteOffset, p).toString('latin1') : '', count }
}

/** YYYY-MM-DD of a day number as bytes, memoised by day (an array read: days since 1970 are small). */
const dayMemo: Array<Uint8Array | undefined> = []
function dayBytes(day: number): Uint8Array {
  if (!(day >= 0 && day < 200_000)) return asciiBytes(dayText(day))
  let b = dayMemo[day]
  if (!b) {
    b = asciiBytes(dayText(day))
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

function parseGroupBy(raw: string | undefined, errors: ParamError[]): GroupBy {
  if (raw === undefined) return 'camera'
  const v = raw.toLowerCase()
  if ((GROUP_BY_VALUES as readonly string[]).includes(v)) return v as GroupBy
  errors.push({ parameter: 'group_by', message: `must be one of ${GROUP_BY_VALUES.join(', ')}, got "${echo(raw)}"` })
  return 'camera'
}


// ---- aggregation loops: plain functions of typed arrays (so the JIT keeps them tight), each
// tracking the period (earliest and latest earth_date) in the same pass. Each comes twice: over
// a row list, and over a stretch of rows in table order (the whole table when nothing filters).

// Each counter comes in two forms on purpose: over a selection of rows and over a contiguous row
// range (the whole table or one rover/sol range), so the full-table stats stream the columns
// without reading a selection array. The loops stay separate to stay monomorphic and branch-light.
function countCodes(codes: ArrayLike<number>, days: Int32Array, rows: Int32Array, n: number, out: Uint32Array, period: Float64Array): void {
  let lo = period[0]
  let hi = period[1]
  for (let i = 0; i < n; i++) {
    const r = rows[i]
    out[codes[r]]++
    const v = days[r]
    if (v >= 0) {
      if (v < lo) lo = v
      if (v > hi) hi = v
    }
  }
  period[0] = lo
  period[1] = hi
}

function countCodesRange(codes: ArrayLike<number>, days: Int32Array, from: number, to: number, out: Uint32Array, period: Float64Array): void {
  let lo = period[0]
  let hi = period[1]
  for (let r = from; r < to; r++) {
    out[codes[r]]++
    const v = days[r]
    if (v >= 0) {
      if (v < lo) lo = v
      if (v > hi) hi = v
    }
  }
  period[0] = lo
  period[1] = hi
}

function countRoverSols(rover: Uint8Array, solRank: ArrayLike<number>, span: number, days: Int32Array, rows: Int32Array, n: number, counts: Uint32Array, seen: Uint8Array, period: Float64Array): void {
  let lo = period[0]
  let hi = period[1]
  for (let i = 0; i < n; i++) {
    const r = rows[i]
    const c = rover[r]
    counts[c]++
    seen[c * span + solRank[r]] = 1
    const v = days[r]
    if (v >= 0) {
      if (v < lo) lo = v
      if (v > hi) hi = v
    }
  }
  period[0] = lo
  period[1] = hi
}

function countRoverSolsRange(rover: Uint8Array, solRank: ArrayLike<number>, span: number, days: Int32Array, from: number, to: number, counts: Uint32Array, seen: Uint8Array, period: Float64Array): void {
  let lo = period[0]
  let hi = period[1]
  for (let r = from; r < to; r++) {
    const c = rover[r]
    counts[c]++
    seen[c * span + solRank[r]] = 1
    const v = days[r]
    if (v >= 0) {
      if (v < lo) lo = v
      if (v > hi) hi = v
    }
  }
  period[0] = lo
  period[1] = hi
}

function countSols(solRank: ArrayLike<number>, days: Int32Array, rows: Int32Array, n: number, counts: Uint32Array, firstDay: Float64Array, period: Float64Array): void {
  let hi = period[1]
  for (let i = 0; i < n; i++) {
    const r = rows[i]
    const k = solRank[r]
    counts[k]++
    const v = days[r]
    if (v >= 0) {
      if (v < firstDay[k]) firstDay[k] = v
      if (v > hi) hi = v
    }
  }
  period[1] = hi
  lowestFirstDay(firstDay, period)
}

function countSolsRange(solRank: ArrayLike<number>, days: Int32Array, from: number, to: number, counts: Uint32Array, firstDay: Float64Array, period: Float64Array): void {
  let hi = period[1]
  for (let r = from; r < to; r++) {
    const k = solRank[r]
    counts[k]++
    const v = days[r]
    if (v >= 0) {
      if (v < firstDay[k]) firstDay[k] = v
      if (v > hi) hi = v
    }
  }
  period[1] = hi
  lowestFirstDay(firstDay, period)
}

/** The earliest day overall is the earliest of the groups' first days. */
function lowestFirstDay(firstDay: Float64Array, period: Float64Array): void {
  let lo = period[0]
  for (let k = 0; k < firstDay.length; k++) if (firstDay[k] < lo) lo = firstDay[k]
  period[0] = lo
}
