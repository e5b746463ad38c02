import { curiosityItems, perseveranceRecords } from './feed-replay-server'

/**
 * A stand-in for NASA's two raw-image feeds at full-mission size, on a loopback port: `sols`
 * Perseverance sols of `perSol` records each (2,000 × 750 = 1.5 million), every one a real
 * recorded feed record (the 1,196 of SOURCES.md §2.12, sols 2 and 4) moved to another sol, and
 * the real Curiosity records we hold in the §4.2 `raw_image_items` shape at their own sol
 * (feed-replay-server.ts `curiosityItems`: what the v1 records and their ids state, nothing more).
 *
 * Moving a record to sol S changes, consistently, everything that names its sol or its time:
 * `sol`; the image id's sol and spacecraft-clock fields (`EAF_0002_0667110211_…` → `EAF_0S_…`
 * with the clock advanced by the sols between, 88,775.244 s each); every URL and link holding the
 * id or the `/sol/NNNNN/` folder; `extended.sclk`; `date_taken_utc` and `date_received` advanced
 * by the same seconds; `date_taken_mars` (`Sol-0000SM…`, the same local time); the "Sol N" and
 * the earth date in title and caption. Every field the fetcher's validator checks stays valid
 * (ids, URLs, dates inside 2003..now, the sol asked for). Sol S holds the records
 * `(S × perSol + j) mod 1196` for j < perSol: no record twice in a sol, so ids never repeat.
 * Pages are made on request (nothing of the feed is held), with a strong ETag; `addSol()` makes
 * one more sol appear upstream, as NASA's feed does each day.
 */
const SOL_SECONDS = 88_775.244
const MONTHS = ['Jan.', 'Feb.', 'March', 'April', 'May', 'June', 'July', 'Aug.', 'Sept.', 'Oct.', 'Nov.', 'Dec.']
const pad = (n: number, w: number) => String(n).padStart(w, '0')

/** NASA's caption date, e.g. "Feb. 22, 2021". */
const captionDate = (d: Date) => `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`

function shiftTime(v: unknown, seconds: number): unknown {
  if (typeof v !== 'string') return v
  const zoned = /(Z|[+-]\d{2}:\d{2})$/.test(v)
  const ms = Date.parse(zoned ? v : `${v}Z`)
  if (!Number.isFinite(ms)) return v
  const iso = new Date(ms + Math.round(seconds * 1000)).toISOString().replace(/\.\d{3}Z$/, 'Z')
  return zoned ? iso : iso.slice(0, -1)
}

/** The real record `rec` as if taken `to` sols into the mission (see the module note). */
export function moveRecord(rec: Record<string, unknown>, to: number): Record<string, unknown> {
  const from = rec.sol as number
  const seconds = (to - from) * SOL_SECONDS
  const oldId = rec.imageid as string
  const m = /^([A-Z0-9]{3})_(\d{4})_(\d{10})_(.+)$/.exec(oldId)
  if (!m) throw new Error(`not a Perseverance image id: ${oldId}`)
  const newId = `${m[1]}_${pad(to, 4)}_${pad(Number(m[3]) + Math.round(seconds), 10)}_${m[4]}`
  const taken = typeof rec.date_taken_utc === 'string' ? new Date(Date.parse(shiftTime(rec.date_taken_utc, seconds) as string + (/Z$/.test(rec.date_taken_utc) ? '' : 'Z'))) : undefined
  let text = JSON.stringify(rec)
    .replaceAll(oldId, newId)
    .replaceAll(`/sol/${pad(from, 5)}/`, `/sol/${pad(to, 5)}/`)
    .replaceAll(`Sol-${pad(from, 5)}M`, `Sol-${pad(to, 5)}M`)
    .replace(new RegExp(`\\bSol ${from}\\b`, 'g'), `Sol ${to}`)
  if (taken && typeof rec.date_taken_utc === 'string') {
    const before = new Date(Date.parse(/Z$/.test(rec.date_taken_utc) ? rec.date_taken_utc : `${rec.date_taken_utc}Z`))
    text = text.replaceAll(captionDate(before), captionDate(taken))
  }
  const out = JSON.parse(text) as Record<string, unknown>
  out.sol = to
  out.date_taken_utc = shiftTime(out.date_taken_utc, seconds)
  out.date_received = shiftTime(out.date_received, seconds)
  const ext = out.extended as Record<string, unknown> | undefined
  if (ext && typeof ext.sclk === 'string' && /^\d+(\.\d+)?$/.test(ext.sclk)) {
    const [whole, frac] = ext.sclk.split('.')
    ext.sclk = `${Number(whole) + Math.round(seconds)}${frac !== undefined ? `.${frac}` : ''}`
  }
  return out
}

export interface StandInOptions {
  /** Perseverance sols 0..sols-1 (default 2,000: the newest then falls in late 2026). */
  sols?: number
  /** Records in each sol (default 750). */
  perSol?: number
}

export class StandInOrigin {
  readonly sols: number
  readonly perSol: number
  private extra = 0
  private readonly revised = new Set<number>()
  private readonly source: Array<Record<string, unknown>>
  private readonly curiosity = new Map<number, Array<Record<string, unknown>>>()
  private server: ReturnType<typeof Bun.serve>
  readonly url: string
  requests = 0

  constructor(opts: StandInOptions = {}) {
    this.sols = opts.sols ?? 2000
    this.perSol = opts.perSol ?? 750
    this.source = perseveranceRecords()
    if (this.perSol > this.source.length) throw new Error(`at most ${this.source.length} records a sol (each real record once)`)
    for (const r of curiosityItems()) {
      const list = this.curiosity.get(r.sol as number) ?? []
      list.push(r)
      this.curiosity.set(r.sol as number, list)
    }
    this.server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (req) => this.answer(req) })
    this.url = `http://127.0.0.1:${this.server.port}`
  }

  /** The newest Perseverance sol. */
  get latest(): number {
    return this.sols + this.extra - 1
  }

  /** Perseverance records in all: sols × perSol. */
  get records(): number {
    return (this.sols + this.extra) * this.perSol
  }

  /** One more sol appears upstream; returns it. */
  addSol(): number {
    this.extra++
    return this.latest
  }

  /** NASA revises a published sol: its last record is withdrawn and its first one's caption edited. */
  revise(sol: number): void {
    this.revised.add(sol)
  }

  /** How many records Perseverance sol `sol` holds. */
  solTotal(sol: number): number {
    return sol < 0 || sol > this.latest ? 0 : this.revised.has(sol) ? this.perSol - 1 : this.perSol
  }

  /** The records of Perseverance sol `sol` (empty past the newest). */
  solRecords(sol: number, from = 0, to = this.perSol): Array<Record<string, unknown>> {
    if (sol < 0 || sol > this.latest) return []
    const out: Array<Record<string, unknown>> = []
    for (let j = from; j < Math.min(to, this.solTotal(sol)); j++) {
      const rec = moveRecord(this.source[(sol * this.perSol + j) % this.source.length]!, sol)
      if (j === 0 && this.revised.has(sol)) rec.caption = `${rec.caption as string} (revised)`
      out.push(rec)
    }
    return out
  }

  stop(): void {
    this.server.stop(true)
  }

  private answer(req: Request): Response {
    this.requests++
    const u = new URL(req.url)
    const q = u.searchParams
    let body: unknown
    if (u.pathname === '/rss/api/' && q.get('feed') === 'raw_images' && q.get('category') === 'mars2020') {
      if (q.get('latest') === 'true') body = { latest_sol: this.latest }
      else {
        const sol = Number(q.get('sol'))
        const page = Number(q.get('page') ?? 0)
        const num = Math.min(100, Number(q.get('num') ?? 100))
        const total = this.solTotal(sol)
        body = { images: this.solRecords(sol, page * num, page * num + num), per_page: String(num), total_results: total, type: 'mars2020', page, mission: 'mars2020', total_images: total }
      }
    } else if (u.pathname === '/api/v1/raw_image_items/' && q.get('condition_1') === 'msl:mission') {
      const cond = /^(\d+):sol:in$/.exec(q.get('condition_2') ?? '')
      const page = Number(q.get('page') ?? 0)
      const per = Math.min(200, Number(q.get('per_page') ?? 200))
      if (!cond) body = { items: (this.curiosity.get(Math.max(...this.curiosity.keys())) ?? []).slice(0, 1), more: true, total: 1, page: 0, per_page: 1 }
      else {
        const all = this.curiosity.get(Number(cond[1])) ?? []
        const items = all.slice(page * per, page * per + per)
        body = { items, more: page * per + items.length < all.length, total: all.length, page, per_page: per }
      }
    } else return new Response('not found', { status: 404 })
    const text = JSON.stringify(body)
    const etag = `"${Bun.hash(text).toString(16)}"`
    if (req.headers.get('if-none-match') === etag) return new Response(null, { status: 304, headers: { etag } })
    return new Response(text, { headers: { 'content-type': 'application/json', etag } })
  }
}

/** `bun test/support/stand-in-origin.ts [SOLS] [PER_SOL]`: serves until killed; prints its URL. */
if (import.meta.main) {
  const s = new StandInOrigin({ sols: Number(process.argv[2] ?? 2000), perSol: Number(process.argv[3] ?? 750) })
  console.log(s.url)
  process.on('SIGUSR1', () => console.log(`added sol ${s.addSol()}`))
}
