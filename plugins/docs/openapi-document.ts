import { PROBLEMS, type ProblemKind } from '../../src/http/problems'
import type { RouteDoc } from '../../src/http/route-docs'
import { cleanSchema } from './clean-schema'
import { SharedSchemas } from './shared-schemas'
import { RATELIMIT_DRAFT } from '../../src/limits/ratelimit-fields'
import { SERVICE_VERSION } from '../../src/service-version'

/**
 * The OpenAPI 3.1 document of the whole interface, generated from the route registry
 * (src/http/route-docs.ts: the same TypeBox schemas that validate requests) and the problem
 * catalogue (src/http/problems.ts), so the description cannot drift from the server.
 */
export const MEDIA_TYPES = ['application/json', 'text/json', 'text/plain'] as const

const ProblemSchema = {
  type: 'object',
  description: 'RFC 9457 problem document',
  required: ['type', 'title', 'status', 'detail'],
  properties: {
    type: { type: 'string', description: 'Error type path, e.g. /errors/validation-error' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string', description: 'Human-readable explanation' },
    retryAfter: { type: 'integer', description: 'Only on 429: seconds until requests are allowed again' },
    errors: {
      type: 'array',
      description: 'Only on 400: every bad parameter',
      items: {
        type: 'object',
        required: ['parameter', 'message'],
        properties: { parameter: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
}

const RATE_HEADERS = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
  RateLimit: { $ref: '#/components/headers/RateLimit' },
}
const ID_HEADER = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } }

export function problemComponentName(kind: ProblemKind): string {
  return kind.charAt(0).toUpperCase() + kind.slice(1) + 'Problem'
}

function content(schema: unknown) {
  return Object.fromEntries(MEDIA_TYPES.map((m) => [m, { schema }]))
}

/** The shared parts; only the problem kinds some operation gives are listed (unused components are lint warnings). */
function components(kinds: Set<ProblemKind>, shared: SharedSchemas) {
  const schemas: Record<string, unknown> = { Problem: ProblemSchema, ...shared.byName }
  const responses: Record<string, unknown> = {}
  for (const [kind, p] of Object.entries(PROBLEMS) as Array<[ProblemKind, (typeof PROBLEMS)[ProblemKind]]>) {
    if (!kinds.has(kind)) continue
    const name = problemComponentName(kind)
    schemas[name] = {
      allOf: [
        { $ref: '#/components/schemas/Problem' },
        { type: 'object', properties: { type: { const: p.type }, title: { const: p.title }, status: { const: p.status } } },
      ],
    }
    const headers: Record<string, unknown> = kind === 'unauthorized' || kind === 'internal' ? { ...ID_HEADER } : { ...RATE_HEADERS, ...ID_HEADER }
    if (kind === 'rateLimited') headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' }
    responses[name] = { description: `${p.title} (${p.type})`, headers, content: content({ $ref: `#/components/schemas/${name}` }) }
  }
  return {
    securitySchemes: {
      apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: '`mv_live_` followed by 40 lower-case hex characters' },
      apiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key', description: 'The same key as a query parameter: accepted on the v1 compatibility paths only' },
    },
    headers: {
      'X-RateLimit-Limit': { description: 'Requests allowed in the current UTC hour', schema: { type: 'integer' } },
      'X-RateLimit-Remaining': { description: 'Requests left in the current UTC hour', schema: { type: 'integer' } },
      'X-RateLimit-Reset': { description: 'Unix time (seconds) of the next top of the hour', schema: { type: 'integer' } },
      'RateLimit-Policy': {
        description: `The key's quota policies as a structured-field list (${RATELIMIT_DRAFT}): \`"hour";q=10000;w=3600, "day";q=100000;w=86400\``,
        schema: { type: 'string' },
      },
      RateLimit: {
        description: `Remaining quota of the policy nearest to exhaustion (${RATELIMIT_DRAFT}), e.g. \`"hour";r=9999;t=1520\` (r = remaining, t = seconds until the window resets)`,
        schema: { type: 'string' },
      },
      'Retry-After': { description: 'Seconds until a request may succeed', schema: { type: 'integer' } },
      ETag: { description: 'Weak validator of the answer (index version + normalised request)', schema: { type: 'string' } },
      'Cache-Control': { description: 'Caching rules of the answer (`private` on keyed answers)', schema: { type: 'string' } },
      'X-Request-Id': { description: 'The request id: the one the client sent when valid (1-128 of A-Z a-z 0-9 . _ : -), else a new one; also in the access log', schema: { type: 'string' } },
    },
    schemas,
    responses,
  }
}

const KIND_BY_STATUS = new Map<number, ProblemKind>(Object.entries(PROBLEMS).map(([k, p]) => [p.status, k as ProblemKind]))

function operation(r: RouteDoc, kinds: Set<ProblemKind>, shared: SharedSchemas) {
  const keyed = r.keyed !== false
  const parameters: unknown[] = []
  for (const [where, obj] of [['path', r.params], ['query', r.query]] as const) {
    if (!obj) continue
    const required = new Set(obj.required ?? [])
    for (const [name, schema] of Object.entries(obj.properties ?? {})) {
      const s = cleanSchema(schema)
      const { description, ...rest } = s
      parameters.push({ name, in: where, required: where === 'path' || required.has(name), ...(description ? { description } : {}), schema: rest })
    }
  }
  const responses: Record<string, unknown> = {}
  const problem = (status: number, kind: ProblemKind, description?: string) => {
    kinds.add(kind)
    responses[status] = { $ref: `#/components/responses/${problemComponentName(kind)}`, ...(description ? { description } : {}) }
  }
  for (const [status, resp] of Object.entries(r.responses)) {
    const code = Number(status)
    const kind = KIND_BY_STATUS.get(code)
    if (!resp.schema && kind) {
      problem(code, kind, resp.description)
      continue
    }
    const headers: Record<string, unknown> = keyed ? { ...RATE_HEADERS, ...ID_HEADER } : { ...ID_HEADER }
    if (code === 200 && r.method === 'GET' && keyed) Object.assign(headers, r.conditional === false ? {} : { ETag: { $ref: '#/components/headers/ETag' } }, { 'Cache-Control': { $ref: '#/components/headers/Cache-Control' } })
    if (resp.headers) Object.assign(headers, resp.headers)
    const media = resp.mediaTypes
      ? Object.fromEntries(resp.mediaTypes.map((m) => [m, { schema: { type: 'string', description: `A ${m} body` } }]))
      : resp.mediaType ? { [resp.mediaType]: { schema: resp.schema ? shared.refer(cleanSchema(resp.schema)) : { type: 'string' } } } : resp.schema ? content(shared.refer(cleanSchema(resp.schema))) : undefined
    responses[status] = { description: resp.description, headers, ...(media ? { content: media } : {}) }
  }
  const add = (status: number, kind: ProblemKind) => {
    if (!(status in responses)) problem(status, kind)
  }
  if (keyed && r.method === 'GET' && r.conditional !== false)
    responses['304'] ??= { description: 'Not Modified: If-None-Match matched the current ETag. No body; not counted.', headers: { ETag: { $ref: '#/components/headers/ETag' }, ...RATE_HEADERS, ...ID_HEADER } }
  if (r.query || r.params || r.body) add(400, 'validation')
  if (keyed) {
    add(401, 'unauthorized')
    add(429, 'rateLimited')
  }
  // Any request announcing a body over MAX_BODY_BYTES is refused before routing (plugins/content-type/body-limit.ts).
  add(413, 'payloadTooLarge')
  add(500, 'internal')
  const op: Record<string, unknown> = {
    operationId: r.operationId ?? operationId(r),
    summary: r.summary,
    ...(r.description ? { description: r.description } : {}),
    ...(r.tags?.length ? { tags: r.tags } : {}),
    ...(parameters.length ? { parameters } : {}),
    responses,
  }
  if (!keyed) op.security = []
  else if (r.keyInQuery) op.security = [{ apiKey: [] }, { apiKeyQuery: [] }]
  if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: cleanSchema(r.body) } } }
  return op
}

function operationId(r: RouteDoc): string {
  const words = r.path
    .split('/')
    .filter((s) => s && s !== 'api' && s !== 'v2')
    .map((s) => (s.startsWith(':') ? 'By' + cap(s.slice(1)) : cap(s.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : '')))))
  // `/` is the landing page; `/api/v2` the API root.
  return r.method.toLowerCase() + (words.join('') || (r.path === '/' ? 'Landing' : 'Root'))
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1)
}

const TAG_DESCRIPTIONS: Record<string, string> = {
  photos: 'Photo search, statistics, batch lookup and single photos',
  rovers: 'The rovers, their mission dates and photo counts',
  cameras: 'Cameras and the rovers that carry them',
  locations: 'Places (site and drive) where a rover took photos',
  panoramas: 'Panoramas detected from camera pointing',
  service: 'Discovery, documentation and health',
}

export function openApiDocument(routes: RouteDoc[], serverUrl: string, tagDescription: (name: string) => string | undefined = () => undefined): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {}
  const tags = new Set<string>()
  const kinds = new Set<ProblemKind>()
  const shared = new SharedSchemas()
  for (const r of routes) {
    const p = r.path.replace(/:([A-Za-z0-9_]+)\??/g, '{$1}')
    ;(paths[p] ??= {})[r.method.toLowerCase()] = operation(r, kinds, shared)
    for (const t of r.tags ?? []) tags.add(t)
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Mars rover photo query API',
      version: SERVICE_VERSION,
      license: { name: 'Photo metadata: NASA/JPL-Caltech, public domain', url: 'https://www.nasa.gov/nasa-brand-center/images-and-media/' },
      description: [
        'Read-only query service over Mars rover photo metadata.',
        '',
        '**Authentication**: every path under `/api` needs the header `X-API-Key` (this document and its viewer excepted). A missing key and an invalid key both give 401 `/errors/unauthorized`, with different details.',
        '',
        '**Limits** per key: 10,000 requests per UTC hour, 100,000 per UTC day, 50 in flight, 5 open photo streams (`STREAMS_PER_KEY`; with Redis, on every instance together). Every answered call counts, errors included; 304 answers, `/health` and refused (429) calls do not. `X-RateLimit-Limit`, `-Remaining` and `-Reset` describe the hourly window on every keyed answer.',
        '',
        '**Bodies**: every success body is a JSON object with `data`, except the feeds of new photos (`/api/v2/photos/feed.atom`: an Atom document; `/api/v2/photos/feed.json`: a JSON Feed object) and the stream (`/api/v2/photos/stream`: Server-Sent Events), whose body is that format itself. The feeds also take `feed_token` (from the dashboard) in place of the key.',
        '',
        '**Errors** are RFC 9457 problem documents. **Media types**: `application/json` by default; `text/json` or `text/plain` when `Accept` asks for them, for answers and errors alike.',
        '',
        '**Conditional requests**: GET answers carry a weak `ETag`; `If-None-Match` with a current tag (or `*`) gives 304 with no body.',
        '',
        `**Rate-limit fields**: beside \`X-RateLimit-*\`, every keyed answer carries \`RateLimit-Policy\` and \`RateLimit\` as defined by ${RATELIMIT_DRAFT} (policies \`hour\` and \`day\`).`,
        '',
        '**Other methods**: a method a path does not serve gives 405 `/errors/method-not-allowed` with an `Allow` header listing the ones it does. No request gets 406: an `Accept` asking for something else is answered with `application/json`.',
        '',
        '**Compression**: answers over 1 KB are sent with `Content-Encoding` `zstd`, `br` or `gzip` when `Accept-Encoding` allows it (`Vary: Accept-Encoding`).',
        '',
        '**Browsers**: cross-origin access only from the origins the operator lists in `CORS_ORIGINS`. Never put an API key in code that ships to a browser: call the API from your own server.',
      ].join('\n'),
    },
    servers: [{ url: serverUrl }],
    security: [{ apiKey: [] }],
    tags: [...tags].sort().map((name) => ({ name, description: tagDescription(name) ?? TAG_DESCRIPTIONS[name] ?? name })),
    paths,
    components: components(kinds, shared),
  }
}
