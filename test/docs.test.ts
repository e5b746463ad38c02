import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { t as T } from 'elysia'
import { PROBLEMS } from '../src/http/problems'
import { JsonBody } from '../src/http/json-body'
import { makeTestApp, type TestApp } from './setup/test-app'
import { SERVICE_VERSION } from '../src/service-version'

/** Response JSON, untyped (tests assert on its fields). */
const json = (r: Response): Promise<any> => r.json()

const DocQuery = T.Object({
  sol: T.Optional(T.Integer({ minimum: 0, maximum: 2147483647, description: 'Exact sol' })),
  per_page: T.Optional(T.Numeric({ minimum: 1, maximum: 100 })),
  kind: T.Optional(T.Union([T.Literal('a'), T.Literal('b')])),
})

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
  t.app.routeDocs.register({
    method: 'GET',
    path: '/api/v2/__documented/:id',
    summary: 'test-only documented route',
    params: T.Object({ id: T.Integer({ minimum: 1 }) }),
    query: DocQuery,
    tags: ['test'],
    responses: { 200: { description: 'a thing', schema: T.Object({ data: T.Integer() }) }, 404: { description: 'no such thing' } },
  })
  t.app.get('/api/v2/__documented/:id', () => new JsonBody('{"data":1}'), { query: DocQuery, params: T.Object({ id: T.Integer({ minimum: 1 }) }) })
})
afterAll(() => t.close())

type Doc = {
  openapi: string
  paths: Record<string, Record<string, { operationId: string; security?: unknown[]; parameters?: Array<{ name: string; in: string; required: boolean; schema: Record<string, unknown>; description?: string }>; responses: Record<string, unknown> }>>
  components: { schemas: Record<string, any>; responses: Record<string, any>; securitySchemes: Record<string, any> }
}

async function doc(): Promise<Doc> {
  const r = await t.anonymous('/api/v2/openapi.json')
  expect(r.status).toBe(200)
  return (await r.json()) as Doc
}

describe('GET /api/v2 (API root)', () => {
  test('needs a key, is counted, and lists the resources with absolute links', async () => {
    expect((await t.anonymous('/api/v2')).status).toBe(401)
    const r = await t.request('/api/v2')
    expect(r.status).toBe(200)
    expect(r.headers.get('x-ratelimit-remaining')).toBe('9999')
    const body = await json(r)
    expect(body.version).toBe(SERVICE_VERSION)
    expect(body.links).toEqual({
      self: 'http://localhost/api/v2',
      openapi: 'http://localhost/api/v2/openapi.json',
      documentation: 'http://localhost/api/v2/docs',
      health: 'http://localhost/health',
    })
    expect(body.resources.__documented.href).toBe('http://localhost/api/v2/__documented')
    expect(body.resources.__documented.endpoints).toEqual([{ method: 'GET', href: 'http://localhost/api/v2/__documented/{id}', summary: 'test-only documented route' }])
    for (const res of Object.values(body.resources) as Array<{ href: string }>) expect(res.href).toStartWith('http://localhost/api/v2/')
  })

  test('links follow the Host the client used', async () => {
    const r = await t.app.handle(new Request('http://api.example.org:8080/api/v2', { headers: { 'x-api-key': t.key } }))
    expect((await json(r)).links.self).toBe('http://api.example.org:8080/api/v2')
  })
})

describe('the OpenAPI 3.1 document', () => {
  test('is served without a key and is not counted', async () => {
    const before = (await t.request('/api/v2')).headers.get('x-ratelimit-remaining')
    const r = await t.request('/api/v2/openapi.json')
    expect(r.headers.get('x-ratelimit-remaining')).toBeNull()
    expect((await t.request('/api/v2')).headers.get('x-ratelimit-remaining')).toBe(String(Number(before) - 1))
  })

  test('describes every registered route, /health and the root included', async () => {
    const d = await doc()
    expect(d.openapi).toBe('3.1.0')
    for (const r of t.app.routeDocs.documented()) {
      const p = r.path.replace(/:([A-Za-z0-9_]+)\??/g, '{$1}')
      expect(d.paths[p]?.[r.method.toLowerCase()]).toBeDefined()
    }
    expect(d.paths['/health']!.get!.security).toEqual([])
    expect(d.paths['/api/v2']!.get!.security).toBeUndefined()
  })

  test('parameters come from the same TypeBox schemas that validate the route', async () => {
    const op = (await doc()).paths['/api/v2/__documented/{id}']!.get!
    const byName = Object.fromEntries(op.parameters!.map((p) => [p.name, p]))
    expect(byName.id).toEqual({ name: 'id', in: 'path', required: true, schema: { minimum: 1, type: 'integer' } })
    expect(byName.sol).toEqual({ name: 'sol', in: 'query', required: false, description: 'Exact sol', schema: { minimum: 0, maximum: 2147483647, type: 'integer' } })
    expect(byName.per_page!.schema).toEqual({ minimum: 1, maximum: 100, type: 'number' })
    expect(byName.kind!.schema).toEqual({ anyOf: [{ const: 'a', type: 'string' }, { const: 'b', type: 'string' }] })
    // and the validation really uses them
    expect((await t.request('/api/v2/__documented/0?sol=-1')).status).toBe(400)
  })

  test('the problem types operations give are components (no unused one), and keyed operations list 304, 401, 413, 429 and 500', async () => {
    const d = await doc()
    const used = new Set(JSON.stringify(d.paths).match(/#\/components\/responses\/\w+/g)!.map((r) => r.split('/').pop()!))
    expect(Object.keys(d.components.responses).sort()).toEqual([...used].sort())
    for (const [kind, p] of Object.entries(PROBLEMS)) {
      const name = kind.charAt(0).toUpperCase() + kind.slice(1) + 'Problem'
      if (!used.has(name)) continue
      expect(d.components.schemas[name].allOf[1].properties).toEqual({ type: { const: p.type }, title: { const: p.title }, status: { const: p.status } })
      expect(Object.keys(d.components.responses[name].content)).toEqual(['application/json', 'text/json', 'text/plain'])
    }
    expect(d.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' })
    const op = d.paths['/api/v2/__documented/{id}']!.get!
    expect(Object.keys(op.responses).sort()).toEqual(['200', '304', '400', '401', '404', '413', '429', '500'])
    expect(op.responses['404']).toMatchObject({ $ref: '#/components/responses/NotFoundProblem' })
  })

  test('every $ref resolves and operation ids are unique', async () => {
    const d = await doc()
    const refs: string[] = []
    const walk = (v: unknown) => {
      if (Array.isArray(v)) v.forEach(walk)
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) k === '$ref' ? refs.push(String(x)) : walk(x)
    }
    walk(d)
    expect(refs.length).toBeGreaterThan(10)
    for (const ref of refs) {
      const target = ref.replace(/^#\//, '').split('/').reduce<any>((o, k) => o?.[k], d)
      expect(target, ref).toBeDefined()
    }
    const ids = Object.values(d.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId))
    expect(new Set(ids).size).toBe(ids.length)
  })
})

describe('GET /api/v2/docs', () => {
  test('is a self-contained HTML page without a key: no script at all, no external style, rendered on the server', async () => {
    const r = await t.anonymous('/api/v2/docs')
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const html = await r.text()
    expect(html).toContain('href="/api/v2/openapi.json"')
    expect(html).not.toMatch(/<script/i)
    expect(html).not.toMatch(/<link[^>]+href=/i)
    expect(html).not.toMatch(/https?:\/\/(cdn|unpkg|cdnjs|jsdelivr)/i)
  })

  test('has one section per operation of the document, the test route included', async () => {
    const html = await (await t.anonymous('/api/v2/docs')).text()
    const d = await doc()
    const operations = Object.values(d.paths).reduce((n, ops) => n + Object.keys(ops).length, 0)
    expect(html.match(/<section class="op"/g)!.length).toBe(operations)
    expect(html).toContain('<span class="path">/api/v2/__documented/{id}</span>')
    // The protocol notes' Markdown is rendered: **Authentication** as strong, `X-API-Key` as code.
    expect(html).toContain('<strong>Authentication</strong>')
    expect(html).toContain('<code>X-API-Key</code>')
  })
})

describe('GET /', () => {
  test('is a self-contained landing page without a key, linking the reference, the OpenAPI document, /health and /dashboard', async () => {
    const r = await t.anonymous('/')
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const html = await r.text()
    for (const href of ['/api/v2/docs', '/api/v2/openapi.json', '/health', '/dashboard']) expect(html).toContain(`href="${href}"`)
    expect(html).not.toMatch(/<script/i)
    expect(html).not.toMatch(/<link[^>]+href=/i)
    // Every link but the dashboard (built separately) answers here.
    for (const href of ['/api/v2/docs', '/api/v2/openapi.json', '/health']) expect((await t.anonymous(href)).status).toBe(200)
  })

  test('says in one line that the index is a sample, of how many photos, and how to mirror the rest, as /health notes it', async () => {
    const html = await (await t.anonymous('/')).text()
    const health: any = await (await t.anonymous('/health')).json()
    expect(health.index.sample).toBe(true)
    const photos = t.deps.stores.current.manifest.rows.photos.toLocaleString('en-US')
    expect(html).toContain(`<p class="sample">This index is a sample of ${photos} photos; <code>npm run fetch -- --all</code> mirrors the rest (Opportunity and Spirit: docs/pds-index-tables.md).</p>`)
    expect(health.index.note).toBe(`a sample of ${photos} photos; \`npm run fetch -- --all\` mirrors the rest (Opportunity and Spirit: docs/pds-index-tables.md)`)
  })
})
