import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'

/**
 * A stand-in for NASA's two raw-image feeds (SOURCES.md §4.1, §4.2) on a loopback port, replaying
 * real records:
 * - Perseverance: the `raw_images` records of ../shared/data/incoming/mchapman87501__mars_perseverance_images
 *   (sols 2 and 4), served in the feed's page shape `{images, total_images, page, per_page}`;
 * - Curiosity: the real v1 records of sol 3027 (raw/david-c-oliveros__mars-tour-backend) of the
 *   engineering cameras, in the `raw_image_items` shape `{items, more, total, page, per_page}`. Each
 *   item carries only what the v1 record states or its image id encodes (§4.5): imageid, sol, the
 *   instrument the id's camera letters name, the image URL, the SCLK of the id. Nothing is invented.
 * Pages carry a strong ETag and honour If-None-Match (304). Tests inject faults per page
 * (429/503 with Retry-After, a stall past the client's deadline, a body cut mid-JSON), cap how many
 * records of a sol are visible (a sol that grows between runs), and read the request log.
 */

const SHARED = join(import.meta.dir, '../../../shared/data')

export type Fault = { status: 429 | 503; retryAfter?: string } | { stallMs: number } | { truncate: true } | { status: 500 | 404 } | { padBytes: number }

export interface LoggedRequest {
  key: string
  status: number
  conditional: boolean
  at: number
}

/** Curiosity engineering-camera id prefixes (§4.5) → the feed's instrument names (§4.2). */
const MSL_INSTRUMENT: Record<string, string> = {
  FL: 'FHAZ_LEFT', FR: 'FHAZ_RIGHT', RL: 'RHAZ_LEFT', RR: 'RHAZ_RIGHT', NL: 'NAV_LEFT', NR: 'NAV_RIGHT',
}

export function perseveranceRecords(): Array<Record<string, unknown>> {
  const buf = gunzipSync(readFileSync(join(SHARED, 'incoming/mchapman87501__mars_perseverance_images/rss_feed.json.gz')))
  return JSON.parse(buf.toString('utf8'))
}

export function curiosityItems(): Array<Record<string, unknown>> {
  const buf = gunzipSync(readFileSync(join(SHARED, 'raw/david-c-oliveros__mars-tour-backend/test-data.json.gz')))
  const doc = JSON.parse(buf.toString('utf8'))
  const out: Array<Record<string, unknown>> = []
  for (const p of (doc.photos ?? doc) as Array<{ sol: number; img_src: string }>) {
    const imageid = p.img_src.slice(p.img_src.lastIndexOf('/') + 1).replace(/\.(JPG|PNG)$/i, '')
    const eng = /^([FRN][LR])([AB])_(\d{9})EDR_/.exec(imageid)
    const chem = /^CR0_(\d{9})[A-Z]{3}_/.exec(imageid)
    if (!eng && !chem) continue // MSSS names carry no clock: no capture time to give
    const instrument = eng ? `${MSL_INSTRUMENT[eng[1]!]}_${eng[2]}` : 'CHEMCAM_RMI'
    const https = p.img_src.replace(/^http:/, 'https:')
    out.push({ imageid, sol: p.sol, instrument, url: p.img_src, https_url: https, spacecraft_clock: Number(eng ? eng[3] : chem![1]), mission: 'msl' })
  }
  return out
}

export interface ReplayOptions {
  /** The newest sol the Perseverance feed reports in `latest_sol` (default: its newest sol with records). */
  latestPerseverance?: number
  /** Serve the Curiosity records of sol 3027 as a record of this sol (their `sol` changed; nothing else of theirs names it). */
  curiositySol?: number
}

export class FeedReplayServer {
  readonly log: LoggedRequest[] = []
  readonly faults = new Map<string, Fault[]>()
  /** `rover:sol` → how many of that sol's records are visible. */
  readonly visible = new Map<string, number>()
  /** `rover:sol` → how many of that sol's first records are gone (deleted upstream). */
  readonly removedFront = new Map<string, number>()
  /** Called on every request before it is answered (a test may kill a client mid-run here). */
  onRequest?: (key: string) => void
  private readonly bySol = { perseverance: new Map<number, Array<Record<string, unknown>>>(), curiosity: new Map<number, Array<Record<string, unknown>>>() }
  private server: ReturnType<typeof Bun.serve>
  readonly url: string

  constructor(private readonly opts: ReplayOptions = {}) {
    for (const r of perseveranceRecords()) push(this.bySol.perseverance, r)
    for (const r of curiosityItems()) push(this.bySol.curiosity, this.opts.curiositySol === undefined ? r : { ...r, sol: this.opts.curiositySol })
    this.server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (req) => this.answer(req) })
    this.url = `http://127.0.0.1:${this.server.port}`
  }

  records(rover: 'perseverance' | 'curiosity', sol: number): Array<Record<string, unknown>> {
    const all = this.bySol[rover].get(sol) ?? []
    return all.slice(this.removedFront.get(`${rover}:${sol}`) ?? 0, this.visible.get(`${rover}:${sol}`) ?? all.length)
  }

  inject(key: string, ...faults: Fault[]): void {
    this.faults.set(key, [...(this.faults.get(key) ?? []), ...faults])
  }

  requests(prefix: string): LoggedRequest[] {
    return this.log.filter((r) => r.key.startsWith(prefix))
  }

  stop(): void {
    this.server.stop(true)
  }

  private latest(rover: 'perseverance' | 'curiosity'): number {
    return (rover === 'perseverance' ? this.opts.latestPerseverance : undefined) ?? Math.max(...this.bySol[rover].keys())
  }

  private async answer(req: Request): Promise<Response> {
    const u = new URL(req.url)
    const q = u.searchParams
    let key: string
    let make: () => unknown
    if (u.pathname === '/rss/api/' && q.get('feed') === 'raw_images' && q.get('category') === 'mars2020') {
      if (q.get('latest') === 'true') {
        key = 'perseverance:latest'
        make = () => ({ latest_sol: this.latest('perseverance') })
      } else {
        const sol = Number(q.get('sol'))
        const page = Number(q.get('page') ?? 0)
        const num = Number(q.get('num') ?? 100)
        key = `perseverance:${sol}:${page}`
        make = () => {
          const all = this.records('perseverance', sol)
          return { images: all.slice(page * num, page * num + num), per_page: String(num), total_results: all.length, type: 'mars2020', page, mission: 'mars2020', total_images: all.length }
        }
      }
    } else if (u.pathname === '/api/v1/raw_image_items/' && q.get('condition_1') === 'msl:mission') {
      const cond = /^(\d+):sol:in$/.exec(q.get('condition_2') ?? '')
      const page = Number(q.get('page') ?? 0)
      const per = Number(q.get('per_page') ?? 200)
      if (!cond) {
        key = 'curiosity:latest'
        // `order=sol desc`: the first item is one of the newest sol's.
        make = () => ({ items: this.records('curiosity', this.latest('curiosity')).slice(0, 1), more: true, total: 1, page: 0, per_page: 1 })
      } else {
        const sol = Number(cond[1])
        key = `curiosity:${sol}:${page}`
        make = () => {
          const all = this.records('curiosity', sol)
          const items = all.slice(page * per, page * per + per)
          return { items, more: page * per + items.length < all.length, total: all.length, page, per_page: per }
        }
      }
    } else return new Response('not found', { status: 404 })

    this.onRequest?.(key) // before the page is made: a hook may change the sol under this very request
    const body = make()
    const fault = this.faults.get(key)?.shift()
    const conditional = req.headers.has('if-none-match')
    const log = (status: number) => (this.log.push({ key, status, conditional, at: performance.now() }), status)
    if (fault && 'stallMs' in fault) {
      log(0)
      await Bun.sleep(fault.stallMs)
      return new Response('{"images": []}', { headers: { 'content-type': 'application/json' } })
    }
    if (fault && 'status' in fault) {
      const headers: Record<string, string> = 'retryAfter' in fault && fault.retryAfter !== undefined ? { 'retry-after': fault.retryAfter } : {}
      return new Response('busy', { status: log(fault.status), headers })
    }
    const text = fault && 'padBytes' in fault ? JSON.stringify({ ...(body as object), padding: 'x'.repeat(fault.padBytes) }) : JSON.stringify(body)
    if (fault && 'truncate' in fault) {
      log(200)
      return new Response(text.slice(0, Math.floor(text.length / 2)), { headers: { 'content-type': 'application/json' } })
    }
    const etag = `"${Bun.hash(text).toString(16)}"`
    if (req.headers.get('if-none-match') === etag) return new Response(null, { status: log(304), headers: { etag } })
    return new Response(text, { status: log(200), headers: { 'content-type': 'application/json', etag } })
  }
}

function push(m: Map<number, Array<Record<string, unknown>>>, r: Record<string, unknown>): void {
  const sol = r.sol as number
  if (!m.has(sol)) m.set(sol, [])
  m.get(sol)!.push(r)
}

/** `bun test/support/feed-replay-server.ts`: serves until killed (for timing a refresh by hand). */
if (import.meta.main) {
  const s = new FeedReplayServer({ latestPerseverance: 8 })
  console.log(s.url)
}
