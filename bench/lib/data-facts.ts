import { takenSortColumn } from '../../src/query/order/sort-values'
import type { Store } from '../../src/store/store'
import { INT_ABSENT, type Utf8Column } from '../../src/store/schema'
import { ROVER_SLUGS } from '../../src/catalog/rovers'

/**
 * Values picked from the loaded index so every query shape asks for something the catalogue
 * has (a busy sol, a real site/drive, a nasa_id fragment), whatever index the bench runs on:
 * the 2M synthetic catalogue or the small real test index. Setup only: plain loops over the
 * typed arrays, nothing here is timed.
 */
export interface RoverPick {
  code: number
  slug: string
  /** Photos of the rover. */
  count: number
  /** Busiest sol of the rover after its first 100 (landing sols are atypical), and its earth date (YYYY-MM-DD). */
  sol: number
  earthDate: string
  /** Most frequent camera of the rover. */
  camera: string
  /** earthDate - 15 days .. earthDate + 15 days. */
  dateMin: string
  dateMax: string
}

export interface DataFacts {
  rows: number
  /** Rover with most photos (Curiosity preferred when it has any). */
  main: RoverPick
  /** Another rover (Perseverance preferred), or main again when the index has only one. */
  second: RoverPick
  /** Most photographed (site, drive) of the rover with most located photos. */
  place?: { slug: string; site: number; drive: number }
  /** Lower-cased alphanumeric fragment of a nasa_id from the middle of the table. */
  nasaFragment: string
  /** A camera name that several rovers share, for a cross-rover camera filter, and a day it was used. */
  sharedCamera: string
  sharedCameraDate: string
  /** Rover with locations, and a min_photos threshold keeping about half of them. */
  locations?: { code: number; slug: string; minPhotos: number }
  /** Rover with most panoramas and a sol window holding its middle half. */
  panoramas?: { code: number; slug: string; solMin: number; solMax: number }
  /** 100 ids spread over the table, in a scrambled order. */
  batchIds: number[]
  /** An id from the middle of the table. */
  midId: number
  /** Peer column names of the sortable columns that hold unknown values in this index. */
  nullable: Set<string>
  /**
   * The largest observation sequence, the position of the most photographed place, and a photo
   * taken there with a stereo partner and a sequence (else any photo taken there), for /related.
   */
  related?: { sequence?: string; lat?: number; lon?: number; photo?: number }
}

const dec = new TextDecoder()
export const utf8At = (c: Utf8Column, i: number) => dec.decode(c.data.subarray(c.offsets[i], c.offsets[i + 1]))
export const isoDay = (day: number) => new Date(day * 86_400_000).toISOString().slice(0, 10)

function argmax(counts: ArrayLike<number>): number {
  let best = -1
  for (let i = 0; i < counts.length; i++) if (counts[i] > 0 && (best < 0 || counts[i] > counts[best])) best = i
  return best
}

function pickRover(store: Store, code: number): RoverPick {
  const p = store.photos
  let maxSol = 0
  for (let i = 0; i < p.length; i++) if (p.rover[i] === code && p.sol[i] > maxSol) maxSol = p.sol[i]
  const perSol = new Int32Array(maxSol + 1)
  const perCamera = new Int32Array(p.camera.dict.length)
  let count = 0
  for (let i = 0; i < p.length; i++) {
    if (p.rover[i] !== code) continue
    count++
    if (p.sol[i] >= 0) perSol[p.sol[i]]++
    perCamera[p.camera.codes[i]]++
  }
  const sol = maxSol >= 200 ? 100 + argmax(perSol.subarray(100)) : Math.max(0, argmax(perSol))
  let day = 0
  for (let i = 0; i < p.length; i++) if (p.rover[i] === code && p.sol[i] === sol) { day = p.earth_date[i]; break }
  return {
    code,
    slug: ROVER_SLUGS[code],
    count,
    sol,
    earthDate: isoDay(day),
    camera: p.camera.dict[Math.max(0, argmax(perCamera))],
    dateMin: isoDay(day - 15),
    dateMax: isoDay(day + 15),
  }
}

export function dataFacts(store: Store): DataFacts {
  const p = store.photos
  const perRover = new Int32Array(ROVER_SLUGS.length)
  for (let i = 0; i < p.length; i++) perRover[p.rover[i]]++
  const has = (slug: string) => perRover[ROVER_SLUGS.indexOf(slug as never)] > 0
  const mainCode = has('curiosity') ? ROVER_SLUGS.indexOf('curiosity') : argmax(perRover)
  const secondCode = has('perseverance') && ROVER_SLUGS.indexOf('perseverance') !== mainCode
    ? ROVER_SLUGS.indexOf('perseverance')
    : argmax(Array.from(perRover, (n, c) => (c === mainCode ? 0 : n)))
  const main = pickRover(store, mainCode)
  const second = secondCode >= 0 ? pickRover(store, secondCode) : main

  // Most photographed (site, drive).
  const places = new Map<number, number>()
  let place: DataFacts['place']
  let bestPlace = 0
  for (let i = 0; i < p.length; i++) {
    if (p.site[i] === INT_ABSENT || p.drive[i] === INT_ABSENT) continue
    const key = (p.rover[i] * 100_000 + p.site[i]) * 1_000_000 + p.drive[i]
    const n = (places.get(key) ?? 0) + 1
    places.set(key, n)
    if (n > bestPlace) {
      bestPlace = n
      place = { slug: ROVER_SLUGS[p.rover[i]], site: p.site[i], drive: p.drive[i] }
    }
  }

  // A nasa_id fragment: up to 6 alphanumerics around the middle of a middle row's nasa_id.
  const mid = p.length >> 1
  const nasa = utf8At(p.nasa_id, mid).toLowerCase()
  const runs = nasa.match(/[a-z0-9]+/g) ?? [nasa]
  const longest = runs.reduce((a, b) => (b.length > a.length ? b : a), '')
  const nasaFragment = longest.slice(Math.max(0, (longest.length >> 1) - 3), (longest.length >> 1) + 3)

  // A camera name used by more than one rover in this index.
  const roversOfName = new Map<string, Set<number>>()
  for (let i = 0; i < p.length; i += Math.max(1, Math.floor(p.length / 50_000))) {
    const name = p.camera.dict[p.camera.codes[i]]
    if (!roversOfName.has(name)) roversOfName.set(name, new Set())
    roversOfName.get(name)!.add(p.rover[i])
  }
  let sharedCamera = main.camera
  let sharedBy = 0
  for (const [name, set] of roversOfName) if (set.size > sharedBy) { sharedBy = set.size; sharedCamera = name }
  let sharedCameraDate = main.earthDate
  for (let i = mid; i < p.length; i++)
    if (p.camera.dict[p.camera.codes[i]] === sharedCamera) { sharedCameraDate = isoDay(p.earth_date[i]); break }

  // Locations: the rover with most, and the median photo count as threshold.
  const loc = store.locations
  let locations: DataFacts['locations']
  if (loc.length > 0) {
    const perLocRover = new Int32Array(ROVER_SLUGS.length)
    for (let i = 0; i < loc.length; i++) perLocRover[loc.rover[i]]++
    const code = argmax(perLocRover)
    const counts: number[] = []
    for (let i = 0; i < loc.length; i++) if (loc.rover[i] === code) counts.push(loc.photo_count[i])
    counts.sort((a, b) => a - b)
    locations = { code, slug: ROVER_SLUGS[code], minPhotos: Math.max(1, counts[counts.length >> 1]) }
  }

  // Panoramas: rows are ordered by rover, sol, n, so a rover's sols are ascending.
  const pan = store.panoramas
  let panoramas: DataFacts['panoramas']
  if (pan.length > 0) {
    const perPanRover = new Int32Array(ROVER_SLUGS.length)
    for (let i = 0; i < pan.length; i++) perPanRover[pan.rover[i]]++
    const code = argmax(perPanRover)
    const sols: number[] = []
    for (let i = 0; i < pan.length; i++) if (pan.rover[i] === code) sols.push(pan.sol[i])
    panoramas = { code, slug: ROVER_SLUGS[code], solMin: sols[Math.floor(sols.length / 4)], solMax: sols[Math.floor((sols.length * 3) / 4)] }
  }

  // 100 ids spread evenly, then interleaved from both ends so the request order is not row order.
  const spread: number[] = []
  const n = Math.min(100, p.length)
  for (let k = 0; k < n; k++) spread.push(p.id[Math.floor(((k + 0.5) * p.length) / n)])
  const batchIds: number[] = []
  for (let a = 0, b = spread.length - 1; a <= b; a++, b--) {
    batchIds.push(spread[b])
    if (a !== b) batchIds.push(spread[a])
  }

  const nullable = new Set<string>()
  const absent: Array<[string, ArrayLike<number>, (v: number) => boolean]> = [
    ['date_taken_utc', p.date_taken_utc, Number.isNaN], ['taken_sort', takenSortColumn(p.date_taken_utc, p.earth_date, p.length), Number.isNaN], ['mars_time_ms', p.mars_time_ms, (v) => v < 0],
    ['sol', p.sol, (v) => v < 0], ['site', p.site, (v) => v < 0], ['drive', p.drive, (v) => v < 0],
    ['width', p.width, (v) => v < 0], ['height', p.height, (v) => v < 0],
    ['mast_az', p.mast_azimuth, Number.isNaN], ['mast_el', p.mast_elevation, Number.isNaN],
    ['sun_el', p.sun_elevation, Number.isNaN],
  ]
  for (const [name, col, isAbsent] of absent)
    for (let i = 0; i < p.length; i++) if (isAbsent(col[i])) { nullable.add(name); break }

  return { rows: p.length, main, second, place, nasaFragment, sharedCamera, sharedCameraDate, locations, panoramas, batchIds, midId: p.id[mid], nullable, related: relatedFacts(store) }
}

/** The largest sequence (photos per sequence code), the most photographed position and a photo taken there. */
function relatedFacts(store: Store): DataFacts['related'] {
  const p = store.photos
  const perSequence = new Int32Array(p.sequence.dict.length)
  // Positions are per (rover, site, drive) waypoint: count by the exact pair of doubles.
  const perPlace = new Map<number, Map<number, number>>()
  let place: { lat: number; lon: number } | undefined
  let placeCount = 0
  for (let i = 0; i < p.length; i++) {
    if (p.sequence.dict[p.sequence.codes[i]] !== '') perSequence[p.sequence.codes[i]]++
    if (Number.isNaN(p.lat[i])) continue
    let lons = perPlace.get(p.lat[i])
    if (!lons) perPlace.set(p.lat[i], (lons = new Map()))
    const n = (lons.get(p.lon[i]) ?? 0) + 1
    lons.set(p.lon[i], n)
    if (n > placeCount) { placeCount = n; place = { lat: p.lat[i], lon: p.lon[i] } }
  }
  let photo: number | undefined
  if (place) {
    for (let i = 0; i < p.length; i++) {
      if (p.lat[i] !== place.lat || p.lon[i] !== place.lon) continue
      photo ??= p.id[i]
      if (p.stereo_partner[i] >= 0 && p.sequence.dict[p.sequence.codes[i]] !== '') { photo = p.id[i]; break }
    }
  }
  const best = argmax(perSequence)
  return { sequence: best >= 0 ? p.sequence.dict[best] : undefined, ...place, photo }
}
