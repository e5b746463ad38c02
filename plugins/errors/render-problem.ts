import type { ProblemError } from '../../src/http/problems'
import { negotiateMediaType } from '../../src/http/negotiate'
import { v1ProblemBody } from '../../src/v1/v1-errors'

/**
 * The one place a problem document (RFC 9457 §3.1: type, title, status, detail; plus
 * `retryAfter` on 429 and `errors` on 400) is serialised, in the media type Accept asks for.
 * On v1 paths the body is the v1 variant (src/v1/v1-errors.ts: `errors` is v1's string).
 */
export function renderProblem(problem: ProblemError, accept: string | null, extra?: Record<string, string>, v1 = false, requestId?: string, onText?: (text: string) => void): Response {
  const headers: Record<string, string> = { 'content-type': negotiateMediaType(accept, true), vary: 'Accept', 'x-content-type-options': 'nosniff' }
  if (extra) Object.assign(headers, extra)
  if (problem.headers) Object.assign(headers, problem.headers)
  if (requestId !== undefined) headers['x-request-id'] = requestId
  const text = JSON.stringify(v1 ? v1ProblemBody(problem) : problem.body())
  onText?.(text) // the access log's byte count
  return new Response(text, { status: problem.status, headers })
}
