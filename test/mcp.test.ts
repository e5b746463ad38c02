import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { spawnServer, type ServerProcess } from './setup/test-app'

/**
 * POST /mcp driven by the SDK's own client over real HTTP against `bun app/server.ts` on the real
 * test index: every tool's answer equals the same query through the HTTP API, a bad argument is a
 * tool error naming it, and the gates (401 without a key, 429 past the hourly limit) answer first.
 */
const ROOT = join(import.meta.dir, '..')
const work = mkdtempSync(join(tmpdir(), 'mv-mcp-'))
let server: ServerProcess
let key: string
/** Keys of the same server with small limits: three requests an hour; one request in flight. */
let lowKey: string
let singleKey: string
let client: Client

function makeKey(keysDb: string, email: string, limits: string[] = []): string {
  const made = Bun.spawnSync([process.execPath, 'scripts/keys.ts', 'create', '--email', email, ...limits], { cwd: ROOT, env: { ...process.env, KEYS_DB: keysDb } })
  return made.stdout.toString().trim().split('\n').pop()!
}

async function connect(url: string, apiKey: string): Promise<Client> {
  const c = new Client({ name: 'mcp-test', version: '1.0.0' })
  await c.connect(new StreamableHTTPClientTransport(new URL(url + '/mcp'), { requestInit: { headers: { 'x-api-key': apiKey } } }))
  return c
}

/** The HTTP API's JSON for the same query, without the per-response timestamp. */
async function http(path: string, init: RequestInit = {}): Promise<any> {
  const res = await fetch(server.url + path, { ...init, headers: { 'x-api-key': key, ...(init.headers as Record<string, string>) } })
  expect(res.status).toBe(200)
  return stripStamp(await res.json())
}

function stripStamp(body: any): any {
  if (body?.meta) delete body.meta.timestamp
  return body
}

async function call(name: string, args: Record<string, unknown>): Promise<{ body: any; isError: boolean }> {
  const r = (await client.callTool({ name, arguments: args })) as { content: { type: string; text: string }[]; isError?: boolean }
  return { body: stripStamp(JSON.parse(r.content[0]!.text)), isError: r.isError === true }
}

beforeAll(async () => {
  const keysDb = join(work, 'keys.sqlite')
  key = makeKey(keysDb, 'mcp@example.com')
  lowKey = makeKey(keysDb, 'low@example.com', ['--hourly', '3'])
  singleKey = makeKey(keysDb, 'single@example.com', ['--concurrent', '1'])
  server = await spawnServer({ INDEX_DIR: process.env.INDEX_DIR!, KEYS_DB: keysDb })
  client = await connect(server.url, key)
}, 120_000)

afterAll(async () => {
  await client?.close().catch(() => {})
  await server?.stop()
  rmSync(work, { recursive: true, force: true })
})

describe('the MCP endpoint through the SDK client', () => {
  test('lists the ten catalogue tools, each input schema built from its route\'s declared query parameters', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(['find_locations', 'find_panoramas', 'get_photos', 'list_cameras', 'list_rovers', 'photo_stats', 'related_photos', 'rover_manifest', 'rover_traverse', 'search_photos'])
    const doc = await http('/api/v2/openapi.json')
    const names = (path: string) => (doc.paths[path].get.parameters as { name: string; in: string }[]).filter((p) => p.in === 'query').map((p) => p.name).sort()
    const search = tools.find((t) => t.name === 'search_photos')!
    expect(Object.keys(search.inputSchema.properties!).sort()).toEqual(names('/api/v2/photos'))
    const props = search.inputSchema.properties as Record<string, any>
    expect(props.sol.type).toBe('integer')
    expect(props.mars_time_golden_hour.type).toBe('boolean')
    expect(props.cameras.anyOf).toEqual([{ type: 'string' }, { type: 'array', items: { type: 'string' } }])
    const locations = tools.find((t) => t.name === 'find_locations')!
    expect(Object.keys(locations.inputSchema.properties!).sort()).toEqual(names('/api/v2/locations'))
    for (const t of tools) expect(t.description!.length).toBeGreaterThan(20)
  })

  test('every tool\'s arguments are its route\'s declared parameters (query, path, body) with the same schemas as the OpenAPI document', async () => {
    const { tools } = await client.listTools()
    const doc = await http('/api/v2/openapi.json')
    const resolve = (s: any): any => (s?.$ref ? doc.components.schemas[s.$ref.split('/').pop()] : s)
    // The tool, its route, and the tool's own arguments (not the route's).
    const routes: [string, string, string, string[]][] = [
      ['search_photos', 'get', '/api/v2/photos', []],
      ['get_photos', 'post', '/api/v2/photos/batch', []],
      ['photo_stats', 'get', '/api/v2/photos/stats', []],
      ['list_rovers', 'get', '/api/v2/rovers', []],
      ['rover_manifest', 'get', '/api/v2/rovers/{slug}/manifest', ['sol_min', 'sol_max']],
      ['rover_traverse', 'get', '/api/v2/rovers/{slug}/traverse', []],
      ['list_cameras', 'get', '/api/v2/cameras', []],
      ['find_locations', 'get', '/api/v2/locations', []],
      ['find_panoramas', 'get', '/api/v2/panoramas', []],
      ['related_photos', 'get', '/api/v2/photos/{id}/related', []],
    ]
    expect(routes.map((r) => r[0]).sort()).toEqual(tools.map((t) => t.name).sort())
    for (const [name, method, path, own] of routes) {
      const op = doc.paths[path][method]
      const params = (op.parameters ?? []) as { name: string; in: string; required?: boolean; schema: any }[]
      const body = resolve(op.requestBody?.content?.['application/json']?.schema)
      const props = tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, any>
      expect({ name, args: Object.keys(props).sort() }).toEqual({ name, args: [...params.map((p) => p.name), ...Object.keys(body?.properties ?? {}), ...own].sort() })
      for (const p of params) {
        // Lists take an array of strings too; everything else is the route's schema as declared.
        const list = JSON.stringify(props[p.name].anyOf) === JSON.stringify([{ type: 'string' }, { type: 'array', items: { type: 'string' } }])
        if (list) expect({ name, arg: p.name, schema: p.schema }).toEqual({ name, arg: p.name, schema: expect.objectContaining({ type: 'string' }) })
        else {
          // The document states a parameter's description beside its schema.
          const { description, ...schema } = props[p.name]
          const { description: stated, ...declared } = p.schema
          expect({ name, arg: p.name, schema, description }).toEqual({ name, arg: p.name, schema: declared, description: (p as { description?: string }).description ?? stated })
        }
      }
      for (const [k, v] of Object.entries(body?.properties ?? {})) expect(props[k]).toEqual(v)
      const required = tools.find((t) => t.name === name)!.inputSchema.required ?? []
      expect({ name, required: [...required].sort() }).toEqual({ name, required: [...params.filter((p) => p.in === 'path').map((p) => p.name), ...(body?.required ?? []), ...(name === 'rover_manifest' ? ['sol_min'] : [])].sort() })
    }
  })

  test('lists the OpenAPI document and the guide as resources, and reads them', async () => {
    const { resources } = await client.listResources()
    expect(resources.map((r) => r.name).sort()).toEqual(['guide', 'openapi'])
    const openapi = await client.readResource({ uri: resources.find((r) => r.name === 'openapi')!.uri })
    expect(JSON.parse((openapi.contents[0] as { text: string }).text)).toEqual(await http('/api/v2/openapi.json'))
    const guide = await client.readResource({ uri: resources.find((r) => r.name === 'guide')!.uri })
    const text = (guide.contents[0] as { text: string }).text
    expect(text).toContain('search_photos')
    expect(text).not.toMatch(/localhost|127\.0\.0\.1/)
  })

  /** A photo of the HTTP list (with include=rover,camera) as search_photos writes it: a few key fields, flat. */
  const compact = (p: any) => {
    const a = p.attributes
    const img = ['medium', 'large', 'full', 'small'].map((s) => a.images?.[s]).find((u) => u !== undefined)
    const row: Record<string, unknown> = { id: p.id, rover: p.relationships.rover.id, camera: p.relationships.camera.id, sol: a.sol, earth_date: a.earth_date, date_taken_mars: a.date_taken_mars, img_src: img, site: a.location?.site, drive: a.location?.drive }
    return Object.fromEntries(Object.entries(row).filter(([, v]) => v !== undefined))
  }

  test('search_photos answers the total and compact rows of GET /api/v2/photos, 25 by default, the cursor for the next page; lists as arrays or comma strings', async () => {
    const { body, isError } = await call('search_photos', { rovers: ['curiosity'], cameras: 'NAVCAM,FHAZ', sol_min: 0, sol_max: 2000, sort: '-sol' })
    expect(isError).toBe(false)
    const same = await http('/api/v2/photos?rovers=curiosity&cameras=NAVCAM,FHAZ&sol_min=0&sol_max=2000&sort=-sol&per_page=25&include=rover,camera')
    expect(body.total).toBe(same.meta.total_count)
    expect(body.total).toBeGreaterThan(25)
    expect(body.count).toBe(25)
    expect(body.photos).toEqual(same.data.map(compact))
    expect(Object.keys(body).sort()).toEqual(['count', 'next_cursor', 'photos', 'total'])
    for (const row of body.photos) {
      expect(['NAVCAM', 'FHAZ']).toContain(row.camera)
      expect(row.rover).toBe('curiosity')
      expect(typeof row.img_src).toBe('string')
    }
    // A row is a small fraction of the API's item: the page stays small in a model's context.
    expect(JSON.stringify(body.photos).length).toBeLessThan(JSON.stringify(same.data).length / 2)
    expect(body.next_cursor).toBe(same.pagination.cursor.next)
    const next = await call('search_photos', { rovers: 'curiosity', cameras: ['NAVCAM', 'FHAZ'], sol_min: 0, sol_max: 2000, sort: '-sol', cursor: body.next_cursor })
    const sameNext = await http(`/api/v2/photos?rovers=curiosity&cameras=NAVCAM,FHAZ&sol_min=0&sol_max=2000&sort=-sol&per_page=25&include=rover,camera&cursor=${body.next_cursor}`)
    expect(next.body.photos).toEqual(sameNext.data.map(compact))
    expect(next.body.photos[0].id).not.toBe(body.photos[0].id)
  })

  test('search_photos with fields gives rows of those attributes as the API writes them; per_page sets the rows; the last page has next_cursor null', async () => {
    const { body } = await call('search_photos', { rovers: 'curiosity', sol: 1000, fields: 'nasa_id,sol', per_page: 3 })
    const same = await http('/api/v2/photos?rovers=curiosity&sol=1000&fields=nasa_id,sol&per_page=3&include=rover,camera')
    expect(body.photos).toEqual(same.data.map((p: any) => ({ id: p.id, rover: p.relationships.rover.id, camera: p.relationships.camera.id, ...p.attributes })))
    expect(body.count).toBe(Math.min(3, same.meta.total_count))
    expect(Object.keys(body.photos[0]).sort()).toEqual(['camera', 'id', 'nasa_id', 'rover', 'sol'])
    const last = await call('search_photos', { rovers: 'curiosity', sol: 1000, cameras: 'NAVCAM', per_page: 100 })
    expect(last.body.total).toBeLessThanOrEqual(100)
    expect(last.body.count).toBe(last.body.total)
    expect(last.body.next_cursor).toBeNull()
  })

  test('get_photos answers POST /api/v2/photos/batch, unknown ids listed as missing', async () => {
    const first = await http('/api/v2/photos?per_page=2')
    const ids = [first.data[1].id, first.data[0].id, 2147483000]
    const { body, isError } = await call('get_photos', { ids, field_set: 'minimal' })
    expect(isError).toBe(false)
    const same = await http('/api/v2/photos/batch?field_set=minimal', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ids }) })
    expect(body).toEqual(same)
    expect(body.data.map((p: { id: number }) => p.id)).toEqual(ids.slice(0, 2))
  })

  test('photo_stats, list_rovers, list_cameras, find_locations and find_panoramas answer as their GET routes', async () => {
    const pairs: [string, Record<string, unknown>, string][] = [
      ['photo_stats', { group_by: 'rover', rovers: 'curiosity,perseverance' }, '/api/v2/photos/stats?group_by=rover&rovers=curiosity,perseverance'],
      ['list_rovers', {}, '/api/v2/rovers'],
      ['list_cameras', {}, '/api/v2/cameras'],
      ['find_locations', { rovers: 'curiosity', min_photos: 5, per_page: 10 }, '/api/v2/locations?rovers=curiosity&min_photos=5&per_page=10'],
      ['find_panoramas', { per_page: 5 }, '/api/v2/panoramas?per_page=5'],
    ]
    for (const [name, args, path] of pairs) {
      const { body, isError } = await call(name, args)
      expect({ name, isError, body: isError ? body : undefined }).toEqual({ name, isError: false, body: undefined })
      expect(body).toEqual(await http(path))
      expect(Object.keys(body.data).length).toBeGreaterThan(0)
    }
  })

  test('related_photos answers GET /api/v2/photos/{id}/related: stereo partner, sequence, nearby; its arguments are the route\'s declared ones plus id', async () => {
    const tools = (await client.listTools()).tools
    const doc = await http('/api/v2/openapi.json')
    const declared = (doc.paths['/api/v2/photos/{id}/related'].get.parameters as { name: string; in: string }[]).filter((p) => p.in === 'query').map((p) => p.name)
    expect(Object.keys(tools.find((t) => t.name === 'related_photos')!.inputSchema.properties!).sort()).toEqual([...declared, 'id'].sort())
    const { body, isError } = await call('related_photos', { id: 1274797, fields: 'nasa_id,sol', radius_m: 80 })
    expect(isError).toBe(false)
    expect(body).toEqual(await http('/api/v2/photos/1274797/related?fields=nasa_id,sol&radius_m=80'))
    expect(body.related.stereo.id).toBe(body.data.relationships.stereo.id)
    expect(body.related.nearby.total).toBeGreaterThan(0)
    const missing = await call('related_photos', { id: 99 })
    expect(missing.isError).toBe(true)
    expect(missing.body.status).toBe(404)
  })

  test('rover_manifest answers the manifest for the sol window only; rover_traverse the simplified traverse', async () => {
    const { body, isError } = await call('rover_manifest', { slug: 'curiosity', sol_min: 0, sol_max: 400 })
    expect(isError).toBe(false)
    const whole = await http('/api/v2/rovers/curiosity/manifest')
    const window = whole.data.attributes.photos.filter((p: { sol: number }) => p.sol <= 400)
    expect(window.length).toBeGreaterThan(0)
    expect(window.length).toBeLessThan(whole.data.attributes.photos.length)
    expect(body.data.attributes.photos).toEqual(window)
    expect(body.data.attributes.total_photos).toBe(whole.data.attributes.total_photos)
    const wide = await call('rover_manifest', { slug: 'curiosity', sol_min: 0, sol_max: 5000 })
    expect(wide.isError).toBe(true)
    expect(wide.body.errors[0].parameter).toBe('sol_max')

    const traverse = await call('rover_traverse', { slug: 'curiosity', sol_min: 0, sol_max: 1000 })
    expect(traverse.isError).toBe(false)
    expect(traverse.body).toEqual(await http('/api/v2/rovers/curiosity/traverse?sol_min=0&sol_max=1000&simplify=25'))
    const missing = await call('rover_traverse', { slug: 'sojourner' })
    expect(missing.isError).toBe(true)
    expect(missing.body.status).toBe(404)
  })

  test('a bad argument is a tool error naming the argument and what it allows; an unknown argument too', async () => {
    const bad = await call('search_photos', { cameras: 'NOPE', sol: -1 })
    expect(bad.isError).toBe(true)
    expect(bad.body.status).toBe(400)
    const named = bad.body.errors.map((e: { parameter: string }) => e.parameter).sort()
    expect(named).toEqual(['cameras', 'sol'])
    expect(bad.body.errors.find((e: { parameter: string }) => e.parameter === 'cameras').message).toContain('NAVCAM')
    const unknown = await call('find_panoramas', { sols: 3 })
    expect(unknown.isError).toBe(true)
    expect(unknown.body.errors[0].parameter).toBe('sols')
    expect(unknown.body.errors[0].message).toContain('sol_min')
    const shaped = await call('search_photos', { sol: { gt: 3 } })
    expect(shaped.isError).toBe(true)
    expect(shaped.body.errors).toEqual([{ parameter: 'sol', message: expect.stringContaining('must be a string, a number or a boolean') }])
    const noSlug = await call('rover_traverse', { sol_min: 1 })
    expect(noSlug.isError).toBe(true)
    expect(noSlug.body.errors[0].parameter).toBe('slug')
    expect(noSlug.body.errors[0].message).toContain('curiosity')
    const badIds = await call('get_photos', { ids: ['x'] })
    expect(badIds.isError).toBe(true)
    expect(badIds.body.errors[0].parameter).toMatch(/^ids/)
    const badWindow = await call('rover_manifest', { slug: 'spirit', sol_min: 10, sol_max: 5 })
    expect(badWindow.body.errors).toEqual([{ parameter: 'sol_min', message: expect.stringContaining('sol_max') }])
  })
})

describe('the gates answer before the transport', () => {
  const message = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

  test('POST /mcp without a key is a 401 problem document, not a 404, before the transport (which would refuse the media types and the body)', async () => {
    for (const [h, body] of [[headers, message], [{ 'content-type': 'text/plain', accept: 'text/html' }, '{not json']] as const) {
      const res = await fetch(server.url + '/mcp', { method: 'POST', headers: h, body })
      expect(res.status).toBe(401)
      const problem = (await res.json()) as { status: number; type: string; jsonrpc?: string }
      expect(problem.status).toBe(401)
      expect(problem.type).toContain('unauthorized')
      expect(problem.jsonrpc).toBeUndefined()
    }
  })

  test('GET and DELETE /mcp with a key are 405 with a JSON-RPC error (stateless: no event stream, no session)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(server.url + '/mcp', { method, headers: { 'x-api-key': key, accept: 'text/event-stream' } })
      expect(res.status).toBe(405)
      expect(res.headers.get('allow')).toBe('POST')
      expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32000)
    }
  })

  const post = (apiKey: string, body: unknown, init: RequestInit = {}) =>
    fetch(server.url + '/mcp', { method: 'POST', headers: { ...headers, 'x-api-key': apiKey }, body: JSON.stringify(body), ...init })
  const toolCall = (id: number, name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } })
  const remaining = (res: Response) => Number(res.headers.get('x-ratelimit-remaining'))

  test('a POST with a tool call moves the key\'s hourly counter by exactly one, as a tools/list does', async () => {
    const first = await post(key, { jsonrpc: '2.0', id: 1, method: 'tools/list' })
    expect(first.status).toBe(200)
    const before = remaining(first)
    const search = await post(key, toolCall(2, 'search_photos', { rovers: 'curiosity', per_page: 5 }))
    expect(search.status).toBe(200)
    expect(((await search.json()) as { result: { isError?: boolean } }).result.isError).toBeUndefined()
    expect(remaining(search)).toBe(before - 1)
    const manifest = await post(key, toolCall(3, 'rover_manifest', { slug: 'spirit', sol_min: 0 }))
    expect(manifest.status).toBe(200)
    expect(remaining(manifest)).toBe(before - 2)
    // The HTTP API sees the same counter: its next answer is one further down.
    const api = await fetch(server.url + '/api/v2/rovers', { headers: { 'x-api-key': key } })
    expect(remaining(api)).toBe(before - 3)
  })

  test('past the hourly limit the POST is a 429 problem document before the transport answers: three tool calls on a key of three requests an hour, then 429', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) {
      const res = await post(lowKey, toolCall(i, 'photo_stats', { group_by: 'rover' }))
      statuses.push(res.status)
      if (res.status === 200) {
        const { result } = (await res.json()) as { result: { isError?: boolean; content: { text: string }[] } }
        expect(result.isError).toBeUndefined()
        expect(JSON.parse(result.content[0]!.text).data).toBeDefined()
        expect(remaining(res)).toBe(2 - i)
      } else {
        const problem = (await res.json()) as { status: number; type: string; retryAfter: number }
        expect(problem.status).toBe(429)
        expect(problem.type).toContain('rate-limit')
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/)
      }
    }
    expect(statuses).toEqual([200, 200, 200, 429])
  })

  test('the in-flight limit holds: on a key of one request in flight a tool call answers, and a second POST while the first is in flight is a 429', async () => {
    // Alone, a tool call fits in the one slot (it is answered in process, not as a second request).
    const alone = await post(singleKey, toolCall(1, 'search_photos', { rovers: 'spirit', per_page: 2 }))
    expect(alone.status).toBe(200)
    const answer = (await alone.json()) as { result: { isError?: boolean; content: { text: string }[] } }
    expect(answer.result.isError).toBeUndefined()
    expect(JSON.parse(answer.result.content[0]!.text).count).toBe(2)
    // A POST whose body is still arriving holds the key's slot.
    const text = JSON.stringify(toolCall(2, 'list_rovers', {}))
    let finish!: () => void
    const finished = new Promise<void>((r) => (finish = r))
    const slow = new ReadableStream<Uint8Array>({
      async start(c) {
        c.enqueue(new TextEncoder().encode(text.slice(0, 10)))
        await finished
        c.enqueue(new TextEncoder().encode(text.slice(10)))
        c.close()
      },
    })
    const held = fetch(server.url + '/mcp', { method: 'POST', headers: { ...headers, 'x-api-key': singleKey, 'content-length': String(text.length) }, body: slow, duplex: 'half' } as RequestInit)
    let second: Response | undefined
    for (let i = 0; i < 50 && second?.status !== 429; i++) {
      await Bun.sleep(20)
      second = await post(singleKey, toolCall(3, 'list_cameras', {}))
    }
    expect(second!.status).toBe(429)
    const problem = (await second!.json()) as { status: number; detail: string }
    expect(problem.status).toBe(429)
    expect(problem.detail).toMatch(/in flight|concurrent/i)
    finish()
    const first = await held
    expect(first.status).toBe(200)
    expect(((await first.json()) as { result: { isError?: boolean } }).result.isError).toBeUndefined()
    // The slot is given back with the answer.
    expect((await post(singleKey, toolCall(4, 'list_cameras', {}))).status).toBe(200)
  })

  test('malformed JSON-RPC never answers 5xx: bad JSON, unknown method, wrong ids, a large batch, an oversized body', async () => {
    const post = (body: string) => fetch(server.url + '/mcp', { method: 'POST', headers: { ...headers, 'x-api-key': key }, body })
    const bodies = [
      '{not json',
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'no/such/method' }),
      JSON.stringify({ jsonrpc: '2.0', id: { a: 1 }, method: 'tools/list' }),
      JSON.stringify({ jsonrpc: '1.0', method: 'tools/call' }),
      JSON.stringify(Array.from({ length: 500 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/list' }))),
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_photos', arguments: { nasa_id: 'x'.repeat(200_000) } } }),
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } }),
      JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 'file:///etc/passwd' } }),
      // Params the SDK's validator trips on: a record whose `constructor` is null.
      '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"list_cameras","arguments":{"constructor":null}}}',
      '{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"constructor":null},"clientInfo":{"name":"x","version":"1"}}}',
    ]
    for (const b of bodies) {
      const res = await post(b)
      const text = await res.text()
      expect({ b: b.slice(0, 60), status: res.status < 500 }).toEqual({ b: b.slice(0, 60), status: true })
      expect(text).not.toContain('/work/')
      // A bad message is the client's error, never the server's internal one.
      expect(text).not.toContain('-32603')
    }
  })

  // The generated malformed JSON-RPC (wrong ids, huge batches, unknown methods, oversized arguments) is the
  // fuzzer's MCP class: test/fuzz.test.ts (short form) and npm run fuzz (test/support/fuzz-arbitraries.ts, mcpRequest).
})
