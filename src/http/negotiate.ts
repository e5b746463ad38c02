import { acceptRanges } from './accept-ranges'
/**
 * Media type of a JSON body from the request's Accept header (decisions.md, Errors: `text/json`
 * or `text/plain` when Accept chooses them, anything else `application/json`; never 406).
 *
 * Accept is read as RFC 9110 §12.5.1 lists of media ranges with q-values. Only an explicit,
 * exact mention counts: the offered type with the highest q wins, ties go to the order of
 * OFFERED; wildcards (`*\/*`, `text/*`), q=0 and anything unparsable fall back to the default.
 */
export const JSON_TYPE = 'application/json; charset=utf-8'

const OFFERED = ['application/json', 'text/json', 'text/plain'] as const
/** Problem documents may also be asked for as RFC 9457 §3 `application/problem+json`. */
const OFFERED_FOR_PROBLEMS = ['application/json', 'application/problem+json', 'text/json', 'text/plain'] as const

const memo = new Map<string, string>()
const memoProblem = new Map<string, string>()
const MEMO_MAX = 512

export function negotiateMediaType(accept: string | null, problem = false): string {
  if (!accept) return JSON_TYPE
  const cache = problem ? memoProblem : memo
  let type = cache.get(accept)
  if (type === undefined) {
    type = choose(accept, problem ? OFFERED_FOR_PROBLEMS : OFFERED)
    if (cache.size >= MEMO_MAX) cache.clear()
    cache.set(accept, type)
  }
  return type
}

function choose(accept: string, offered: readonly string[]): string {
  let best: string | undefined
  let bestQ = 0
  let bestRank = Infinity
  for (const { type, q } of acceptRanges(accept)) {
    const rank = offered.indexOf(type)
    if (rank < 0) continue
    if (q > bestQ || (q === bestQ && q > 0 && rank < bestRank)) {
      best = type
      bestQ = q
      bestRank = rank
    }
  }
  return best && bestQ > 0 ? `${best}; charset=utf-8` : JSON_TYPE
}
