import type { Store } from '../store/store'
import { ROVERS } from '../catalog/rovers'
import { validationError, type ParamError } from '../http/problems'
import type { PhotoFilters } from '../query/scan/filters'
import { echo, INT32_MAX, parseDay } from '../query/params/param-parsers'
import { roverStats } from '../query/stats/rover-stats'
import { v1RoverDays } from '../query/stats/rover-manifest'
import { scanMatches } from '../query/page/run-query'
import { V1_ROVERS } from './v1-catalog'
import { v1Rover } from './v1-errors'
import { v1CameraIds, v1PhotoJson } from './v1-photo-json'

/**
 * `GET …/v1/rovers/{name}/photos` and `…/latest_photos` (`…/latest`): a day's photos of one
 * rover in v1's shape and order (camera id, then photo id), through the v2 engine's filters and
 * access paths (scanMatches: rover + sol or earth_date + camera), so v1 and v2 find the same rows.
 *
 * - `sol` (integer ≥ 0) or `earth_date` (YYYY-M-D, zero padding optional, as v1 took it; the sols v1
 *   dates that day, src/query/stats/rover-manifest.ts v1RoverDays): one is
 *   required on photos (v1 answered nothing without one); when both come, `sol` wins, as in v1.
 *   latest_photos takes neither: the day is the rover's highest sol in the catalogue.
 * - `camera`: one of the rover's camera names, any case; another name is a 400 naming them.
 * - `page`: 25 photos a page, from 1; no (or an empty) `page`: every photo of the day, as v1 did (decisions.md,
 *   v1 layer: the largest real day has 3,702), except above MAX_UNPAGED (400 asking for `page`).
 * A page past the end is an empty list, as in v1.
 */
export const V1_PER_PAGE = 25
export const MAX_UNPAGED = 10_000
const MAX_PAGE = 1_000_000
const ID_SPAN = 2 ** 32
const ID_OFFSET = 2 ** 31

/** The parsed request: rover code, filters of its day, and the page (undefined: the whole day). Throws the 400 naming each bad parameter. */
function v1PhotoRequest(store: Store, name: string, params: URLSearchParams, latest: boolean): { code: number; filters: PhotoFilters; page: number | undefined; keepRow: ((row: number) => boolean) | undefined } {
  const code = v1Rover(name)
  const errors: ParamError[] = []
  const filters: PhotoFilters = { rovers: [code] }
  let keepRow: ((row: number) => boolean) | undefined
  if (latest) {
    const maxSol = roverStats(store).rovers[code]!.maxSol
    filters.sol = maxSol < 0 ? { lo: 1, hi: 0 } : { lo: maxSol, hi: maxSol }
  } else {
    const sol = params.get('sol')
    const date = params.get('earth_date')
    if (sol !== null && sol.trim() !== '') {
      const s = sol.trim()
      const n = /^\d{1,10}$/.test(s) ? Number(s) : NaN
      if (!(n <= INT32_MAX)) errors.push({ parameter: 'sol', message: `must be an integer from 0 to ${INT32_MAX}, got "${echo(sol)}"` })
      else filters.sol = { lo: n, hi: n }
    } else if (date !== null && date.trim() !== '') {
      const day = v1Day(date.trim())
      if (day === undefined) errors.push({ parameter: 'earth_date', message: `must be a calendar date YYYY-MM-DD, got "${echo(date)}"` })
      else {
        // The sols v1 dates that day (one date per sol, as v1 had: NASA's, else the sol's
        // earliest), so a sol whose photos span two UTC dates is answered whole on its v1 date.
        const v1 = v1RoverDays(store)[code]!
        const sols = v1.solsOnDay.get(day) ?? []
        filters.sol = sols.length === 0 ? { lo: 1, hi: 0 } : { lo: sols[0]!, hi: sols[sols.length - 1]! }
        if (sols.length > 1 && sols[sols.length - 1]! - sols[0]! + 1 !== sols.length) keepRow = (row) => v1.dayOfSol[store.photos.sol[row]!] === day
      }
    } else {
      errors.push({ parameter: 'sol', message: 'sol or earth_date is required (v1 answers one day of photos)' })
    }
  }
  const camera = params.get('camera')
  if (camera !== null && camera.trim() !== '') {
    const upper = camera.trim().toUpperCase()
    const known = V1_ROVERS[code]!.cameras.map((c) => c.name)
    if (known.includes(upper)) filters.cameras = [upper]
    else errors.push({ parameter: 'camera', message: `unknown camera "${echo(camera)}" for ${ROVERS[code]!.name}; cameras: ${known.join(', ')}` })
  }
  const rawPage = params.get('page')
  let page: number | undefined
  if (rawPage !== null && rawPage.trim() !== '') {
    const t = rawPage.trim()
    page = /^\d{1,7}$/.test(t) ? Number(t) : NaN
    if (!(page >= 1 && page <= MAX_PAGE)) errors.push({ parameter: 'page', message: `must be an integer from 1 to ${MAX_PAGE}, got "${echo(rawPage)}"` })
  }
  if (errors.length) throw validationError(errors)
  return { code, filters, page, keepRow }
}

/**
 * Photos a request without `page` answers (the whole day), or 0 for a paged or invalid request
 * (the answer itself then says what is wrong). Such an answer is charged like an export of the
 * same rows (plugins/v1, decisions.md, Export charging), so a whole day costs what it would cost
 * through /api/v2/photos/export. Counted per request, answers cached or not: one scan of the day
 * through its access path, with no JSON built.
 */
export function v1UnpagedCount(store: Store, name: string, params: URLSearchParams, latest: boolean): number {
  const rawPage = params.get('page')
  if (rawPage !== null && rawPage.trim() !== '') return 0
  let q: ReturnType<typeof v1PhotoRequest>
  try {
    q = v1PhotoRequest(store, name, params, latest)
  } catch {
    return 0
  }
  let n = 0
  const keep = q.keepRow
  scanMatches(store, q.filters, {
    rows(sel, len) {
      if (keep === undefined) n += len
      else for (let i = 0; i < len; i++) if (keep(sel[i]!)) n++
    },
    range(from, to) {
      if (keep === undefined) n += to - from
      else for (let r = from; r < to; r++) if (keep(r)) n++
    },
  })
  return n > MAX_UNPAGED ? 0 : n
}

export function v1Photos(store: Store, name: string, params: URLSearchParams, latest: boolean): string {
  const { code, filters, page, keepRow } = v1PhotoRequest(store, name, params, latest)
  const keys = dayKeys(store, filters, code, keepRow)
  if (page === undefined && keys.length > MAX_UNPAGED) {
    throw validationError([{ parameter: 'page', message: `this day has ${keys.length} photos, more than ${MAX_UNPAGED} in one answer: ask for them ${V1_PER_PAGE} at a time with page=1, 2, …` }])
  }
  const from = page === undefined ? 0 : (page - 1) * V1_PER_PAGE
  const to = page === undefined ? keys.length : from + V1_PER_PAGE
  const ranked = rankedSlice(keys, from, to)
  const parts: string[] = []
  for (const k of ranked) parts.push(v1PhotoJson(store, store.paths.rowOfId((k % ID_SPAN) - ID_OFFSET)))
  return `{"${latest ? 'latest_photos' : 'photos'}":[${parts.join(',')}]}`
}

/**
 * The sort keys of the matching rows, in row order: v1 orders a day by camera id, then photo id,
 * so each match becomes one exact double, camera id * 2^32 + photo id + 2^31 (camera ids are
 * below 2^8, ids are int32). Typed-array sorts and compares need no comparator calls, and rows
 * come back from ids through the id access path, only for the page asked (ids are unique).
 */
function dayKeys(store: Store, filters: PhotoFilters, code: number, keep?: (row: number) => boolean): Float64Array {
  const camIds = v1CameraIds(store)[code]!
  const { id, camera } = store.photos
  let keys = new Float64Array(256)
  let n = 0
  const push = (r: number) => {
    if (keep && !keep(r)) return
    if (n === keys.length) {
      const grown = new Float64Array(n * 2)
      grown.set(keys)
      keys = grown
    }
    keys[n++] = camIds[camera.codes[r]!]! * ID_SPAN + id[r]! + ID_OFFSET
  }
  scanMatches(store, filters, {
    rows(sel, len) {
      for (let i = 0; i < len; i++) push(sel[i]!)
    },
    range(from, to) {
      for (let r = from; r < to; r++) push(r)
    },
  })
  return keys.subarray(0, n)
}

/**
 * The keys ranked [from, to) in ascending order. A page near the front of a large day keeps the
 * `to` smallest keys in a bounded max-heap (one pass, O(n log to)) instead of sorting the whole
 * day: page 1 of Curiosity's sol 0 then costs a scan of 3,702 keys, not their sort.
 */
function rankedSlice(keys: Float64Array, from: number, to: number): Float64Array {
  const n = keys.length
  if (to >= n || to * 8 > n) return keys.sort().subarray(Math.min(from, n), Math.min(to, n))
  const heap = new Float64Array(to)
  heap.set(keys.subarray(0, to))
  for (let i = (to >> 1) - 1; i >= 0; i--) siftDown(heap, i, to)
  for (let i = to; i < n; i++) {
    const k = keys[i]!
    if (k < heap[0]!) {
      heap[0] = k
      siftDown(heap, 0, to)
    }
  }
  return heap.sort().subarray(from, to)
}

/** Max-heap sift-down of heap[i] within heap[0..size). */
function siftDown(heap: Float64Array, i: number, size: number): void {
  const v = heap[i]!
  for (;;) {
    let c = 2 * i + 1
    if (c >= size) break
    if (c + 1 < size && heap[c + 1]! > heap[c]!) c++
    if (heap[c]! <= v) break
    heap[i] = heap[c]!
    i = c
  }
  heap[i] = v
}

/** YYYY-M-D (month and day may lack their zero) as days since 1970-01-01, or undefined. */
export function v1Day(raw: string): number | undefined {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(raw)
  return m ? parseDay(`${m[1]}-${m[2]!.padStart(2, '0')}-${m[3]!.padStart(2, '0')}`) : undefined
}
