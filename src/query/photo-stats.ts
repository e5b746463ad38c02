import { ROVER_SLUGS } from '../catalog/rovers'
import type { ParamError } from '../http/problems'
import type { Store } from '../store/store'
import { TIMESTAMP_SLOT } from './envelope'
import { link } from '../http/links'
import { echo, rawParam } from './param-parsers'
import { dayText } from './day-text'
import { GROUP_BY_VALUES, parsePhotoQuery, type GroupBy } from './photo-params'
import { scanMatches } from './run-query'

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
 * percentage = count / total_photos * 100 to one decimal. period = earliest and latest
 * earth_date of the matched photos; `{}` when nothing matched.
 */
export function photoStats(store: Store, params: URLSearchParams, base: string): string {
  const errors: ParamError[] = []
  const groupBy = parseGroupBy(rawParam(params, 'group_by'), errors)
  const q = parsePhotoQuery(params, store, errors)
  const p = store.photos
  const solRank = store.paths.rank.sol
  const d = store.paths.meta.distinct.sol
  const span = d + 1
  let len = 0
  const period = new Float64Array([Infinity, -Infinity])
  // Counts by camera dictionary code; by rover with the (rover, sol rank) pairs seen; by sol rank.
  const byCode = new Uint32Array(p.camera.dict.length + 1)
  const roverCounts = new Uint32Array(4)
  const roverSolSeen = groupBy === 'rover' ? new Uint8Array(4 * span) : new Uint8Array(0)
  const solCounts = groupBy === 'sol' ? new Uint32Array(span) : new Uint32Array(0)
  const solFirstDay = groupBy === 'sol' ? new Float64Array(span).fill(Infinity) : new Float64Array(0)
  scanMatches(store, q.filters, {
    rows(rows, n) {
      len += n
      if (groupBy === 'camera') countCodes(p.camera.codes, p.earth_date, rows, n, byCode, period)
      else if (groupBy === 'rover') countRoverSols(p.rover, solRank, span, p.earth_date, rows, n, roverCounts, roverSolSeen, period)
      else countSols(solRank, p.earth_date, rows, n, solCounts, solFirstDay, period)
    },
    range(from, to) {
      len += to - from
      if (groupBy === 'camera') countCodesRange(p.camera.codes, p.earth_date, from, to, byCode, period)
      else if (groupBy === 'rover') countRoverSolsRange(p.rover, solRank, span, p.earth_date, from, to, roverCounts, roverSolSeen, period)
      else countSolsRange(solRank, p.earth_date, from, to, solCounts, solFirstDay, period)
    },
  })
  const [minDay, maxDay] = period

  const groups: string[] = []
  const pct = (count: number) => Math.round((count / len) * 1000) / 10
  if (groupBy === 'camera') {
    const byName = new Map<string, number>()
    p.camera.dict.forEach((name, code) => { if (byCode[code] > 0) byName.set(name, (byName.get(name) ?? 0) + byCode[code]) })
    const sorted = [...byName].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    for (const [name, count] of sorted) groups.push(`{"key":${JSON.stringify(name)},"count":${count},"percentage":${pct(count)}}`)
  } else if (groupBy === 'rover') {
    const sols = new Float64Array(4)
    for (let c = 0; c < 4; c++) for (let k = 0; k < d; k++) sols[c] += roverSolSeen[c * span + k]
    const order = [0, 1, 2, 3].filter((c) => roverCounts[c] > 0).sort((a, b) => roverCounts[b] - roverCounts[a] || a - b)
    for (const c of order) {
      const avg = sols[c] > 0 ? Math.round((roverCounts[c] / sols[c]) * 10) / 10 : 0
      groups.push(`{"key":"${ROVER_SLUGS[c]}","count":${roverCounts[c]},"percentage":${pct(roverCounts[c])},"avg_per_sol":${avg}}`)
    }
  } else {
    // Ascending dense rank = ascending sol.
    for (let k = 0; k < d; k++) {
      const n = solCounts[k]
      if (n > 0) {
        const date = Number.isFinite(solFirstDay[k]) ? `,"earth_date":"${dayText(solFirstDay[k])}"` : ''
        groups.push(`{"key":"${store.paths.solOfRank(k)}","count":${n},"percentage":${pct(n)}${date}}`)
      }
    }
    // Photos without a sol (none in practice) keep the sum equal to total_photos.
    if (solCounts[d] > 0) groups.push(`{"key":"","count":${solCounts[d]},"percentage":${pct(solCounts[d])}}`)
  }

  const periodJson = len > 0 && Number.isFinite(minDay) ? `{"from":"${dayText(minDay)}","to":"${dayText(maxDay)}"}` : '{}'
  const data = `{"total_photos":${len},"period":${periodJson},"groups":[${groups.join(',')}]}`
  const meta = `{"group_by":"${groupBy}","returned_count":${groups.length},"timestamp":${TIMESTAMP_SLOT}}`
  return `{"data":${data},"meta":${meta},"links":{"self":${JSON.stringify(link(base, STATS_PATH, params))}}}`
}

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
