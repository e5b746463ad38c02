/**
 * The problem catalogue (RFC 9457 problem details): every error the service sends is one of
 * these types. The errors plugin renders them; the OpenAPI document lists them.
 */
export const PROBLEMS = {
  validation: { type: '/errors/validation-error', title: 'Validation Error', status: 400 },
  unauthorized: { type: '/errors/unauthorized', title: 'Unauthorized', status: 401 },
  notFound: { type: '/errors/not-found', title: 'Not Found', status: 404 },
  methodNotAllowed: { type: '/errors/method-not-allowed', title: 'Method Not Allowed', status: 405 },
  requestTimeout: { type: '/errors/request-timeout', title: 'Request Timeout', status: 408 },
  payloadTooLarge: { type: '/errors/payload-too-large', title: 'Payload Too Large', status: 413 },
  unsupportedMediaType: { type: '/errors/unsupported-media-type', title: 'Unsupported Media Type', status: 415 },
  rateLimited: { type: '/errors/rate-limit-exceeded', title: 'Rate Limit Exceeded', status: 429 },
  internal: { type: '/errors/internal', title: 'Internal Server Error', status: 500 },
  unavailable: { type: '/errors/service-unavailable', title: 'Service Unavailable', status: 503 },
} as const

export type ProblemKind = keyof typeof PROBLEMS

/** One bad parameter in a 400: `parameter` is the query/body name, `message` says what is wrong. */
export interface ParamError {
  parameter: string
  message: string
}

export interface ProblemBody {
  type: string
  title: string
  status: number
  detail: string
  retryAfter?: number
  errors?: ParamError[]
}

/** Thrown anywhere; rendered once by plugins/errors. */
export class ProblemError extends Error {
  readonly kind: ProblemKind
  readonly status: number
  readonly errors?: ParamError[]
  readonly retryAfter?: number
  readonly headers?: Record<string, string>

  constructor(kind: ProblemKind, detail: string, extra: { errors?: ParamError[]; retryAfter?: number; headers?: Record<string, string> } = {}) {
    super(detail)
    this.kind = kind
    this.status = PROBLEMS[kind].status
    this.errors = extra.errors
    this.retryAfter = extra.retryAfter
    this.headers = extra.headers
  }

  body(): ProblemBody {
    const p = PROBLEMS[this.kind]
    const body: ProblemBody = { type: p.type, title: p.title, status: p.status, detail: this.message }
    if (this.retryAfter !== undefined) body.retryAfter = this.retryAfter
    if (this.errors && this.errors.length) body.errors = this.errors
    return body
  }
}

/** 400 naming every bad parameter at once (decisions.md, Errors). */
export function validationError(errors: ParamError[]): ProblemError {
  const names = [...new Set(errors.map((e) => e.parameter))].join(', ')
  return new ProblemError('validation', `The request has invalid parameters: ${names}.`, { errors })
}

export function notFound(detail: string): ProblemError {
  return new ProblemError('notFound', detail)
}
