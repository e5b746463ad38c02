import { Type, type TObject } from '@sinclair/typebox'
import { ProblemError, validationError, type ParamError, type ProblemBody } from '../http/problems'
import { paramOf } from '../http/route'
import type { RouteAnswer, RouteDocs } from '../http/route-docs'
import { fillTimestamp } from '../query/render/envelope'
import { checkRange, firstValues, readParam, SOL_MAX_PARAM, SOL_MIN_PARAM } from '../query/params/param-parsers'
import type { Store } from '../store/store'
import { compactList, COMPACT_INCLUDE } from './compact-photos'
import { inputSchemaOf, sortArguments, type ArgumentGroup, type InputSchema } from './tool-schema'

/** What every tool call of one MCP message answers from: the facts the route handlers answer from. */
export interface ToolContext {
  /** The snapshot the /mcp request pinned: every call of one message answers from one index version. */
  store: Store
  /** The absolute origin of the answers' links, decided as for any route (src/http/links.ts). */
  base: string
}

/** What a tool answers: JSON text, or an error a model can act on. */
export interface ToolResult {
  [key: string]: unknown
  content: { type: 'text'; text: string }[]
  isError?: boolean
}

export interface CatalogueTool {
  name: string
  description: string
  inputSchema: InputSchema
  run(args: Record<string, unknown>, context: ToolContext): ToolResult
}

/** Rows a search answers unless per_page says otherwise: enough to act on, little enough not to flood a model's context. */
export const DEFAULT_ROWS = 25
/** The widest sol window one rover_manifest call answers. */
export const MANIFEST_MAX_SOLS = 500
/** Douglas–Peucker tolerance (metres) of rover_traverse unless simplify says otherwise. */
export const DEFAULT_SIMPLIFY_M = 25

/**
 * One tool answering as one declared route: its arguments are the route's declared query
 * parameters, its path parameter (required) and its body's properties, plus `own` arguments of
 * the tool; it answers through the route's in-process answer (RouteAnswer), the function the
 * route's HTTP handler answers through, so the tool's answer is the API's.
 */
export interface RouteToolSpec {
  name: string
  /** Written for a model: what the tool answers and when to use it. */
  description: string
  method?: 'GET' | 'POST'
  /** The route's Elysia path, as declared (e.g. `/api/v2/rovers/:slug/traverse`). */
  path: string
  /** Arguments of the tool itself, never passed to the route (read by `adjust` and `shape`). */
  own?: TObject
  /** Sets the tool's defaults in the route's query and checks the tool's own arguments (an error pushed refuses the call). */
  adjust?: (query: URLSearchParams, own: URLSearchParams, errors: ParamError[]) => void
  /** The tool's answer from the route's (parsed JSON); the route's answer as it is when absent. */
  shape?: (body: any, query: URLSearchParams, own: URLSearchParams) => unknown
}

/** A tool from its spec, its schema and answer read from the route's declaration in `docs`. */
export function routeTool(docs: RouteDocs, spec: RouteToolSpec): CatalogueTool {
  const method = spec.method ?? 'GET'
  const doc = docs.lookup(method, spec.path)
  const answer = docs.answerOf(method, spec.path)
  if (doc === undefined || answer === undefined) throw new Error(`MCP tool ${spec.name}: ${method} ${spec.path} is not a declared route with an in-process answer`)
  const pathName = paramOf(spec.path)
  const pathSchema = pathName === undefined ? undefined : doc.params?.properties[pathName]
  if (pathName !== undefined && pathSchema === undefined) throw new Error(`MCP tool ${spec.name}: ${spec.path} does not declare its parameter ${pathName}`)
  const groups: ArgumentGroup[] = [{ place: 'query', schema: doc.query }]
  if (pathName !== undefined) groups.unshift({ place: 'path', schema: Type.Object({ [pathName]: pathSchema! }), required: [pathName] })
  if (method === 'POST') groups.push({ place: 'body', schema: isObject(doc.body) ? doc.body : undefined })
  if (spec.own) groups.push({ place: 'own', schema: spec.own })
  const { schema, places } = inputSchemaOf(groups)
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: schema,
    run(args, { store, base }) {
      const errors: ParamError[] = []
      const a = sortArguments(args, schema, places, errors)
      spec.adjust?.(a.query, a.own, errors)
      if (errors.length) return problem(validationError(errors).body())
      return answered(() => answer(store, a.query, base, a.path ?? '', method === 'POST' ? a.body : undefined), spec.shape && ((body) => spec.shape!(body, a.query, a.own)))
    },
  }
}

function isObject(schema: unknown): schema is TObject {
  return typeof schema === 'object' && schema !== null && (schema as { type?: unknown }).type === 'object'
}

const text = (value: unknown, isError = false): ToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value) }], ...(isError ? { isError } : {}) })

/**
 * The problem document of a refused call as a tool error: the status, title and detail, and the
 * per-argument errors (each names the argument and what it allows), as the HTTP API's 400/404.
 */
export function problem(body: ProblemBody): ToolResult {
  return text({ status: body.status, title: body.title, detail: body.detail, ...(body.errors ? { errors: body.errors } : {}) }, true)
}

/** The route's answer with its timestamp, through `shape`; a problem it throws as a tool error. */
function answered(compute: () => string, shape?: (body: any) => unknown): ToolResult {
  let json: string
  try {
    json = fillTimestamp(compute())
  } catch (e) {
    if (e instanceof ProblemError) return problem(e.body())
    throw e
  }
  return shape ? text(shape(JSON.parse(json))) : { content: [{ type: 'text', text: json }] }
}

const PHOTOS = '/api/v2/photos'

/**
 * The catalogue's tools, their schemas and answers read from the app's declared routes. A tool
 * for another route is one more routeTool entry naming it (the route needs an in-process
 * answer: a `render` route has one, a `handle` route declares `answer`).
 */
export function catalogueTools(docs: RouteDocs): CatalogueTool[] {
  return [
    routeTool(docs, {
      name: 'search_photos',
      path: PHOTOS,
      description:
        `Search photos by rover, camera, sol, Earth date, Mars local time, site/drive, place and more (filters combine with AND). ` +
        `Answers {total, count, next_cursor, photos}: ${DEFAULT_ROWS} compact rows unless per_page says otherwise (at most 100), each ` +
        `{id, rover, camera, sol, earth_date, date_taken_mars, img_src, site, drive}. For the next rows call again with the same ` +
        `arguments and cursor = next_cursor (null: no more). fields or field_set give rows with those attributes instead; ` +
        `get_photos gives full records; photo_stats counts without rows.`,
      adjust: (query) => {
        if (!query.has('per_page')) query.set('per_page', String(DEFAULT_ROWS))
        // The rows name their rover and camera: the relationships `include` adds.
        const include = new Set((query.get('include') ?? '').split(',').map((s) => s.trim()).filter(Boolean))
        for (const r of COMPACT_INCLUDE) include.add(r)
        query.set('include', [...include].join(','))
      },
      shape: (body, query) => compactList(body, query.has('fields') || query.has('field_set')),
    }),
    routeTool(docs, {
      name: 'get_photos',
      method: 'POST',
      path: `${PHOTOS}/batch`,
      description: 'Full records of photos by id (1 to 100 ids, e.g. from search_photos), in the order asked; unknown ids are listed in meta.ids_missing. fields / field_set choose the attributes.',
    }),
    routeTool(docs, {
      name: 'photo_stats',
      path: `${PHOTOS}/stats`,
      description: 'Counts of the photos matching any photo filters (as search_photos), grouped by camera (default), rover or sol, with percentages and the Earth-date period. Cheaper than paging through rows.',
    }),
    routeTool(docs, { name: 'list_rovers', path: '/api/v2/rovers', description: 'The four rovers: slug, name, status, landing and last dates, max sol and photo totals. Start here to learn the slugs.' }),
    routeTool(docs, {
      name: 'rover_manifest',
      path: '/api/v2/rovers/:slug/manifest',
      description:
        `A rover's mission manifest for a sol window: per sol, the Earth date, photo count and cameras, plus the rover's whole-mission totals. ` +
        `At most ${MANIFEST_MAX_SOLS} sols per call (sol_max defaults to sol_min + ${MANIFEST_MAX_SOLS - 1}). Use it to turn "the first week" or "around sol 1000" into sols.`,
      own: Type.Object({ sol_min: SOL_MIN_PARAM.schema, sol_max: Type.Optional(SOL_MAX_PARAM.schema) }),
      adjust: (_query, own, errors) => void solWindow(own, errors),
      shape: (body, _query, own) => {
        const w = solWindow(own, [])!
        return manifestWindow(body, w.min, w.max)
      },
    }),
    routeTool(docs, {
      name: 'rover_traverse',
      path: '/api/v2/rovers/:slug/traverse',
      description: `A rover's path from its waypoint tables for a sol window: distance, elevation gain and loss, bounding box and waypoints, simplified (simplify, metres; default ${DEFAULT_SIMPLIFY_M}).`,
      adjust: (query) => {
        if (!query.has('simplify')) query.set('simplify', String(DEFAULT_SIMPLIFY_M))
      },
    }),
    routeTool(docs, { name: 'list_cameras', path: '/api/v2/cameras', description: 'Every camera of every rover (abbreviation, full name, rovers) with photo counts: the abbreviations search_photos takes. Takes no arguments.' }),
    routeTool(docs, { name: 'find_locations', path: '/api/v2/locations', description: 'Places a rover photographed most (site and drive), with photo counts, sols and positions; filter by rover, sol and more.' }),
    routeTool(docs, { name: 'find_panoramas', path: '/api/v2/panoramas', description: 'Panorama sequences detected in the catalogue (one camera, one place, many frames), with their photos; filter by rover, sol and more.' }),
    routeTool(docs, {
      name: 'related_photos',
      path: '/api/v2/photos/:id/related',
      description:
        'What belongs with one photo: the other eye of its stereo pair, its observation sequence (first photos in exposure order, size) and the nearest photos taken on other sols within radius_m metres of where it was taken (default 50). The id comes from search_photos.',
    }),
  ]
}

/** The sol window of rover_manifest, read with the sol parameters' own parsers; undefined (and errors) when bad. */
function solWindow(own: URLSearchParams, errors: ParamError[]): { min: number; max: number } | undefined {
  const before = errors.length
  const src = firstValues(own)
  const min = readParam(src, SOL_MIN_PARAM, errors)
  const given = readParam(src, SOL_MAX_PARAM, errors)
  checkRange('sol_min', min, given, errors)
  if (errors.length > before || min === undefined) return undefined
  const max = given ?? min + MANIFEST_MAX_SOLS - 1
  if (max - min >= MANIFEST_MAX_SOLS) {
    errors.push({ parameter: 'sol_max', message: `the window is at most ${MANIFEST_MAX_SOLS} sols: sol_max <= ${min + MANIFEST_MAX_SOLS - 1}, got ${max}` })
    return undefined
  }
  return { min, max }
}

/** The manifest with only the sols in [min, max] (the rover's totals stay whole-mission). */
export function manifestWindow(body: any, min: number, max: number) {
  const a = body.data.attributes
  return { ...body, data: { ...body.data, attributes: { ...a, photos: a.photos.filter((p: { sol: number }) => p.sol >= min && p.sol <= max) } } }
}

