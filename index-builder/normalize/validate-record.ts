import { ROVERS, type RoverSlug } from '../../src/catalog/rovers'
import { MAX_CHARS } from '../sources/input-limits'
import { RecordError } from '../sources/source-error'
import { missionSolAt } from './mission-sol'
import type { PhotoRecord } from './photo-record'
import { utcDate } from './utc-time'

/**
 * The build-time gate every photo passes before it can be served, whichever reader made it
 * (callable on one record by any reader or fetcher). Source files are untrusted: a value is kept
 * only when it is what its field says it is, so nothing the service returns is a script, a
 * `javascript:` link or a date in the year 9999 that would become a rover's max_date.
 *
 *   image URLs      absolute http(s) (RFC 3986), no whitespace or control characters, ≤ MAX_CHARS.url
 *   nasa_id         NASA product-id grammar: letters, digits, `_` and `-`, ≤ MAX_CHARS.nasa_id
 *   sol             within the rover's mission: 0 to its last sol (a mission that is over) or to
 *                   today's sol + 1 (an active one, by the Mars24 clock in mission-sol.ts)
 *   earth_date, date_taken_utc   from the day before landing (EDL images) to the mission's end / tomorrow
 *   text fields     no control characters (captions may hold line breaks), length caps; sample_type
 *                   and date_taken_mars match their grammars
 *   angles          mast_azimuth normalised into [0, 360); mast_elevation within [-90, 90]; the
 *                   stated sun likewise (sun_azimuth, sun_elevation), solar_longitude within [0, 360]
 *   sizes, site, drive   positive / non-negative integers of sane size
 * Throws RecordError (the caller names file and record); mutates only to normalise the azimuth.
 */

/** Last sol of the missions that are over (the v1 manifests' max_sol). */
const LAST_SOL: Partial<Record<RoverSlug, number>> = { opportunity: 5111, spirit: 2208 }
/** Last day of the missions that are over (last contact). */
const LAST_DAY: Partial<Record<RoverSlug, string>> = { opportunity: '2018-06-11', spirit: '2010-03-22' }
const DAY_MS = 86_400_000

const NASA_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/
const SAMPLE_TYPE = /^[A-Za-z][A-Za-z0-9 _-]*$/
const DATE_TAKEN_MARS = /^Sol-\d{1,5}M\d{2}:\d{2}:\d{2}(\.\d{1,6})?$/
// C0 and C1 controls, DEL, and the bidi/zero-width format characters that disguise text.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/
const CONTROL_EXCEPT_NEWLINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/

export interface RoverBounds {
  maxSol: number
  firstDayMs: number
  lastDayMs: number
}

/** The sol and date range a rover's photos may have, as of `nowMs`. */
export function roverBounds(rover: RoverSlug, nowMs = Date.now()): RoverBounds {
  const facts = ROVERS.find((r) => r.slug === rover)!
  const landing = Date.parse(`${facts.landing_date}T00:00:00Z`)
  const end = LAST_DAY[rover]
  return {
    maxSol: LAST_SOL[rover] ?? missionSolAt(rover, nowMs) + 1,
    firstDayMs: landing - DAY_MS,
    lastDayMs: end ? Date.parse(`${end}T00:00:00Z`) + DAY_MS - 1 : nowMs + DAY_MS,
  }
}

const boundsCache = new Map<RoverSlug, RoverBounds>()
function boundsOf(rover: RoverSlug): RoverBounds {
  let b = boundsCache.get(rover)
  if (!b) boundsCache.set(rover, (b = roverBounds(rover)))
  return b
}

/**
 * An http(s) URL of the plainest form every image URL of the feeds has: a lower-case host of
 * letters, digits and hyphens whose last label starts with a letter (never an IP address to
 * range-check, nor punycode to decode), no port, user or password, a path of unreserved
 * characters, `/` and `%`, no query or fragment. Such a text is an absolute URL the checks
 * below pass, so it is accepted without parsing it (a URL parse for each of a record's four
 * image URLs was a tenth of reading a mirror); any other text is parsed.
 */
const PLAIN_URL = /^https?:\/\/(?:[a-z0-9-]+\.)*[a-z][a-z0-9-]*(?:\/[A-Za-z0-9._~%\/-]*)?$/

export function checkUrl(url: string, field: string): void {
  if (url.length > MAX_CHARS.url) throw new RecordError(`${field} is ${url.length} characters (at most ${MAX_CHARS.url})`)
  if (PLAIN_URL.test(url) && !url.includes('xn--')) return
  if (CONTROL.test(url) || /\s/.test(url)) throw new RecordError(`${field} holds whitespace or control characters`)
  let u: URL
  try {
    u = new URL(url)
  } catch {
    throw new RecordError(`${field} ${JSON.stringify(url.slice(0, 80))} is not an absolute URL`)
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new RecordError(`${field} has scheme ${JSON.stringify(u.protocol)}; only http and https image URLs are served`)
  if (u.username || u.password) throw new RecordError(`${field} carries credentials`)
}

function checkText(value: string | undefined, field: string, max: number, newlines = false): void {
  if (value === undefined) return
  if (value.length > max) throw new RecordError(`${field} is ${value.length} characters (at most ${max})`)
  if ((newlines ? CONTROL_EXCEPT_NEWLINES : CONTROL).test(value)) throw new RecordError(`${field} holds control characters`)
}

function checkInt(value: number | undefined, field: string, min: number, max: number): void {
  if (value === undefined) return
  if (!Number.isInteger(value) || value < min || value > max) throw new RecordError(`${field} ${value} is not an integer in [${min}, ${max}]`)
}

/** mast_azimuth into [0, 360) (the filters and the interface use that range; feeds give −180…180). */
export function normaliseAzimuth(deg: number): number {
  if (deg >= 0 && deg < 360) return deg // kept exactly as stated
  let a = deg % 360
  if (a < 0) a += 360
  return a >= 360 || a === 0 ? 0 : a
}

export function validateRecord(rec: PhotoRecord): void {
  const b = boundsOf(rec.rover)
  const images = rec.images as Record<string, string | undefined>
  for (const size of ['small', 'medium', 'large', 'full']) if (images[size] !== undefined) checkUrl(images[size]!, `image ${size} URL`)
  if (rec.nasa_id.length > MAX_CHARS.nasa_id || !NASA_ID.test(rec.nasa_id)) throw new RecordError(`nasa_id ${JSON.stringify(rec.nasa_id.slice(0, 100))} is not a NASA product id`)
  checkText(rec.camera, 'camera', MAX_CHARS.camera)
  checkInt(rec.sol, 'sol', 0, b.maxSol)
  if (rec.earth_date !== '') {
    const day = Date.parse(`${rec.earth_date}T00:00:00Z`)
    if (!(day >= b.firstDayMs - DAY_MS && day <= b.lastDayMs)) throw new RecordError(`earth_date ${rec.earth_date} is outside ${rec.rover}'s mission (${utcDate(b.firstDayMs)} to ${utcDate(b.lastDayMs)})`)
  }
  if (rec.date_taken_utc !== undefined && !(rec.date_taken_utc >= b.firstDayMs && rec.date_taken_utc <= b.lastDayMs)) {
    throw new RecordError(`date_taken_utc ${Number.isFinite(rec.date_taken_utc) ? new Date(rec.date_taken_utc).toISOString() : rec.date_taken_utc} is outside ${rec.rover}'s mission`)
  }
  if (rec.sample_type !== undefined && (rec.sample_type.length > MAX_CHARS.short || !SAMPLE_TYPE.test(rec.sample_type))) throw new RecordError(`sample_type ${JSON.stringify(rec.sample_type.slice(0, 40))} is not a sample type`)
  if (rec.date_taken_mars !== undefined && (rec.date_taken_mars.length > MAX_CHARS.short || !DATE_TAKEN_MARS.test(rec.date_taken_mars))) throw new RecordError(`date_taken_mars ${JSON.stringify(rec.date_taken_mars.slice(0, 40))} is not "Sol-NNNNNMhh:mm:ss"`)
  checkText(rec.title, 'title', MAX_CHARS.title)
  checkText(rec.caption, 'caption', MAX_CHARS.caption, true)
  checkText(rec.credit, 'credit', MAX_CHARS.short)
  if (rec.raw !== undefined && rec.raw.length > MAX_CHARS.raw) throw new RecordError(`the record is ${rec.raw.length} characters of JSON (at most ${MAX_CHARS.raw})`)
  checkInt(rec.width, 'width', 1, 100_000)
  checkInt(rec.height, 'height', 1, 100_000)
  checkInt(rec.site, 'site', 0, 999_999)
  checkInt(rec.drive, 'drive', 0, 999_999)
  if (rec.mast_azimuth !== undefined) {
    if (!Number.isFinite(rec.mast_azimuth)) throw new RecordError('mast_azimuth is not a finite number')
    rec.mast_azimuth = normaliseAzimuth(rec.mast_azimuth)
  }
  if (rec.mast_elevation !== undefined && !(rec.mast_elevation >= -90 && rec.mast_elevation <= 90)) throw new RecordError(`mast_elevation ${rec.mast_elevation} is outside [-90, 90]`)
  if (rec.sun_azimuth !== undefined) {
    if (!Number.isFinite(rec.sun_azimuth)) throw new RecordError('sun_azimuth is not a finite number')
    rec.sun_azimuth = normaliseAzimuth(rec.sun_azimuth)
  }
  if (rec.sun_elevation !== undefined && !(rec.sun_elevation >= -90 && rec.sun_elevation <= 90)) throw new RecordError(`sun_elevation ${rec.sun_elevation} is outside [-90, 90]`)
  if (rec.solar_longitude !== undefined && !(rec.solar_longitude >= 0 && rec.solar_longitude <= 360)) throw new RecordError(`solar_longitude ${rec.solar_longitude} is outside [0, 360]`)
  if (rec.xyz !== undefined && !rec.xyz.every((v) => Number.isFinite(v) && Math.abs(v) < 1e7)) throw new RecordError('xyz holds a non-finite or huge coordinate')
  if (rec.sclk !== undefined && !(Number.isFinite(rec.sclk) && rec.sclk >= 0 && rec.sclk < 2 ** 32)) throw new RecordError(`sclk ${rec.sclk} is not a spacecraft clock count`)
}
