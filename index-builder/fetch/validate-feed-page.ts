import type { FeedSpec } from './feed-spec'

/**
 * A feed page is untrusted input: it is checked here before it is saved, so the builder only ever
 * reads pages that parsed whole and whose records passed these rules. A page that breaks a rule
 * of its shape (not JSON, cut short, no list, too many records, a wrong sol) is refused whole and
 * fetched again; a record that breaks a rule of its own (id grammar, URL, date range, oversized
 * field) is left out of the saved page and reported, so one odd record does not hold a sol back.
 */

/** Largest page body accepted: a 200-item Curiosity page is ~400 KB, a 100-image Perseverance one ~250 KB. */
export const MAX_PAGE_BYTES = 8 * 1024 * 1024
/** No string field of a record is longer (captions run to ~1 KB). */
const MAX_TEXT = 16 * 1024
const MAX_URL = 2048
const MAX_DEPTH = 4
/** NASA image ids: letters, digits, `_` and `-` (SOURCES.md §4.5), e.g. `NLF_0100_0675828717_276ECM_…`, `3728MH0001730011303550C00_DXXX`. */
export const IMAGE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{3,127}$/
/** Earliest capture or receipt time a Mars rover record can carry: before Spirit's launch is wrong. */
const EARLIEST_MS = Date.UTC(2003, 5, 1)
/** How far past now a clock may run (time zones, clock skew). */
const FUTURE_SLACK_MS = 2 * 86_400_000
const DATE_FIELDS = ['date_taken_utc', 'date_received', 'date_taken', 'created_at', 'updated_at']
const URL_FIELDS = ['url', 'https_url', 'json_link']

export class PageError extends Error {}

export interface PageImage {
  id: string
  /** Digest of the record's JSON: a record whose digest changed between runs is "changed". */
  digest: string
}

export interface ValidPage {
  /** The page as received, minus the rejected records: what is saved. */
  doc: Record<string, unknown>
  images: PageImage[]
  rejected: Array<{ id: string | undefined; why: string }>
  /** Records on the page as received, rejected ones included (what paging counts). */
  records: number
}

export function validateFeedPage(text: string, spec: FeedSpec, sol: number, now = Date.now()): ValidPage {
  if (text.length > MAX_PAGE_BYTES) throw new PageError(`page of ${text.length} bytes is over ${MAX_PAGE_BYTES}`)
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (e) {
    throw new PageError(`not whole JSON (${(e as Error).message})`)
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new PageError('not a JSON object')
  const page = doc as Record<string, unknown>
  const list = page[spec.listKey]
  if (!Array.isArray(list)) throw new PageError(`no "${spec.listKey}" array`)
  if (list.length > spec.perPage * 2) throw new PageError(`${list.length} records on one page, asked for ${spec.perPage}`)
  if (spec.rover === 'curiosity' && page.more !== undefined && typeof page.more !== 'boolean') throw new PageError('"more" is not a boolean')
  const kept: unknown[] = []
  const images: PageImage[] = []
  const rejected: ValidPage['rejected'] = []
  for (const rec of list) {
    const id = rec && typeof rec === 'object' && typeof (rec as { imageid?: unknown }).imageid === 'string' ? ((rec as { imageid: string }).imageid).trim() : undefined
    const why = recordProblem(rec, spec, sol, now)
    if (why) {
      rejected.push({ id: id && id.length <= 128 ? id : undefined, why })
      continue
    }
    kept.push(rec)
    images.push({ id: id!, digest: String(Bun.hash(JSON.stringify(rec))) })
  }
  return { doc: { ...page, [spec.listKey]: kept }, images, rejected, records: list.length }
}

/** Why a record may not be saved, or undefined when it may. */
function recordProblem(rec: unknown, spec: FeedSpec, sol: number, now: number): string | undefined {
  if (!rec || typeof rec !== 'object' || Array.isArray(rec)) return 'not an object'
  const r = rec as Record<string, unknown>
  const big = oversized(r, 0)
  if (big) return big
  if (typeof r.imageid !== 'string' || !IMAGE_ID.test(r.imageid.trim())) return `imageid ${JSON.stringify(String(r.imageid).slice(0, 64))} is not a NASA image id`
  if (typeof r.sol !== 'number' || !Number.isSafeInteger(r.sol)) return 'sol is not an integer'
  // The feed was asked for one sol: a record of another sol is not what this page stands for.
  if (r.sol !== sol) return `sol ${r.sol} on a page of sol ${sol}`
  if (r.sol < 0 || r.sol > spec.maxSol) return `sol ${r.sol} out of range 0..${spec.maxSol}`
  for (const k of DATE_FIELDS) {
    const bad = dateProblem(r[k], now)
    if (bad) return `${k} ${bad}`
  }
  // The builder dates every photo from its capture time or, failing that, its spacecraft clock.
  const [timeField, clock] = spec.rover === 'perseverance' ? ['date_taken_utc', (r.extended as { sclk?: unknown } | undefined)?.sclk] : ['date_taken', r.spacecraft_clock]
  if ((r[timeField] === undefined || r[timeField] === null) && !isClock(clock)) return `no ${timeField} and no spacecraft clock: no capture time`
  const urls: Array<[string, unknown]> = URL_FIELDS.map((k) => [k, r[k]])
  if (spec.rover === 'perseverance') {
    const files = r.image_files
    if (files !== undefined && (typeof files !== 'object' || files === null || Array.isArray(files))) return 'image_files is not an object'
    for (const [k, v] of Object.entries((files ?? {}) as Record<string, unknown>)) urls.push([`image_files.${k}`, v])
    urls.push(['link', r.link])
    const cam = r.camera as { instrument?: unknown } | undefined
    if (!cam || typeof cam !== 'object' || typeof cam.instrument !== 'string' || !/^[A-Z0-9_]{2,40}$/.test(cam.instrument)) return 'camera.instrument missing or not an instrument name'
  } else {
    // Curiosity's `link` is a site-relative path ("/raw_images/1523343"), not a URL.
    if (r.link !== undefined && r.link !== null && (typeof r.link !== 'string' || !/^\/[A-Za-z0-9_\-/.]{0,200}$/.test(r.link))) return 'link is not a site path'
    if (typeof r.instrument !== 'string' || !/^[A-Z0-9_]{2,40}$/.test(r.instrument)) return 'instrument missing or not an instrument name'
    if (typeof r.https_url !== 'string' && typeof r.url !== 'string') return 'no image url'
  }
  for (const [k, v] of urls) {
    if (v === undefined || v === null) continue
    if (!isHttpUrl(v)) return `${k} is not an http(s) URL`
  }
  return undefined
}

/** A spacecraft clock reading: a non-negative finite number, or a string of one. */
function isClock(v: unknown): boolean {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,12}(\.\d{1,6})?$/.test(v.trim()) ? Number(v) : NaN
  return Number.isFinite(n) && n >= 0
}

function isHttpUrl(v: unknown): boolean {
  if (typeof v !== 'string' || v.length > MAX_URL || /[\s\u0000-\u001f\u007f]/.test(v)) return false
  try {
    const u = new URL(v)
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.username === '' && u.password === '' && u.hostname !== ''
  } catch {
    return false
  }
}

/** ISO 8601 times inside [mid-2003, now + 2 days]; absent fields pass. */
function dateProblem(v: unknown, now: number): string | undefined {
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})?$/.test(v)) return 'is not an ISO time'
  const ms = Date.parse(/(Z|[+-]\d{2}:\d{2})$/.test(v) ? v : `${v}Z`) // naive times are UTC (SOURCES.md §4.1)
  if (!Number.isFinite(ms)) return 'is not a valid time'
  if (ms < EARLIEST_MS || ms > now + FUTURE_SLACK_MS) return `${v} is out of range`
  return undefined
}

/** A string over MAX_TEXT or nesting deeper than MAX_DEPTH anywhere in the record. */
function oversized(v: unknown, depth: number): string | undefined {
  if (typeof v === 'string') return v.length > MAX_TEXT ? `a text field of ${v.length} characters` : undefined
  if (!v || typeof v !== 'object') return undefined
  if (depth >= MAX_DEPTH) return 'nested too deep'
  for (const x of Array.isArray(v) ? v : Object.values(v)) {
    const why = oversized(x, depth + 1)
    if (why) return why
  }
  return undefined
}
