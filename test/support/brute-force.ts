import { ROVER_SLUGS } from '../../src/catalog/rovers'
import type { Store } from '../../src/store/store'

/**
 * A plain, deliberately naive reading of the photo parameters, written apart from the query
 * engine: the store's columns decoded into one object per photo, then Array.filter and
 * Array.sort with the rules of decisions.md spelled out directly. Mars time is read from the
 * `date_taken_mars` text itself (not the engine's mars_time_ms column), dates are compared as
 * YYYY-MM-DD strings. Only valid parameters are expected (the engine's 400s are tested apart).
 */
export interface PlainPhoto {
  id: number
  rover: string
  camera: string
  nasa_id: string
  sol: number | null
  earth_date: string | null
  date_taken_utc: number | null
  date_taken_mars: string
  sample_type: string | null
  width: number | null
  height: number | null
  site: number | null
  drive: number | null
  mast_azimuth: number | null
  mast_elevation: number | null
  sun_elevation: number | null
}

const text = new TextDecoder()

export function plainPhotos(store: Store): PlainPhoto[] {
  const p = store.photos
  const str = (c: { data: Uint8Array; offsets: Int32Array }, r: number) => text.decode(c.data.subarray(c.offsets[r], c.offsets[r + 1]))
  const int = (v: number) => (v === -1 ? null : v)
  const num = (v: number) => (Number.isNaN(v) ? null : v)
  // Angles are float32: a client reads the shortest text that is the same float32, and bounds apply to that number.
  const angle = (v: number) => {
    if (Number.isNaN(v)) return null
    for (let digits = 1; ; digits++) if (Math.fround(Number(v.toPrecision(digits))) === v) return Number(v.toPrecision(digits))
  }
  const out: PlainPhoto[] = []
  for (let r = 0; r < p.length; r++) {
    out.push({
      id: p.id[r],
      rover: ROVER_SLUGS[p.rover[r]],
      camera: p.camera.dict[p.camera.codes[r]],
      nasa_id: str(p.nasa_id, r),
      sol: int(p.sol[r]),
      earth_date: p.earth_date[r] === -1 ? null : new Date(p.earth_date[r] * 86400000).toISOString().slice(0, 10),
      date_taken_utc: num(p.date_taken_utc[r]),
      date_taken_mars: str(p.date_taken_mars, r),
      sample_type: p.sample_type.dict[p.sample_type.codes[r]] || null,
      width: int(p.width[r]),
      height: int(p.height[r]),
      site: int(p.site[r]),
      drive: int(p.drive[r]),
      mast_azimuth: angle(p.mast_azimuth[r]),
      mast_elevation: angle(p.mast_elevation[r]),
      sun_elevation: angle(p.sun_elevation[r]),
    })
  }
  return out
}

/** Seconds of the Mars local time of day in "Sol-NNNNNMhh:mm:ss.fff", or null. */
export function marsSeconds(s: string): number | null {
  const m = /M(\d{2}):(\d{2}):(\d{2})/.exec(s)
  return m ? Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) : null
}

function paramSeconds(v: string): number {
  const [h, m, s] = v.replace(/^M/, '').split('.')[0].split(':').map(Number)
  return h * 3600 + m * 60 + s
}

const list = (v: string | null) => (v === null ? null : v.split(',').map((x) => x.trim()).filter((x) => x !== ''))

/** Every photo the parameters select, in the order they ask for. */
export function bruteForce(all: PlainPhoto[], params: URLSearchParams): PlainPhoto[] {
  const get = (k: string) => {
    const v = params.get(k)
    return v === null || v.trim() === '' ? null : v.trim()
  }
  const n = (k: string) => (get(k) === null ? null : Number(get(k)))
  let rows = all

  const rovers = list(get('rovers'))
  if (rovers) rows = rows.filter((p) => rovers.map((r) => r.toLowerCase()).includes(p.rover))
  const cameras = list(get('cameras'))
  if (cameras) rows = rows.filter((p) => cameras.map((c) => c.toUpperCase()).includes(p.camera))
  const nasa = get('nasa_id')
  if (nasa !== null) rows = rows.filter((p) => p.nasa_id.toLowerCase().includes(nasa.toLowerCase()))

  const between = (v: number | null, lo: number | null, hi: number | null) => v !== null && (lo === null || v >= lo) && (hi === null || v <= hi)
  if (n('sol') !== null) rows = rows.filter((p) => p.sol === n('sol'))
  if (n('sol_min') !== null || n('sol_max') !== null) rows = rows.filter((p) => between(p.sol, n('sol_min'), n('sol_max')))
  if (get('earth_date')) rows = rows.filter((p) => p.earth_date === get('earth_date'))
  if (get('date_min')) rows = rows.filter((p) => p.earth_date !== null && p.earth_date >= get('date_min')!)
  if (get('date_max')) rows = rows.filter((p) => p.earth_date !== null && p.earth_date <= get('date_max')!)

  if (n('site') !== null) rows = rows.filter((p) => p.site === n('site'))
  if (n('site_min') !== null || n('site_max') !== null) rows = rows.filter((p) => between(p.site, n('site_min'), n('site_max')))
  const radius = n('location_radius')
  if (radius !== null) rows = rows.filter((p) => p.drive !== null && Math.abs(p.drive - n('drive')!) <= radius)
  else if (n('drive') !== null) rows = rows.filter((p) => p.drive === n('drive'))
  if (n('drive_min') !== null || n('drive_max') !== null) rows = rows.filter((p) => between(p.drive, n('drive_min'), n('drive_max')))

  if (n('min_width') !== null || n('max_width') !== null) rows = rows.filter((p) => between(p.width, n('min_width'), n('max_width')))
  if (n('min_height') !== null || n('max_height') !== null) rows = rows.filter((p) => between(p.height, n('min_height'), n('max_height')))
  const ratio = (p: PlainPhoto) => (p.width !== null && p.height !== null && p.height > 0 ? p.width / p.height : null)
  const ar = get('aspect_ratio')
  if (ar) {
    const [w, h] = ar.split(':').map((x) => Number(x.trim()))
    const want = w / h
    rows = rows.filter((p) => ratio(p) !== null && ratio(p)! >= want * 0.99 && ratio(p)! <= want * 1.01)
  }
  if (n('aspect_ratio_min') !== null || n('aspect_ratio_max') !== null) rows = rows.filter((p) => between(ratio(p), n('aspect_ratio_min'), n('aspect_ratio_max')))

  const sample = list(get('sample_type'))
  if (sample) rows = rows.filter((p) => p.sample_type !== null && sample.some((s) => s.toLowerCase() === p.sample_type!.toLowerCase()))

  if (n('mast_elevation_min') !== null || n('mast_elevation_max') !== null) rows = rows.filter((p) => between(p.mast_elevation, n('mast_elevation_min'), n('mast_elevation_max')))
  if (n('mast_azimuth_min') !== null || n('mast_azimuth_max') !== null) rows = rows.filter((p) => between(p.mast_azimuth, n('mast_azimuth_min'), n('mast_azimuth_max')))

  const tMin = get('mars_time_min')
  const tMax = get('mars_time_max')
  if (tMin || tMax) {
    const lo = tMin ? paramSeconds(tMin) : 0
    const hi = tMax ? paramSeconds(tMax) : 86399
    rows = rows.filter((p) => {
      const s = marsSeconds(p.date_taken_mars)
      if (s === null) return false
      return lo <= hi ? s >= lo && s <= hi : s >= lo || s <= hi
    })
  }
  if (get('mars_time_golden_hour')?.toLowerCase() === 'true') {
    // decisions.md (revised 2026-11-28): the sun within −4° … +6° of the horizon; unknown sun never matches.
    rows = rows.filter((p) => p.sun_elevation !== null && p.sun_elevation >= -4 && p.sun_elevation <= 6)
  }
  if (n('sun_elevation_min') !== null || n('sun_elevation_max') !== null) rows = rows.filter((p) => between(p.sun_elevation, n('sun_elevation_min'), n('sun_elevation_max')))

  return sortPhotos(rows, get('sort') ?? '-date_taken_utc')
}

/** The sort value a plain photo is ordered by. */
function value(p: PlainPhoto, field: string): number | string | null {
  if (field === 'date_taken_mars') return marsSeconds(p.date_taken_mars) === null ? null : marsMs(p.date_taken_mars)
  // decisions.md: without a capture time, the last instant of the photo's earth_date.
  if (field === 'date_taken_utc' && p.date_taken_utc === null && p.earth_date !== null) return Date.parse(`${p.earth_date}T23:59:59.999Z`)
  return (p as unknown as Record<string, number | string | null>)[field] ?? null
}

function marsMs(s: string): number {
  const m = /M(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?/.exec(s)!
  return (Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3])) * 1000 + (m[4] ? Math.floor(Number(`0.${m[4]}`) * 1000 + 1e-9) : 0)
}

export function sortPhotos(rows: PlainPhoto[], sort: string): PlainPhoto[] {
  const keys = sort.split(',').map((s) => s.trim()).filter(Boolean).map((s) => ({ desc: s.startsWith('-'), field: s.replace(/^-/, '').toLowerCase() }))
  return [...rows].sort((a, b) => {
    for (const k of keys) {
      const va = value(a, k.field)
      const vb = value(b, k.field)
      if (va === vb) continue
      if (va === null) return 1
      if (vb === null) return -1
      const c = va < vb ? -1 : 1
      return k.desc ? -c : c
    }
    return a.id - b.id
  })
}
