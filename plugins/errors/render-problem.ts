import type { ProblemError } from '../../src/http/problems'
import { negotiateMediaType } from '../content-type/negotiate'

/**
 * The one place a problem document (RFC 9457 §3.1: type, title, status, detail; plus
 * `retryAfter` on 429 and `errors` on 400) is serialised, in the media type Accept asks for.
 */
export function renderProblem(problem: ProblemError, accept: string | null, extra?: Record<string, string>): Response {
  const headers: Record<string, string> = { 'content-type': negotiateMediaType(accept, true), vary: 'Accept', 'x-content-type-options': 'nosniff' }
  if (extra) Object.assign(headers, extra)
  if (problem.headers) Object.assign(headers, problem.headers)
  return new Response(JSON.stringify(problem.body()), { status: problem.status, headers })
}
