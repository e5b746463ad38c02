import { Type, type TObject } from '@sinclair/typebox'
import { notFound, validationError, type ParamError } from '../../src/http/problems'
import { ROVERS, roverCode } from '../../src/catalog/rovers'
import { checkRange, echo, numberParam, readParam, SOL_MAX_PARAM, SOL_MIN_PARAM, type ParamSpec } from '../../src/query/params/param-parsers'

/**
 * Parameters of GET /rovers/{slug}/journey and /traverse (behaviour.md §16.2, §16.3): sol bounds
 * inclusive, `format` json | geojson, `simplify` a Douglas–Peucker tolerance in metres. Every
 * bad parameter is named in one 400 (decisions.md, Errors); an unknown rover is 404.
 */
export const FORMATS = ['json', 'geojson'] as const
export type Format = (typeof FORMATS)[number]

/** Up to 100 km: wider than any rover's whole traverse, so larger values change nothing. */
export const MAX_SIMPLIFY_M = 100_000

const SIMPLIFY_PARAM = numberParam('simplify', 0, MAX_SIMPLIFY_M, 'Douglas–Peucker tolerance in metres: points within this distance of the simplified line are dropped. 0 or absent: every point.')

const FORMAT_PARAM: ParamSpec<Format> = {
  name: 'format',
  schema: Type.Union(FORMATS.map((f) => Type.Literal(f)), { description: 'json (default) or geojson: an RFC 7946 FeatureCollection, served as application/geo+json.' }),
  parse(raw: string, errors: ParamError[]) {
    const v = raw.toLowerCase()
    if ((FORMATS as readonly string[]).includes(v)) return v as Format
    errors.push({ parameter: 'format', message: `must be one of ${FORMATS.join(', ')}, got "${echo(raw)}"` })
    return undefined
  },
}

export interface WindowParams {
  solMin?: number
  solMax?: number
}

export interface TraverseParams extends WindowParams {
  format: Format
  simplify?: number
}

/** Rover code of a path slug (case-insensitive), or 404. */
export function roverOfSlug(slug: string): number {
  const code = roverCode(slug.toLowerCase())
  if (code < 0) throw notFound(`No rover has the slug "${slug.slice(0, 40)}". Rovers: ${ROVERS.map((r) => r.slug).join(', ')}.`)
  return code
}

export function readJourneyParams(params: URLSearchParams): WindowParams {
  const errors: ParamError[] = []
  const w = readWindow(params, errors)
  if (errors.length) throw validationError(errors)
  return w
}

export function readTraverseParams(params: URLSearchParams): TraverseParams {
  const errors: ParamError[] = []
  const w = readWindow(params, errors)
  const format = readParam(params, FORMAT_PARAM, errors) ?? 'json'
  const simplify = readParam(params, SIMPLIFY_PARAM, errors)
  if (errors.length) throw validationError(errors)
  return { ...w, format, simplify: simplify || undefined }
}

/** The format a traverse request asks for (json when absent); undefined when `format` is invalid. */
export function traverseFormat(params: URLSearchParams): Format | undefined {
  const errors: ParamError[] = []
  const f = readParam(params, FORMAT_PARAM, errors)
  return errors.length ? undefined : (f ?? 'json')
}

function readWindow(params: URLSearchParams, errors: ParamError[]): WindowParams {
  const solMin = readParam(params, SOL_MIN_PARAM, errors)
  const solMax = readParam(params, SOL_MAX_PARAM, errors)
  checkRange('sol_min', solMin, solMax, errors)
  return { solMin, solMax }
}

export const JOURNEY_QUERY: TObject = Type.Object({ sol_min: Type.Optional(SOL_MIN_PARAM.schema), sol_max: Type.Optional(SOL_MAX_PARAM.schema) })

export const TRAVERSE_QUERY: TObject = Type.Object({
  sol_min: Type.Optional(SOL_MIN_PARAM.schema),
  sol_max: Type.Optional(SOL_MAX_PARAM.schema),
  format: Type.Optional(FORMAT_PARAM.schema),
  simplify: Type.Optional(SIMPLIFY_PARAM.schema),
})
