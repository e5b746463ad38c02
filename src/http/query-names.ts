import { ProblemError, type ParamError } from './problems'

/**
 * Query parameter names a route does not take (decisions.md, Filters: on /api/v2 such a name is a
 * 400 naming it, with the closest name the route takes, so a typo such as `rover=curiosity` never
 * silently answers every photo). Pure: the gate (plugins/query-names) and the ETag gate ask it
 * through the URL's memo (src/http/url-facts.ts), so one URL is judged once per route.
 */

/** Names listed in one 400 at most; the rest are counted. Bounds the work a hostile query can cause. */
const MAX_LISTED = 10
/** Names longer than this get no suggestion (the edit distance is quadratic in the lengths). */
const MAX_SUGGESTED_LENGTH = 64

/**
 * The parsed forms some machine-readable descriptions list beside the parameters (interface.md:
 * "derived parameters"). Never read from a client; a client that sends one meant the parameter.
 */
const DERIVED_NAMES: Readonly<Record<string, string>> = {
  RoverList: 'rovers',
  CameraList: 'cameras',
  SortFields: 'sort',
  FieldList: 'fields',
  IncludeList: 'include',
  DateMinParsed: 'date_min',
  DateMaxParsed: 'date_max',
  PageNumber: 'page',
  PageSize: 'per_page',
  MarsTimeMinParsed: 'mars_time_min',
  MarsTimeMaxParsed: 'mars_time_max',
  SampleTypeList: 'sample_type',
  AspectRatioParsed: 'aspect_ratio',
  FieldSetParsed: 'field_set',
  ImageSizesList: 'image_sizes',
}

/** The 400 for the names of `params` that `takes` does not hold, or null when it holds them all. */
export function unknownNamesProblem(takes: ReadonlySet<string>, params: URLSearchParams): ProblemError | null {
  const unknown: string[] = []
  let more = 0
  for (const name of params.keys()) {
    if (takes.has(name) || unknown.includes(name)) continue
    if (unknown.length < MAX_LISTED) unknown.push(name)
    else more++
  }
  if (unknown.length === 0) return null
  const errors: ParamError[] = unknown.map((name) => {
    const near = closestName(name, takes)
    return { parameter: shown(name), message: near === undefined ? 'is not a parameter of this endpoint' : `is not a parameter of this endpoint; did you mean "${near}"?` }
  })
  const listed = errors.map((e) => e.parameter).join(', ')
  const tail = more > 0 ? ` (and ${more} more)` : ''
  return new ProblemError('validation', `Unknown query parameter${unknown.length + more > 1 ? 's' : ''}: ${listed}${tail}. Names are lower-case as documented.`, { errors })
}

/**
 * The name `takes` holds that `name` most likely meant: the parameter a derived name is the parsed
 * form of; the same name in another case or with `-` for `_`; else the nearest by edit distance
 * (at most 2, and less than half the name), earlier declared first on a tie.
 */
export function closestName(name: string, takes: ReadonlySet<string>): string | undefined {
  const derived = DERIVED_NAMES[name]
  if (derived !== undefined && takes.has(derived)) return derived
  if (name.length > MAX_SUGGESTED_LENGTH) return undefined
  const folded = name.toLowerCase().replaceAll('-', '_')
  let best: string | undefined
  let bestDistance = Math.min(2, Math.ceil(folded.length / 2) - 1)
  for (const candidate of takes) {
    if (candidate === folded) return candidate
    if (Math.abs(candidate.length - folded.length) > bestDistance) continue
    const d = editDistance(folded, candidate, bestDistance)
    if (d < bestDistance || (d === bestDistance && best === undefined)) {
      best = candidate
      bestDistance = d
    }
  }
  return best
}

/** Levenshtein distance of a and b, or bound + 1 once it is known to exceed `bound`. */
function editDistance(a: string, b: string, bound: number): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    let rowMin = i
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
      cur.push(v)
      if (v < rowMin) rowMin = v
    }
    if (rowMin > bound) return bound + 1
    prev = cur
  }
  return prev[b.length]!
}

/** A client's name as echoed back: control characters replaced, at most 40 characters. */
function shown(name: string): string {
  const clean = name.replace(/[\u0000-\u001f\u007f]/g, '?')
  return clean.length > 40 ? `${clean.slice(0, 40)}…` : clean
}
