import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { makeTestApp, type TestApp } from './setup/test-app'
import { ensureOpenApiTools, TOOLS } from './setup/openapi-tools'
import { ROVER_SLUGS } from '../src/catalog/rovers'
import { CAMERAS } from '../src/catalog/cameras'
import { PUBLIC_SORT_FIELDS as SORT_FIELDS } from '../src/store/access-paths'
import { FIELD_NAMES, IMAGE_SIZES, PRESETS } from '../src/query/params/photo-fields'

/**
 * The hand-written parameter parsers (src/query/params/param-parsers.ts, photo-params.ts,
 * src/resources/*) and the TypeBox declarations the OpenAPI document is made from must accept
 * and reject the same values. For every parameter each route declares, a generator makes valid
 * and invalid values from the declaration (bounds, items, patterns, formats), written as a typed
 * client writes them (String(n), true/false, comma lists); each is judged by the declared schema
 * (ajv, formats on) and by the route itself (400 naming the parameter = rejected), and the two
 * verdicts must be equal.
 */
let t: TestApp
let doc: any
let judge: (schema: unknown, raw: string) => boolean
let realCursor = ''

beforeAll(async () => {
  await ensureOpenApiTools()
  t = await makeTestApp({ keyLimits: { hourly: 1e9, daily: 1e9 } })
  doc = await (await t.anonymous('/api/v2/openapi.json')).json()
  const requireTool = createRequire(join(TOOLS, 'package.json'))
  const Ajv2020 = requireTool(join(TOOLS, 'node_modules', 'ajv', 'dist', '2020.js')).default
  const addFormats = requireTool(join(TOOLS, 'node_modules', 'ajv-formats', 'dist', 'index.js')).default
  const ajv = new Ajv2020({ strict: false })
  addFormats(ajv)
  const compiled = new Map<string, (v: unknown) => boolean>()
  judge = (schema: any, raw: string) => {
    const key = JSON.stringify(schema)
    let v = compiled.get(key)
    if (!v) compiled.set(key, (v = ajv.compile(schema)))
    // The wire text as the declared type: a JSON number literal for numbers, true/false for booleans.
    if (schema.type === 'integer' || schema.type === 'number') return /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(raw) && v!(Number(raw))
    if (schema.type === 'boolean') return (raw === 'true' || raw === 'false') && v!(raw === 'true')
    return v!(raw)
  }
  const first = (await (await t.request('/api/v2/photos?per_page=2&cursor=')).json()) as any
  realCursor = first.pagination.cursor.next
}, 300_000) // a fresh clone installs tools/openapi first (test/setup/openapi-tools.ts)
afterAll(() => t.close())

const lower = (s: string) => s.toLowerCase()
const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

/** Values of a comma-list parameter: each item, mixed case and blanks, two items, an empty item; and unknown items. */
function listValues(items: readonly string[], valid = true): string[] {
  if (!valid) return ['mars', `${items[0]},mars`, 'x'.repeat(30), `${items[0]};${items[1] ?? items[0]}`]
  return [...items, upperFirst(lower(items[0]!)), ` ${items[0]} , ${items.at(-1)} `, `${items[0]},,${items.at(-1)}`]
}

/** Valid and invalid values for one declared parameter, from its schema (and the catalogue for lists). */
function valuesFor(name: string, schema: any): { valid: string[]; invalid: string[] } {
  const cameras = [...new Set(CAMERAS.map((c) => c.name))]
  switch (name) {
    case 'rovers':
    case 'rover':
      return { valid: name === 'rover' ? [...ROVER_SLUGS, 'Spirit', ' Curiosity ', ' '] : listValues(ROVER_SLUGS), invalid: name === 'rover' ? ['mars', 'spirit,curiosity', 'spirit,'] : listValues(ROVER_SLUGS, false) }
    case 'cameras':
      return { valid: listValues(cameras), invalid: listValues(cameras, false) }
    case 'include':
      return { valid: listValues(['rover', 'camera']), invalid: listValues(['rover', 'camera'], false) }
    case 'image_sizes':
      return { valid: listValues(IMAGE_SIZES), invalid: listValues(IMAGE_SIZES, false) }
    case 'group_by':
      return { valid: ['camera', 'rover', 'sol', 'ROVER', ' Sol ', ' '], invalid: ['day', 'camera;rover', 'camera,rover', 'sol,'] }
    case 'sort':
      return { valid: [...SORT_FIELDS, ...SORT_FIELDS.map((f) => '-' + f), '-sol,id', ' - sol , earth_date '], invalid: ['colour', '+sol', 'sol,-colour', '--sol'] }
    case 'fields':
      return { valid: listValues(Object.keys(FIELD_NAMES)), invalid: [...listValues(Object.keys(FIELD_NAMES), false), 'minimal'] }
    case 'field_set':
      return { valid: [...PRESETS, 'Minimal', ' complete , ', 'sol,images', 'IMG_SRC'], invalid: ['tiny', 'minimal,sol', 'minimal,standard', 'sol,colour'] }
    case 'cursor':
      return { valid: [realCursor], invalid: ['x'.repeat(2049), 'not a cursor!', 'abc/def'] }
    case 'aspect_ratio':
      return { valid: ['16:9', '4:3', '1.5:1', ' 3 : 2 ', '0.5:1'], invalid: ['0:1', '16x9', '-1:1', '1:0', ':1', '1.:2'] }
    case 'mars_time_min':
    case 'mars_time_max':
      return { valid: ['M12:00:00', '05:30:00', 'M23:59:59.5', '7:05:09'], invalid: ['24:00:00', '12:60:00', 'M1:2:3', 'noon', '12:00'] }
    case 'earth_date':
    case 'date_min':
    case 'date_max':
      return { valid: ['2024-02-29', '2012-08-06', '2000-01-01'], invalid: ['2023-02-29', '2023-13-01', '20230101', '2023-1-1', 'yesterday'] }
    case 'sequence':
      return { valid: ['curiosity-3027-TRAV00928', 'Perseverance-0002-aut_04096', 'spirit-1-P1950'], invalid: ['curiosity-3027', 'curiosity--TRAV', '3027-TRAV00928', 'curiosity-3027-TRAV 00928', 'x'.repeat(49)] }
    case 'added_since':
    case 'added_before':
    case 'received_since':
    case 'received_before':
      return {
        valid: ['2024-02-29T12:00:00Z', '2021-02-18T20:55:00.123Z', '2024-06-01T08:00:00+02:00', '2000-01-01T00:00:00-05:30'],
        invalid: ['2023-02-29T00:00:00Z', '2024-01-01', '2024-01-01T00:00:00', '2024-01-01T25:00:00Z', 'yesterday', '2024-01-01T00:00:00 01:00', '2024-01-01t00:00:00z'],
      }
    case 'nasa_id':
      return { valid: ['NLB', 'ncam00', 'x'.repeat(64)], invalid: schema.maxLength ? ['x'.repeat(schema.maxLength + 1)] : [] }
  }
  if (schema.type === 'integer') {
    const min: number = schema.minimum ?? 0
    const max: number | undefined = schema.maximum
    const valid = [min, min + 1, max ?? min + 1000, Math.floor((min + (max ?? min + 100)) / 2)].map(String)
    const invalid = [String(min - 1), '1.5', 'abc', '']
    if (max !== undefined) invalid.push(String(max + 1))
    return { valid, invalid: invalid.filter((v) => v !== '') }
  }
  if (schema.type === 'number') {
    return { valid: [schema.minimum, schema.maximum, (schema.minimum + schema.maximum) / 2, 0.5 + schema.minimum].map(String), invalid: [String(schema.minimum - 1), String(schema.maximum + 1), 'abc', 'Infinity'] }
  }
  if (schema.type === 'boolean') return { valid: ['true', 'false'], invalid: ['yes', '1', 'on'] }
  throw new Error(`no value generator for parameter ${name}: add one`)
}

/** Parameters whose accepted values depend on the served index, not on the declaration alone. */
// near_photo must name a photo of the index that has a position (checked in related-photos.test.ts).
const INDEX_DEPENDENT = new Set(['sample_type', 'near_photo'])

const ROUTES: Array<{ path: string; url: string; context?: Record<string, string> }> = [
  { path: '/api/v2/photos', url: '/api/v2/photos' },
  { path: '/api/v2/photos/stats', url: '/api/v2/photos/stats' },
  { path: '/api/v2/locations', url: '/api/v2/locations' },
  { path: '/api/v2/panoramas', url: '/api/v2/panoramas' },
  { path: '/api/v2/cameras/{id}', url: '/api/v2/cameras/NAVCAM' },
]

async function serverAccepts(url: string, name: string, raw: string): Promise<boolean> {
  const q = new URLSearchParams({ [name]: raw })
  // location_radius needs site and drive beside it (a cross-parameter rule, checked separately).
  if (name === 'location_radius') q.set('site', '1'), q.set('drive', '1')
  // lat, lon and radius_m make a circle together (the same kind of rule).
  if (name === 'lat') q.set('lon', '10'), q.set('radius_m', '10')
  if (name === 'lon') q.set('lat', '0'), q.set('radius_m', '10')
  if (name === 'radius_m' && url.endsWith('/photos') || name === 'radius_m' && url.endsWith('/stats')) q.set('lat', '0'), q.set('lon', '0')
  const r = await t.request(`${url}?${q}`)
  if (r.status === 200 || r.status === 404) return true
  const body = (await r.json()) as any
  expect(r.status, `${url} ${name}=${raw}: ${JSON.stringify(body)}`).toBe(400)
  return !(body.errors ?? []).some((e: any) => e.parameter === name)
}

describe('parameter parsers and their TypeBox declarations agree', () => {
  for (const route of ROUTES) {
    test(`${route.path}: every declared query parameter accepts and rejects the same generated values as its schema`, async () => {
      const op = doc.paths[route.path].get
      const params = (op.parameters as any[]).filter((p) => p.in === 'query')
      expect(params.length).toBeGreaterThan(0)
      const disagreements: string[] = []
      let checked = 0
      for (const p of params) {
        if (INDEX_DEPENDENT.has(p.name)) continue
        const { valid, invalid } = valuesFor(p.name, p.schema)
        for (const [raw, meant] of [...valid.map((v) => [v, true] as const), ...invalid.map((v) => [v, false] as const)]) {
          const bySchema = judge(p.schema, raw)
          const byServer = await serverAccepts(route.url, p.name, raw)
          checked++
          if (bySchema !== byServer || bySchema !== meant) disagreements.push(`${p.name}=${JSON.stringify(raw.slice(0, 60))}: schema ${bySchema}, server ${byServer}, meant ${meant}`)
        }
      }
      expect(disagreements).toEqual([])
      expect(checked).toBeGreaterThan(params.length * 3)
    }, 60_000)
  }

  test('sample_type, whose values come from the served index, rejects an unknown value and accepts each documented one', async () => {
    for (const v of ['Full', 'subframe', 'Thumbnail']) expect(await serverAccepts('/api/v2/photos', 'sample_type', v)).toBe(true)
    expect(await serverAccepts('/api/v2/photos', 'sample_type', 'Blurry')).toBe(false)
  })
})
