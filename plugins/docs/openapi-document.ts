import { PROBLEMS, type ProblemKind } from '../../src/http/problems'
import type { RouteDoc } from '../../src/http/route-docs'
import { cleanSchema } from './clean-schema'

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
}

export function problemComponentName(kind: ProblemKind): string {
  return kind.charAt(0).toUpperCase() + kind.slice(1) + 'Problem'
}

function content(schema: unknown) {
  return Object.fromEntries(MEDIA_TYPES.map((m) => [m, { schema }]))
}

function components() {
  const schemas: Record<string, unknown> = { Problem: ProblemSchema }
  const responses: Record<string, unknown> = {}
  for (const [kind, p] of Object.entries(PROBLEMS) as Array<[ProblemKind, (typeof PROBLEMS)[ProblemKind]]>) {
    const name = problemComponentName(kind)
    schemas[name] = {
      allOf: [
        { $ref: '#/components/schemas/Problem' },
        { type: 'object', properties: { type: { const: p.type }, title: { const: p.title }, status: { const: p.status } } },
      ],
    }
    const headers: Record<string, unknown> = kind === 'unauthorized' ? {} : { ...RATE_HEADERS }
    if (kind === 'rateLimited') headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' }
    if (kind === 'methodNotAllowed') headers['Allow'] = { description: 'Methods the path supports', schema: { type: 'string' } }
    responses[name] = { description: `${p.title} (${p.type})`, headers, content: content({ $ref: `#/components/schemas/${name}` }) }
  }
  return {
    securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: '`mv_live_` followed by 40 lower-case hex characters' } },
    headers: {
      'X-RateLimit-Limit': { description: 'Requests allowed in the current UTC hour', schema: { type: 'integer' } },
      'X-RateLimit-Remaining': { description: 'Requests left in the current UTC hour', schema: { type: 'integer' } },
      'X-RateLimit-Reset': { description: 'Unix time (seconds) of the next top of the hour', schema: { type: 'integer' } },
      'Retry-After': { description: 'Seconds until a request may succeed', schema: { type: 'integer' } },
      ETag: { description: 'Weak validator of the answer (index version + normalised request)', schema: { type: 'string' } },
      'Cache-Control': { schema: { type: 'string' } },
    },
    schemas,
    responses,
  }
}

const KIND_BY_STATUS = new Map<number, ProblemKind>(Object.entries(PROBLEMS).map(([k, p]) => [p.status, k as ProblemKind]))

function operation(r: RouteDoc) {
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
  for (const [status, resp] of Object.entries(r.responses)) {
    const code = Number(status)
    const kind = KIND_BY_STATUS.get(code)
    if (!resp.schema && kind) {
      responses[status] = { $ref: `#/components/responses/${problemComponentName(kind)}` }
      continue
    }
    const headers: Record<string, unknown> = keyed ? { ...RATE_HEADERS } : {}
    if (code === 200 && r.method === 'GET' && keyed) Object.assign(headers, { ETag: { $ref: '#/components/headers/ETag' }, 'Cache-Control': { $ref: '#/components/headers/Cache-Control' } })
    responses[status] = { description: resp.description, ...(Object.keys(headers).length ? { headers } : {}), ...(resp.schema ? { content: content(cleanSchema(resp.schema)) } : {}) }
  }
  const add = (status: number, kind: ProblemKind) => {
    if (!(status in responses)) responses[status] = { $ref: `#/components/responses/${problemComponentName(kind)}` }
  }
  if (keyed && r.method === 'GET')
    responses['304'] ??= { description: 'Not Modified: If-None-Match matched the current ETag. No body; not counted.', headers: { ETag: { $ref: '#/components/headers/ETag' }, ...RATE_HEADERS } }
  if (r.query || r.params || r.body) add(400, 'validation')
  if (keyed) {
    add(401, 'unauthorized')
    add(429, 'rateLimited')
  }
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
  if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: cleanSchema(r.body) } } }
  return op
}

function operationId(r: RouteDoc): string {
  const words = r.path
    .split('/')
    .filter((s) => s && s !== 'api' && s !== 'v2')
    .map((s) => (s.startsWith(':') ? 'By' + cap(s.slice(1)) : cap(s.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : '')))))
  return r.method.toLowerCase() + (words.join('') || 'Root')
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1)
}

export function openApiDocument(routes: RouteDoc[], serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {}
  const tags = new Set<string>()
  for (const r of routes) {
    const p = r.path.replace(/:([A-Za-z0-9_]+)\??/g, '{$1}')
    ;(paths[p] ??= {})[r.method.toLowerCase()] = operation(r)
    for (const t of r.tags ?? []) tags.add(t)
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Mars rover photo query API',
      version: '2.0.0',
      description: [
        'Read-only query service over Mars rover photo metadata.',
        '',
        '**Authentication**: every path under `/api` needs the header `X-API-Key` (this document and its viewer excepted). A missing key and an invalid key both give 401 `/errors/unauthorized`, with different details.',
        '',
        '**Limits** per key: 10,000 requests per UTC hour, 100,000 per UTC day, 50 in flight. Every answered call counts, errors included; 304 answers, `/health` and refused (429) calls do not. `X-RateLimit-Limit`, `-Remaining` and `-Reset` describe the hourly window on every keyed answer.',
        '',
        '**Errors** are RFC 9457 problem documents. **Media types**: `application/json` by default; `text/json` or `text/plain` when `Accept` asks for them, for answers and errors alike.',
        '',
        '**Conditional requests**: GET answers carry a weak `ETag`; `If-None-Match` with a current tag (or `*`) gives 304 with no body.',
      ].join('\n'),
    },
    servers: [{ url: serverUrl }],
    security: [{ apiKey: [] }],
    tags: [...tags].sort().map((name) => ({ name })),
    paths,
    components: components(),
  }
}
