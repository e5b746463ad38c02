import type { Store } from '../src/store/store'
import { CAMERAS } from '../src/catalog/cameras'
import { ROVER_SLUGS } from '../src/catalog/rovers'
import { dataFacts, type DataFacts } from './lib/data-facts'
import { PHOTO_PAGE_COLUMNS } from './peers/peer-schema'
import type { ShapeWork } from './lib/result'
import { GOALS } from './lib/goals'

/**
 * The fixed mix of query shapes real clients send (scenario 1), each with the SQL
 * that means the same thing, written by hand for the peers (scenario 2). Values (sols, dates,
 * places, nasa_id fragments) are picked from the loaded index by data-facts.ts so each shape
 * asks for something the catalogue has.
 *
 * Meaning of our queries, as the SQL spells it (decisions.md, Filters and Sorting):
 * ranges inclusive; unknown values sort last in either direction; `id` ascending is the final
 * tie-breaker; Mars times compare to the second; cameras match by name within the selected
 * rovers (camera_id, the public service's indexed column).
 */
export type Endpoint = 'photos' | 'photo' | 'stats' | 'batch' | 'locations' | 'panoramas' | 'related'

export type PeerSql =
  /** rows: the page (first column the id); count: the total the envelope reports. */
  | { kind: 'page'; rows: string; count: string }
  /** groups: (key, count, ...) rows, any order. */
  | { kind: 'stats'; groups: string }
  /** rows of the requested ids in any order; the client puts them in request order. */
  | { kind: 'batch'; rows: string; ids: number[] }
  /**
   * /related as a client of the peer asks it: the photo's facts first (partner, sequence, sol,
   * position), then from them the partner's row, the sequence's first page and size, and the
   * nearest photos of other sols and their count.
   */
  | { kind: 'related'; photo: string; parts(facts: unknown[]): RelatedSql }

export interface RelatedSql {
  partner?: string
  sequence?: { rows: string; count: string }
  nearby?: { rows: string; count: string }
}

export interface QueryShape {
  name: string
  /** Which engine p99 goal applies: narrow 1 ms, scan 15 ms, other none. */
  group: 'narrow' | 'scan' | 'other'
  /**
   * What the work is (sort, scan and stats shapes carry the 50x PostgreSQL bar): `filter` narrows
   * by rover/sol/camera/date/place; `sort` lists all photos (or a whole rover's) in an order, the
   * default order by date taken included, however deep the page; `scan` filters on a column no
   * range or list narrows; `stats` counts by group; `lookup` fetches ids or pages the small
   * derived locations/panoramas lists.
   */
  work: ShapeWork
  endpoint: Endpoint
  /** Query string as a client sends it. */
  query: string
  /** Path id (photo) or JSON body (batch). */
  id?: string
  body?: unknown
  sql?: PeerSql
  /** Set when the index has nothing this shape can ask for. */
  skip?: string
}

/** The engine's p99 goals: narrowed by rover/sol/camera/date 1 ms, full scans 15 ms; the rest have none. */
export const GOAL_P99_MS: Record<QueryShape['group'], number | undefined> = { narrow: GOALS.narrowP99Ms, scan: GOALS.scanP99Ms, other: undefined }

const PAGE = PHOTO_PAGE_COLUMNS
const q = (s: string) => `'${s.replaceAll("'", "''")}'`
const date = (d: string) => `DATE ${q(d)}`
const where = (...conds: string[]) => (conds.length ? ` WHERE ${conds.map((c) => `(${c})`).join(' AND ')}` : '')
/**
 * ORDER BY of our sorts: unknown last, then id ascending. `NULLS LAST` is written only for
 * columns that hold unknowns in this index: on the others it changes no answer, and leaving it
 * out lets PostgreSQL walk its b-tree backwards for a descending order (its DESC default is
 * NULLS FIRST), as a user who knows the data would.
 */
const orderWith = (nullable: Set<string>) => (...keys: string[]) =>
  [...keys.map((k) => (nullable.has(k.split(' ')[0]) ? `${k} NULLS LAST` : k)), 'id ASC'].join(', ')

function page(conds: string[], orderBy: string, perPage = 25, pageNo = 1): PeerSql {
  const w = where(...conds)
  return {
    kind: 'page',
    rows: `SELECT ${PAGE} FROM photos${w} ORDER BY ${orderBy} LIMIT ${perPage} OFFSET ${(pageNo - 1) * perPage}`,
    count: `SELECT count(*) FROM photos${w}`,
  }
}

/** camera_id IN (...) for a camera name within some rovers (all when none given). */
function cameraIn(name: string, rovers: string[] = [...ROVER_SLUGS]): string {
  const ids = CAMERAS.flatMap((c, i) => (c.name === name && rovers.includes(c.rover) ? [i] : []))
  return ids.length ? `camera_id IN (${ids.join(', ')})` : 'false'
}

const statsSql = (by: 'camera' | 'rover' | 'sol', conds: string[]): PeerSql => {
  const w = where(...conds)
  if (by === 'camera')
    return { kind: 'stats', groups: `SELECT camera AS key, count(*) AS n, min(earth_date), max(earth_date) FROM photos${w} GROUP BY camera` }
  if (by === 'rover')
    return {
      kind: 'stats',
      groups: `SELECT r.slug AS key, count(*) AS n, count(DISTINCT p.sol), min(p.earth_date), max(p.earth_date) FROM photos p JOIN rovers r ON r.id = p.rover_id${w} GROUP BY r.slug`,
    }
  return { kind: 'stats', groups: `SELECT CAST(sol AS text) AS key, count(*) AS n, min(earth_date) FROM photos${w} GROUP BY sol ORDER BY sol` }
}

/** Mars local time of day to the second, as our filter compares it (decisions.md). */
const marsSecond = (hms: string) => {
  const [h, m, s] = hms.split(':').map(Number)
  return ((h * 60 + m) * 60 + s) * 1000
}

export interface ShapeContext {
  facts: DataFacts
  /** Cursor of the page after the deep page, from our own first answer (undefined when none). */
  cursorAfterDeepPage?: { token: string; lastId: number; lastTaken: number }
}

/** Page depth of the deep-page shapes: page 2000 on the 2M catalogue, proportionally less on small indexes. */
export const deepPage = (rows: number) => (rows >= 200_000 ? 2000 : Math.max(2, Math.floor(rows / 25 / 4)))

export function queryShapes(ctx: ShapeContext): QueryShape[] {
  const { facts: f } = ctx
  const order = orderWith(f.nullable)
  const DEFAULT_ORDER = order('taken_sort DESC')
  const { main: m, second: s } = f
  const deep = deepPage(f.rows)
  const deepMain = deepPage(m.count)
  const shapes: QueryShape[] = [
    // Narrowed by rover, sol, camera or date: answered from sorted ranges.
    { name: 'rover-sol', group: 'narrow', work: 'filter', endpoint: 'photos', query: `rovers=${m.slug}&sol=${m.sol}`,
      sql: page([`rover_id = ${m.code}`, `sol = ${m.sol}`], DEFAULT_ORDER) },
    { name: 'rover-camera-date-range', group: 'narrow', work: 'filter', endpoint: 'photos',
      query: `rovers=${s.slug}&cameras=${s.camera}&date_min=${s.dateMin}&date_max=${s.dateMax}`,
      sql: page([`rover_id = ${s.code}`, cameraIn(s.camera, [s.slug]), `earth_date BETWEEN ${date(s.dateMin)} AND ${date(s.dateMax)}`], DEFAULT_ORDER) },
    { name: 'rover-sol-range-by-sol-100', group: 'narrow', work: 'filter', endpoint: 'photos',
      query: `rovers=${m.slug}&sol_min=${Math.max(0, m.sol - 50)}&sol_max=${m.sol}&sort=sol&per_page=100&include=rover,camera`,
      sql: page([`rover_id = ${m.code}`, `sol BETWEEN ${Math.max(0, m.sol - 50)} AND ${m.sol}`], order('sol ASC'), 100) },
    { name: 'camera-earth-date', group: 'narrow', work: 'filter', endpoint: 'photos', query: `cameras=${f.sharedCamera}&earth_date=${f.sharedCameraDate}`,
      sql: page([cameraIn(f.sharedCamera), `earth_date = ${date(f.sharedCameraDate)}`], DEFAULT_ORDER) },
    { name: 'stats-sol-rover-range', group: 'narrow', work: 'stats', endpoint: 'stats',
      query: `group_by=sol&rovers=${m.slug}&sol_min=${Math.max(0, m.sol - 100)}&sol_max=${m.sol}`,
      sql: statsSql('sol', [`rover_id = ${m.code}`, `sol BETWEEN ${Math.max(0, m.sol - 100)} AND ${m.sol}`]) },
    { name: 'stats-camera-rover-dates', group: 'narrow', work: 'stats', endpoint: 'stats',
      query: `group_by=camera&rovers=${s.slug}&date_min=${s.dateMin}&date_max=${s.dateMax}`,
      sql: statsSql('camera', [`rover_id = ${s.code}`, `earth_date BETWEEN ${date(s.dateMin)} AND ${date(s.dateMax)}`]) },

    // Orders over everything, deep pages and cursors.
    { name: 'default-all', group: 'other', work: 'sort', endpoint: 'photos', query: '', sql: page([], DEFAULT_ORDER) },
    { name: 'default-all-100', group: 'other', work: 'sort', endpoint: 'photos', query: 'per_page=100', sql: page([], DEFAULT_ORDER, 100) },
    { name: 'sort-sol', group: 'scan', work: 'sort', endpoint: 'photos', query: 'sort=sol', sql: page([], order('sol ASC')) },
    { name: 'sort-camera', group: 'scan', work: 'sort', endpoint: 'photos', query: 'sort=camera', sql: page([], order('camera ASC')) },
    { name: 'sort-width', group: 'scan', work: 'sort', endpoint: 'photos', query: 'sort=width', sql: page([], order('width ASC')) },
    { name: 'sort-desc-mast-azimuth', group: 'scan', work: 'sort', endpoint: 'photos', query: 'sort=-mast_azimuth', sql: page([], order('mast_az DESC')) },
    { name: `deep-page-${deep}`, group: 'other', work: 'sort', endpoint: 'photos', query: `page=${deep}`, sql: page([], DEFAULT_ORDER, 25, deep) },
    { name: `deep-page-${deepMain}-rover-by-sol`, group: 'other', work: 'sort', endpoint: 'photos', query: `rovers=${m.slug}&sort=sol&page=${deepMain}`,
      sql: page([`rover_id = ${m.code}`], order('sol ASC'), 25, deepMain) },
  ]

  const c = ctx.cursorAfterDeepPage
  const after = c && (Number.isNaN(c.lastTaken)
    ? `taken_sort IS NULL AND id > ${c.lastId}`
    : `taken_sort < ${c.lastTaken} OR (taken_sort = ${c.lastTaken} AND id > ${c.lastId})` +
      (f.nullable.has('taken_sort') ? ' OR taken_sort IS NULL' : ''))
  shapes.push({
    name: `cursor-after-page-${deep}`, group: 'other', work: 'sort', endpoint: 'photos', query: c ? `cursor=${encodeURIComponent(c.token)}` : '',
    skip: c ? undefined : 'no cursor.next after the deep page (index too small, or the engine gave none)',
    sql: c && {
      kind: 'page',
      rows: `SELECT ${PAGE} FROM photos WHERE ${after} ORDER BY ${DEFAULT_ORDER} LIMIT 25`,
      count: 'SELECT count(*) FROM photos',
    },
  })

  const pl = f.place
  const rel = f.related
  const near = rel?.lat !== undefined && rel.lon !== undefined ? { lat: rel.lat, lon: rel.lon } : undefined
  shapes.push(
    { name: 'location-radius', group: 'other', work: 'filter', endpoint: 'photos',
      query: pl ? `rovers=${pl.slug}&site=${pl.site}&drive=${pl.drive}&location_radius=50` : '',
      skip: pl ? undefined : 'no photo with site and drive',
      sql: pl && page([`rover_id = ${ROVER_SLUGS.indexOf(pl.slug as never)}`, `site = ${pl.site}`, `drive BETWEEN ${pl.drive - 50} AND ${pl.drive + 50}`], DEFAULT_ORDER) },

    // Full scans.
    { name: 'nasa-id-substring', group: 'scan', work: 'scan', endpoint: 'photos', query: `nasa_id=${f.nasaFragment}`,
      sql: page([`nasa_id ILIKE ${q(`%${f.nasaFragment}%`)}`], DEFAULT_ORDER) },
    { name: 'mars-time-window', group: 'scan', work: 'scan', endpoint: 'photos', query: 'mars_time_min=M10:00:00&mars_time_max=M10:30:00',
      sql: page([`mars_time_ms >= ${marsSecond('10:00:00')} AND mars_time_ms < ${marsSecond('10:30:00') + 1000}`], DEFAULT_ORDER) },
    { name: 'mars-time-across-midnight', group: 'scan', work: 'scan', endpoint: 'photos', query: 'mars_time_min=M16:30:00&mars_time_max=M08:30:00',
      sql: page([`mars_time_ms >= ${marsSecond('16:30:00')} OR mars_time_ms < ${marsSecond('08:30:00') + 1000}`], DEFAULT_ORDER) },
    // Golden hour is a band of the sun's elevation (decisions.md, revised 2026-11-28).
    { name: 'golden-hour', group: 'scan', work: 'scan', endpoint: 'photos', query: 'mars_time_golden_hour=true',
      sql: page(['sun_el BETWEEN -4 AND 6'], DEFAULT_ORDER) },
    { name: 'golden-hour-rover', group: 'scan', work: 'scan', endpoint: 'photos', query: `rovers=${m.slug}&mars_time_golden_hour=true`,
      sql: page([`rover_id = ${m.code}`, 'sun_el BETWEEN -4 AND 6'], DEFAULT_ORDER) },
    { name: 'sun-elevation-band', group: 'scan', work: 'scan', endpoint: 'photos', query: 'sun_elevation_min=20&sun_elevation_max=30',
      sql: page(['sun_el BETWEEN 20 AND 30'], DEFAULT_ORDER) },
    { name: 'sort-desc-sun-elevation', group: 'scan', work: 'sort', endpoint: 'photos', query: 'sort=-sun_elevation', sql: page([], order('sun_el DESC')) },
    { name: 'angle-bounds', group: 'scan', work: 'scan', endpoint: 'photos',
      query: 'mast_elevation_min=-10&mast_elevation_max=10&mast_azimuth_min=90&mast_azimuth_max=180',
      sql: page(['mast_el BETWEEN -10 AND 10', 'mast_az BETWEEN 90 AND 180'], DEFAULT_ORDER) },
    { name: 'dimension-bounds', group: 'scan', work: 'scan', endpoint: 'photos', query: 'min_width=1024&min_height=900&aspect_ratio_min=1.2&aspect_ratio_max=1.4',
      sql: page(['width >= 1024', 'height >= 900', 'CAST(width AS double precision) / NULLIF(height, 0) BETWEEN 1.2 AND 1.4'], DEFAULT_ORDER) },
    // Photos that belong together (stereo pairs, one sequence, taken near a place).
    { name: 'stereo-pairs', group: 'scan', work: 'scan', endpoint: 'photos', query: 'stereo=true', sql: page(['stereo_partner IS NOT NULL'], DEFAULT_ORDER) },
    { name: 'sequence', group: 'other', work: 'filter', endpoint: 'photos',
      query: rel?.sequence ? `sequence=${rel.sequence}&per_page=100` : '', skip: rel?.sequence ? undefined : 'no photo with a sequence',
      sql: rel?.sequence ? page([`sequence = ${q(rel.sequence)}`], order('taken_sort ASC'), 100) : undefined },
    { name: 'near-here', group: 'scan', work: 'scan', endpoint: 'photos',
      query: near ? `lat=${near.lat}&lon=${near.lon}&radius_m=${NEAR_M}` : '', skip: near ? undefined : 'no photo with a position',
      sql: near ? page([`${distanceSql(near)} <= ${NEAR_M}`], DEFAULT_ORDER) : undefined },
    { name: 'near-here-by-distance', group: 'scan', work: 'scan', endpoint: 'photos',
      query: near ? `lat=${near.lat}&lon=${near.lon}&radius_m=${NEAR_M}&sort=distance` : '', skip: near ? undefined : 'no photo with a position',
      sql: near ? page([`${distanceSql(near)} <= ${NEAR_M}`], `${distanceSql(near)} ASC, id ASC`) : undefined },
    { name: 'stats-camera-all', group: 'scan', work: 'stats', endpoint: 'stats', query: 'group_by=camera', sql: statsSql('camera', []) },
    { name: 'stats-rover-all', group: 'scan', work: 'stats', endpoint: 'stats', query: 'group_by=rover', sql: statsSql('rover', []) },
    { name: 'stats-sol-all', group: 'scan', work: 'stats', endpoint: 'stats', query: 'group_by=sol', sql: statsSql('sol', []) },
  )

  const lo = f.locations
  const pa = f.panoramas
  shapes.push(
    { name: 'locations-list', group: 'other', work: 'lookup', endpoint: 'locations',
      query: lo ? `rovers=${lo.slug}&min_photos=${lo.minPhotos}&per_page=100` : '', skip: lo ? undefined : 'no locations in the index',
      sql: lo && {
        kind: 'page',
        rows: `SELECT * FROM locations WHERE rover_id = ${lo.code} AND photo_count >= ${lo.minPhotos} ORDER BY rover_id, first_sol, site, drive LIMIT 100`,
        count: `SELECT count(*) FROM locations WHERE rover_id = ${lo.code} AND photo_count >= ${lo.minPhotos}`,
      } },
    { name: 'panoramas-list', group: 'other', work: 'lookup', endpoint: 'panoramas',
      query: pa ? `rovers=${pa.slug}&sol_min=${pa.solMin}&sol_max=${pa.solMax}&per_page=100` : '', skip: pa ? undefined : 'no panoramas in the index',
      sql: pa && {
        kind: 'page',
        rows: `SELECT * FROM panoramas WHERE rover_id = ${pa.code} AND sol BETWEEN ${pa.solMin} AND ${pa.solMax} ORDER BY rover_id, sol, n LIMIT 100`,
        count: `SELECT count(*) FROM panoramas WHERE rover_id = ${pa.code} AND sol BETWEEN ${pa.solMin} AND ${pa.solMax}`,
      } },
    { name: 'batch-100', group: 'other', work: 'lookup', endpoint: 'batch', query: '', body: { ids: f.batchIds },
      sql: { kind: 'batch', rows: `SELECT ${PAGE} FROM photos WHERE id IN (${f.batchIds.join(', ')})`, ids: f.batchIds } },
    { name: 'photo-by-id', group: 'other', work: 'lookup', endpoint: 'photo', query: '', id: String(f.midId),
      sql: { kind: 'batch', rows: `SELECT ${PAGE} FROM photos WHERE id = ${f.midId}`, ids: [f.midId] } },
    { name: 'related', group: 'other', work: 'lookup', endpoint: 'related', query: '', id: rel?.photo !== undefined ? String(rel.photo) : undefined,
      skip: rel?.photo !== undefined ? undefined : 'no photo with a position',
      sql: rel?.photo !== undefined ? relatedSql(rel.photo, order('taken_sort ASC')) : undefined },
  )
  return shapes
}

/** Radius of the near-here shapes: a few hundred metres around the most photographed position. */
const NEAR_M = 300
/** The route's default radius and page sizes (src/query/answer/related-photos.ts). */
const RELATED_M = 50
const RELATED_SEQUENCE = 25
const RELATED_NEARBY = 10

/** /related's queries for one photo, built from its facts (stereo_partner, sequence, sol, lat, lon). */
function relatedSql(id: number, exposureOrder: string): PeerSql {
  return {
    kind: 'related',
    photo: `SELECT stereo_partner, sequence, sol, lat, lon FROM photos WHERE id = ${id}`,
    parts([partner, sequence, sol, lat, lon]) {
      const out: RelatedSql = {}
      if (partner !== null && partner !== undefined) out.partner = `SELECT ${PAGE} FROM photos WHERE id = ${Number(partner)}`
      if (typeof sequence === 'string' && sequence !== '') {
        const w = where(`sequence = ${q(sequence)}`)
        out.sequence = { rows: `SELECT ${PAGE} FROM photos${w} ORDER BY ${exposureOrder} LIMIT ${RELATED_SEQUENCE}`, count: `SELECT count(*) FROM photos${w}` }
      }
      if (lat !== null && lat !== undefined && lon !== null && lon !== undefined) {
        const d = distanceSql({ lat: Number(lat), lon: Number(lon) }, RELATED_M)
        // Other sols than the photo's own; a photo without a sol is of another sol.
        const w = where(`${d} <= ${RELATED_M}`, sol === null || sol === undefined ? 'true' : `sol IS NULL OR sol <> ${Number(sol)}`)
        out.nearby = { rows: `SELECT ${PAGE} FROM photos${w} ORDER BY ${d} ASC, id ASC LIMIT ${RELATED_NEARBY}`, count: `SELECT count(*) FROM photos${w}` }
      }
      return out
    },
  }
}

/**
 * Great-circle metres from a centre in SQL, the haversine of src/geo/great-circle.ts (sphere of
 * 3,389.5 km); the latitude band the engine tests first is left to the planner (an index on lat).
 */
function distanceSql(c: { lat: number; lon: number }, radiusM = NEAR_M): string {
  const band = (radiusM / 3_389_500) * (180 / Math.PI)
  const hav = `power(sin(radians(lat - (${c.lat})) / 2), 2) + cos(radians(${c.lat})) * cos(radians(lat)) * power(sin(radians(lon - (${c.lon})) / 2), 2)`
  return `(CASE WHEN lat BETWEEN ${c.lat - band * 1.001} AND ${c.lat + band * 1.001} THEN 2 * 3389500 * asin(least(1, sqrt(${hav}))) END)`
}

/** The request line a client would send for a shape (for reports). */
export function requestOf(s: QueryShape): string {
  const path = { photos: '/photos', photo: `/photos/${s.id}`, stats: '/photos/stats', batch: 'POST /photos/batch', locations: '/locations', panoramas: '/panoramas', related: `/photos/${s.id}/related` }[s.endpoint]
  return path + (s.query ? `?${decodeURIComponent(s.query)}` : '')
}

export { dataFacts }
export type { Store }
