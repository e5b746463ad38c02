import { ProblemError, PROBLEMS, validationError, type ParamError, type ProblemKind } from '../../src/http/problems'
import type { RouteDocs } from '../../src/http/route-docs'
import { checkParameters, describeSchema } from './explain-validation'
import type { RouteTable } from './route-table'

export interface Thrown {
  /** Elysia's error code ('VALIDATION', 'PARSE', 'NOT_FOUND', ...), undefined for errors thrown in onRequest. */
  code: unknown
  error: unknown
  request: Request
}

/**
 * Any thrown value -> the problem to send (RFC 9457). `internal` is set when the error is ours
 * (a bug or a failure, not the client's input): the caller logs it and sends a generic 500.
 */
export function toProblem(t: Thrown, table: RouteTable, docs?: RouteDocs): { problem: ProblemError; internal?: unknown } {
  const { code, error, request } = t
  if (error instanceof ProblemError) return { problem: error }
  switch (code) {
    case 'VALIDATION': {
      // `GET /photos/batch` matches `GET /photos/:id`; a static path with other methods is a 405, not a bad id.
      const statics = table.staticMethodsAt(pathOf(request))
      if (statics.length > 0 && !statics.includes(request.method)) return { problem: methodNotAllowed(request.method, pathOf(request), statics) }
      if ((error as ElysiaValidation).type === 'body' && !isJson(request)) return { problem: notJson() }
      return { problem: validationError(explain(error as ElysiaValidation, request, table, docs)) }
    }
    case 'PARSE':
      if (!isJson(request)) return { problem: notJson() }
      return { problem: validationError([{ parameter: 'body', message: 'is not valid JSON' }]) }
    case 'NOT_FOUND':
      return { problem: notFoundOrMethod(request.method, pathOf(request), table) }
    case 'INVALID_FILE_TYPE':
      return { problem: new ProblemError('unsupportedMediaType', 'The request body has a media type this endpoint does not accept.') }
  }
  const status = statusOf(error)
  const kind = status ? KIND_BY_STATUS.get(status) : undefined
  if (kind && kind !== 'internal' && kind !== 'unavailable') return { problem: new ProblemError(kind, defaultDetail(kind)) }
  return { problem: new ProblemError('internal', 'The server failed to answer this request.'), internal: error }
}

const KIND_BY_STATUS = new Map<number, ProblemKind>(Object.entries(PROBLEMS).map(([k, p]) => [p.status, k as ProblemKind]))

function defaultDetail(kind: ProblemKind): string {
  switch (kind) {
    case 'validation':
      return 'The request is invalid.'
    case 'notFound':
      return 'The requested resource was not found.'
    default:
      return PROBLEMS[kind].title + '.'
  }
}

function statusOf(e: unknown): number | undefined {
  if (e && typeof e === 'object' && 'status' in e && typeof (e as { status: unknown }).status === 'number') return (e as { status: number }).status
  return undefined
}

/** 404, or 405 when routes of other methods answer at `path` (the path Elysia routed on). */
export function notFoundOrMethod(method: string, path: string, table: RouteTable): ProblemError {
  const allowed = table.methodsAt(path)
  if (allowed.length > 0 && !allowed.includes(method) && !(method === 'HEAD' && allowed.includes('GET'))) return methodNotAllowed(method, path, allowed)
  if (allowed.length > 0) return new ProblemError('notFound', 'The requested resource was not found.')
  return new ProblemError('notFound', `There is no resource at ${clip(path)}.`)
}

/**
 * RFC 9110 §15.5.6: a 405 carries Allow with every method the target supports, HEAD wherever
 * GET is served (RFC 9110 §9.3.2; decisions.md, Allow).
 */
export function methodNotAllowed(method: string, path: string, methods: string[]): ProblemError {
  const allowed = methods.includes('GET') && !methods.includes('HEAD') ? [...methods, 'HEAD'] : methods
  const list = [...new Set(allowed)].sort((a, b) => ORDER(a) - ORDER(b) || a.localeCompare(b)).join(', ')
  return new ProblemError('methodNotAllowed', `${clip(method)} is not allowed on ${clip(path)}; allowed: ${list}.`, {
    headers: { allow: list },
  })
}

/** GET, HEAD first (the usual order of Allow), then the rest alphabetically. */
const ORDER = (m: string) => (m === 'GET' ? 0 : m === 'HEAD' ? 1 : 2)

/** Request bodies are JSON (RFC 8259); `application/json` or any `+json` type. */
function isJson(request: Request): boolean {
  return /^\s*application\/([\w.-]+\+)?json\s*(;|$)/i.test(request.headers.get('content-type') ?? '')
}

/** decisions.md, Errors: a body that is not JSON is 415 /errors/unsupported-media-type (RFC 9110 §15.5.16). */
function notJson(): ProblemError {
  return new ProblemError('unsupportedMediaType', 'The request body must be JSON, sent with Content-Type: application/json.', {
    headers: { 'accept-post': 'application/json' },
  })
}

interface ElysiaValidation {
  type?: string
  value?: unknown
  all?: Array<{ path?: string; message?: string; summary?: string; schema?: Record<string, unknown>; value?: unknown }>
}

function explain(err: ElysiaValidation, request: Request, table: RouteTable, docs?: RouteDocs): ParamError[] {
  const url = new URL(request.url)
  const match = table.match(request.method, url.pathname)
  const doc = match ? docs?.lookup(request.method, match.pattern) : undefined
  const out: ParamError[] = []
  if (doc?.params && match) out.push(...checkParameters(doc.params, (n) => match.params[n]))
  if (doc?.query) out.push(...checkParameters(doc.query, (n) => url.searchParams.get(n)))
  if (out.length > 0) return out
  // Fallback: Elysia's own list, named as well as it can be.
  let all: NonNullable<ElysiaValidation['all']> = []
  try {
    all = err.all ?? []
  } catch {
    all = []
  }
  for (const e of all) {
    const parameter = nameOf(e.path, err.type, e.value, url.searchParams)
    const message = e.schema ? describeSchema(e.schema as never) : (e.summary ?? e.message ?? 'is invalid')
    if (!out.some((o) => o.parameter === parameter)) out.push({ parameter, message })
  }
  if (out.length === 0) out.push({ parameter: err.type === 'body' ? 'body' : 'query', message: 'is invalid' })
  return out
}

function nameOf(path: string | undefined, type: string | undefined, value: unknown, params: URLSearchParams): string {
  const p = (path ?? '').replace(/^\//, '').replace(/\//g, '.')
  if (p) return p
  if (type === 'body') return 'body'
  // Elysia's single-property query check reports no path: find the parameter by its value.
  if (value !== undefined) for (const [k, v] of params) if (v === String(value)) return k
  return type && type !== 'property' ? type : 'query'
}

function pathOf(request: Request): string {
  const u = request.url
  const start = u.indexOf('/', u.indexOf('//') + 2)
  if (start < 0) return '/'
  const q = u.indexOf('?', start)
  return q < 0 ? u.slice(start) : u.slice(start, q)
}

function clip(s: string): string {
  return s.length > 200 ? s.slice(0, 200) + '…' : s
}
