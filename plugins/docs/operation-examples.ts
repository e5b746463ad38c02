/**
 * The example request of each operation the reference shows: a real request whose answer, taken
 * from the default index, is kept beside it (reference-examples.json, written by
 * `npm run docs:examples` and checked current by test/reference-examples.test.ts). An operation
 * is named as the OpenAPI document names it: `METHOD /path/{param}`.
 */
export interface ExampleRequest {
  /** The concrete path with its query, e.g. `/api/v2/photos?rovers=curiosity&sol=1000`. */
  url: string
  /** A JSON body (POST operations). */
  body?: unknown
  /** False for the few operations that need no key (the snippets then send none). */
  keyed?: boolean
  /** The answer is an HTML page or a large document: the reference shows no answer, only the snippets. */
  noAnswer?: boolean
  /** A stream that does not end (Server-Sent Events): the snippets read its first piece and stop. */
  stream?: boolean
}

export const EXAMPLE_REQUESTS: Record<string, ExampleRequest> = {
  'GET /api/v2/photos': { url: '/api/v2/photos?rovers=curiosity&sol=1000&cameras=NAVCAM&per_page=2' },
  'GET /api/v2/photos/{id}': { url: '/api/v2/photos/103383?include=camera' },
  'GET /api/v2/photos/{id}/related': { url: '/api/v2/photos/1274797/related?fields=nasa_id,sol&radius_m=20' },
  'POST /api/v2/photos/batch': { url: '/api/v2/photos/batch?fields=sol,earth_date', body: { ids: [103383, 397371, 2000000000] } },
  'GET /api/v2/photos/stats': { url: '/api/v2/photos/stats?group_by=rover' },
  // The feeds carry added_at, which is each index's own publish time: no recorded answer.
  'GET /api/v2/photos/feed.atom': { url: '/api/v2/photos/feed.atom?rovers=perseverance&cameras=MCZ_LEFT', noAnswer: true },
  'GET /api/v2/photos/feed.json': { url: '/api/v2/photos/feed.json?rovers=perseverance&cameras=MCZ_LEFT', noAnswer: true },
  'GET /api/v2/photos/stream': { url: '/api/v2/photos/stream?rovers=perseverance', noAnswer: true, stream: true },
  'GET /api/v2/photos/export': { url: '/api/v2/photos/export?rovers=spirit&format=csv&max_rows=3&fields=sol,earth_date' },
  'GET /api/v2/rovers': { url: '/api/v2/rovers' },
  'GET /api/v2/rovers/{slug}': { url: '/api/v2/rovers/spirit' },
  'GET /api/v2/rovers/{slug}/cameras': { url: '/api/v2/rovers/opportunity/cameras' },
  'GET /api/v2/rovers/{slug}/manifest': { url: '/api/v2/rovers/spirit/manifest' },
  'GET /api/v2/rovers/{slug}/journey': { url: '/api/v2/rovers/curiosity/journey?sol_min=1000&sol_max=1010' },
  'GET /api/v2/rovers/{slug}/traverse': { url: '/api/v2/rovers/curiosity/traverse?sol_min=1000&sol_max=1100&simplify=50' },
  'GET /rovers/{slug}': { url: '/rovers/curiosity', keyed: false, noAnswer: true },
  'GET /api/v2/cameras': { url: '/api/v2/cameras' },
  'GET /api/v2/cameras/{id}': { url: '/api/v2/cameras/NAVCAM?rover=curiosity' },
  'GET /api/v2/locations': { url: '/api/v2/locations?rovers=curiosity&min_photos=50&per_page=2' },
  'GET /api/v2/locations/{id}': { url: '/api/v2/locations/curiosity_4_916' },
  'GET /api/v2/panoramas': { url: '/api/v2/panoramas?rovers=curiosity&per_page=2' },
  'GET /api/v2/panoramas/{id}': { url: '/api/v2/panoramas/pano_curiosity_38_1' },
  'GET /api/v1/rovers/{name}/photos': { url: '/api/v1/rovers/curiosity/photos?sol=1000&camera=NAVCAM&page=1' },
  'GET /api/v1/rovers/{name}/latest_photos': { url: '/api/v1/rovers/spirit/latest_photos?camera=NAVCAM&page=1' },
  'GET /api/v1/rovers/{name}/latest': { url: '/api/v1/rovers/spirit/latest?camera=NAVCAM&page=1' },
  'GET /api/v1/photos/{id}': { url: '/api/v1/photos/103383' },
  'GET /api/v1/manifests/{name}': { url: '/api/v1/manifests/spirit' },
  'GET /api/v1/rovers': { url: '/api/v1/rovers' },
  'GET /api/v1/rovers/{name}': { url: '/api/v1/rovers/opportunity' },
  'GET /api/v2': { url: '/api/v2' },
  'GET /health': { url: '/health', keyed: false },
  'GET /api/v2/openapi.json': { url: '/api/v2/openapi.json', keyed: false, noAnswer: true },
  'GET /api/v2/docs': { url: '/api/v2/docs', keyed: false, noAnswer: true },
  'GET /': { url: '/', keyed: false, noAnswer: true },
}

/** How many items of each array an example answer keeps. */
export const EXAMPLE_ITEMS = 2

/** A recorded answer: status, media type and the body (JSON trimmed, or text). */
export interface ExampleAnswer {
  status: number
  type: string
  json?: unknown
  text?: string
  /** True when arrays were cut to their first EXAMPLE_ITEMS items. */
  trimmed?: boolean
}

/** The placeholder origin every example and snippet uses (never the request's host). */
export const EXAMPLE_ORIGIN = 'https://mars-api.example'

/**
 * `value` with every array cut to its first EXAMPLE_ITEMS items and the answering origin replaced
 * by EXAMPLE_ORIGIN; `cut` reports whether anything was cut.
 */
export function trimExample(value: unknown, origin: string, cut: { any: boolean } = { any: false }): unknown {
  if (Array.isArray(value)) {
    if (value.length > EXAMPLE_ITEMS) cut.any = true
    return value.slice(0, EXAMPLE_ITEMS).map((v) => trimExample(v, origin, cut))
  }
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = trimExample(v, origin, cut)
    return out
  }
  return typeof value === 'string' ? value.split(origin).join(EXAMPLE_ORIGIN) : value
}

/** Lines of a text answer (CSV, NDJSON) kept in an example: the header and EXAMPLE_ITEMS + 1 more. */
export function trimText(text: string, origin: string): { text: string; trimmed: boolean } {
  const lines = text.replace(/\n$/, '').split('\n')
  const keep = EXAMPLE_ITEMS + 2
  return { text: lines.slice(0, keep).join('\n').split(origin).join(EXAMPLE_ORIGIN), trimmed: lines.length > keep }
}

/**
 * Records the example answer of every operation through `call` (a keyed request to the app at
 * `origin`). Operations whose answers are pages or documents (`noAnswer`) are left out.
 */
export async function recordExamples(call: (url: string, init: RequestInit) => Promise<Response>, origin: string): Promise<Record<string, ExampleAnswer>> {
  const out: Record<string, ExampleAnswer> = {}
  for (const [op, ex] of Object.entries(EXAMPLE_REQUESTS)) {
    if (ex.noAnswer) continue
    const init: RequestInit = ex.body === undefined ? { method: op.split(' ')[0] } : { method: op.split(' ')[0], body: JSON.stringify(ex.body), headers: { 'content-type': 'application/json' } }
    const r = await call(ex.url, init)
    const type = (r.headers.get('content-type') ?? '').split(';')[0]!.trim()
    const raw = await r.text()
    if (/json/.test(type)) {
      const cut = { any: false }
      const json = trimExample(JSON.parse(raw), origin, cut)
      out[op] = { status: r.status, type, json, ...(cut.any ? { trimmed: true } : {}) }
    } else {
      const t = trimText(raw, origin)
      out[op] = { status: r.status, type, text: t.text, ...(t.trimmed ? { trimmed: true } : {}) }
    }
  }
  return out
}

/** Fields whose values change from one answer to the next (time, uptime, load time): compared as present, not by value. */
export const VOLATILE_FIELDS = new Set(['timestamp', 'uptime_s', 'load_ms', 'built_at'])

/** `value` with the volatile fields' values replaced by a marker, so two recordings compare equal. */
export function withoutVolatile(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutVolatile)
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = VOLATILE_FIELDS.has(k) ? '(volatile)' : withoutVolatile(v)
    return out
  }
  return value
}
