import { ProblemError, type ProblemBody } from '../http/problems'
import { roverCode } from '../catalog/rovers'

/**
 * v1 errors: still problem documents (one renderer, plugins/errors), with the member v1 clients
 * read, `errors`, as the string v1 sent (decisions.md, v1 layer). The list of bad parameters a
 * v2 problem carries in `errors` moves to `invalid_params` on v1 paths (RFC 9457 §3's example
 * extension name), so `errors` keeps v1's type.
 */
const V1_TEXT = new WeakMap<ProblemError, string>()

/** v1's own text for an unknown rover name. */
export const INVALID_ROVER = 'Invalid Rover Name'

/** Rover code of a v1 rover name (any case), or the 404 whose v1 `errors` is "Invalid Rover Name". */
export function v1Rover(name: string): number {
  const code = roverCode(name.toLowerCase())
  if (code >= 0) return code
  const p = new ProblemError('notFound', `No rover is named "${name.slice(0, 40)}". Rovers: Curiosity, Opportunity, Perseverance, Spirit.`)
  V1_TEXT.set(p, INVALID_ROVER)
  throw p
}

/** The body of `problem` as a v1 client gets it. */
export function v1ProblemBody(problem: ProblemError): ProblemBody & { invalid_params?: ProblemBody['errors'] } {
  const body = problem.body() as ProblemBody & { invalid_params?: ProblemBody['errors'] }
  const list = body.errors
  const text = V1_TEXT.get(problem) ?? (problem.kind === 'unauthorized' ? `${problem.message} (v1: or as the api_key query parameter)` : problem.message)
  delete body.errors
  ;(body as unknown as { errors: string }).errors = text
  if (list) body.invalid_params = list
  return body
}
