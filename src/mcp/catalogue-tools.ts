import type { RouteDocs } from '../http/route-docs'
import { SOL_MAX_PARAM, SOL_MIN_PARAM } from '../query/param-parsers'
import { inputSchemaOf, queryOf, type InputSchema } from './tool-schema'

/** One API request a tool makes: GET path?query, or POST with a JSON body. */
export type ApiCall = (path: string, query: URLSearchParams, body?: unknown) => Promise<Response>

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
  run(args: Record<string, unknown>, api: ApiCall): Promise<ToolResult>
}

const SLUG = { type: 'string', description: 'Rover slug: curiosity, opportunity, perseverance or spirit.' }
/** Rows a search answers unless per_page says otherwise: enough to act on, little enough not to flood a model's context. */
export const DEFAULT_ROWS = 25
/** The widest sol window one rover_manifest call answers. */
export const MANIFEST_MAX_SOLS = 500
/** Douglas–Peucker tolerance (metres) of rover_traverse unless simplify says otherwise. */
export const DEFAULT_SIMPLIFY_M = 25

const text = (value: unknown, isError = false): ToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value) }], ...(isError ? { isError } : {}) })

/**
 * The answer of an API request as a tool result: the JSON of a 200 through `shape`, or the
 * problem document's detail and its per-parameter errors (each names the argument and what it
 * allows) as a tool error.
 */
async function answer(res: Response, shape: (body: any) => unknown = (b) => b): Promise<ToolResult> {
  const body = (await res.json().catch(() => ({}))) as any
  if (res.ok) return text(shape(body))
  return text({ status: res.status, title: body.title, detail: body.detail, errors: body.errors }, true)
}

function unknownArgument(name: string, schema: InputSchema): ToolResult {
  return text({ status: 400, detail: `unknown argument "${name}"`, errors: [{ parameter: name, message: `not an argument of this tool; ${Object.keys(schema.properties).length ? `it takes: ${Object.keys(schema.properties).join(', ')}` : 'it takes none'}` }] }, true)
}

/**
 * A tool answering through one GET route: its arguments are the route's declared query
 * parameters (plus `slug` for a rover's route), passed on as the query string.
 */
function getTool(docs: RouteDocs, name: string, description: string, route: string, opts: { slug?: boolean; defaults?: Record<string, string>; shape?: (body: any) => unknown } = {}): CatalogueTool {
  const doc = docs.lookup('GET', route)
  if (doc === undefined) throw new Error(`MCP tool ${name}: no declared route GET ${route}`)
  const inputSchema = inputSchemaOf(doc.query, opts.slug ? { slug: SLUG } : {}, opts.slug ? ['slug'] : [])
  return {
    name,
    description,
    inputSchema,
    async run(args, api) {
      const q = queryOf(args, inputSchema, ['slug'])
      if ('unknown' in q) return unknownArgument(q.unknown, inputSchema)
      for (const [k, v] of Object.entries(opts.defaults ?? {})) if (!q.query.has(k)) q.query.set(k, v)
      const path = opts.slug ? route.replace(':slug', encodeURIComponent(String(args.slug ?? ''))) : route
      return answer(await api(path, q.query), opts.shape)
    },
  }
}

/** The compact form of a photo list: the rows, the total and the cursor of the next page. */
export function compactList(body: any) {
  return { total: body.meta.total_count, count: body.data.length, next_cursor: body.pagination?.cursor?.next ?? null, photos: body.data }
}

/** The catalogue's tools, their schemas read from the app's declared routes. */
export function catalogueTools(docs: RouteDocs): CatalogueTool[] {
  const batch = docs.lookup('POST', '/api/v2/photos/batch')
  if (batch === undefined) throw new Error('MCP tool get_photos: no declared route POST /api/v2/photos/batch')
  const batchSchema = inputSchemaOf(batch.query, { ids: { type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 100, description: 'Photo ids (from search_photos).' } }, ['ids'])
  const manifestSchema = inputSchemaOf(undefined, { slug: SLUG, sol_min: JSON.parse(JSON.stringify(SOL_MIN_PARAM.schema)), sol_max: JSON.parse(JSON.stringify(SOL_MAX_PARAM.schema)) }, ['slug', 'sol_min'])
  return [
    getTool(docs, 'search_photos', `Search photos by rover, camera, sol, date, Mars local time, site/drive, place and more; sort, fields and cursor as in the HTTP API. Answers {total, count, next_cursor, photos} with ${DEFAULT_ROWS} rows unless per_page says otherwise; pass next_cursor as cursor for the next page.`, '/api/v2/photos', {
      defaults: { per_page: String(DEFAULT_ROWS) },
      shape: compactList,
    }),
    {
      name: 'get_photos',
      description: 'Photos by id (up to 100), in the order asked; unknown ids are listed in meta.ids_missing. fields / field_set choose the attributes.',
      inputSchema: batchSchema,
      async run(args, api) {
        const q = queryOf(args, batchSchema, ['ids'])
        if ('unknown' in q) return unknownArgument(q.unknown, batchSchema)
        return answer(await api('/api/v2/photos/batch', q.query, { ids: args.ids }))
      },
    },
    getTool(docs, 'photo_stats', 'Counts of the photos matching any photo filters, grouped by camera (default), rover or sol, with percentages and the date period.', '/api/v2/photos/stats'),
    getTool(docs, 'list_rovers', 'The rovers: slug, name, status, landing and last dates, max sol, photo totals and cameras.', '/api/v2/rovers'),
    {
      name: 'rover_manifest',
      description: `A rover's mission manifest for a sol window: per sol, the earth date, photo count and cameras, plus the rover's totals. At most ${MANIFEST_MAX_SOLS} sols per call (sol_max defaults to sol_min + ${MANIFEST_MAX_SOLS - 1}).`,
      inputSchema: manifestSchema,
      async run(args, api) {
        const q = queryOf(args, manifestSchema)
        if ('unknown' in q) return unknownArgument(q.unknown, manifestSchema)
        const min = Number(args.sol_min)
        const max = args.sol_max === undefined ? min + MANIFEST_MAX_SOLS - 1 : Number(args.sol_max)
        const bad = (p: string, m: string) => text({ status: 400, detail: `invalid ${p}`, errors: [{ parameter: p, message: m }] }, true)
        if (!Number.isInteger(min) || min < 0) return bad('sol_min', 'must be an integer >= 0')
        if (!Number.isInteger(max) || max < min) return bad('sol_max', `must be an integer >= sol_min (${min})`)
        if (max - min >= MANIFEST_MAX_SOLS) return bad('sol_max', `the window is at most ${MANIFEST_MAX_SOLS} sols: sol_max <= ${min + MANIFEST_MAX_SOLS - 1}`)
        const path = `/api/v2/rovers/${encodeURIComponent(String(args.slug ?? ''))}/manifest`
        return answer(await api(path, new URLSearchParams()), (body) => manifestWindow(body, min, max))
      },
    },
    getTool(docs, 'rover_traverse', `A rover's path from its waypoint tables for a sol window: distance, elevation gain and loss, bounding box and waypoints, simplified (simplify, metres; default ${DEFAULT_SIMPLIFY_M}).`, '/api/v2/rovers/:slug/traverse', {
      slug: true,
      defaults: { simplify: String(DEFAULT_SIMPLIFY_M) },
    }),
    getTool(docs, 'list_cameras', 'Every camera of every rover (abbreviation, full name, rovers) with photo counts. Takes no arguments.', '/api/v2/cameras'),
    getTool(docs, 'find_locations', 'Places a rover photographed most (site and drive), with photo counts, sols and positions; filter by rover, sol and more.', '/api/v2/locations'),
    getTool(docs, 'find_panoramas', 'Panorama sequences detected in the catalogue (one camera, one place, many frames), with their photos; filter by rover, sol and more.', '/api/v2/panoramas'),
    relatedTool(docs),
  ]
}

/** related_photos: GET /api/v2/photos/{id}/related, its arguments the route's declared query parameters plus the photo id. */
function relatedTool(docs: RouteDocs): CatalogueTool {
  const route = '/api/v2/photos/:id/related'
  const doc = docs.lookup('GET', route)
  if (doc === undefined) throw new Error(`MCP tool related_photos: no declared route GET ${route}`)
  const inputSchema = inputSchemaOf(doc.query, { id: { type: 'integer', description: 'Photo id (from search_photos).' } }, ['id'])
  return {
    name: 'related_photos',
    description: 'What belongs with one photo: the other eye of its stereo pair, its observation sequence (first photos in exposure order, size) and the nearest photos taken on other sols within radius_m metres of where it was taken (default 50). A part the photo lacks is null.',
    inputSchema,
    async run(args, api) {
      const q = queryOf(args, inputSchema, ['id'])
      if ('unknown' in q) return unknownArgument(q.unknown, inputSchema)
      return answer(await api(route.replace(':id', encodeURIComponent(String(args.id ?? ''))), q.query))
    },
  }
}

/** The manifest with only the sols in [min, max] (the rover's totals stay whole-mission). */
export function manifestWindow(body: any, min: number, max: number) {
  const a = body.data.attributes
  return { ...body, data: { ...body.data, attributes: { ...a, photos: a.photos.filter((p: { sol: number }) => p.sol >= min && p.sol <= max) } } }
}
