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
let client: Client

function makeKey(keysDb: string, email: string): string {
  const made = Bun.spawnSync([process.execPath, 'scripts/keys.ts', 'create', '--email', email], { cwd: ROOT, env: { ...process.env, KEYS_DB: keysDb } })
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
  server = await spawnServer({ INDEX_DIR: process.env.INDEX_DIR!, KEYS_DB: keysDb })
  client = await connect(server.url, key)
}, 120_000)

afterAll(async () => {
  await client?.close().catch(() => {})
  await server?.stop()
  rmSync(work, { recursive: true, force: true })
})

describe('the MCP endpoint through the SDK client', () => {
  test('lists the nine catalogue tools, each input schema built from its route\'s declared query parameters', async () => {
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

  test('search_photos answers the rows and total of GET /api/v2/photos, 25 rows by default, lists as arrays or comma strings', async () => {
    const { body, isError } = await call('search_photos', { rovers: ['curiosity'], cameras: 'NAVCAM,FHAZ', sol_min: 0, sol_max: 2000, sort: '-sol' })
    expect(isError).toBe(false)
    const same = await http('/api/v2/photos?rovers=curiosity&cameras=NAVCAM,FHAZ&sol_min=0&sol_max=2000&sort=-sol&per_page=25')
    expect(body.total).toBe(same.meta.total_count)
    expect(body.total).toBeGreaterThan(25)
    expect(body.count).toBe(25)
    expect(body.photos).toEqual(same.data)
    expect(body.next_cursor).toBe(same.pagination.cursor.next)
    const next = await call('search_photos', { rovers: 'curiosity', cameras: ['NAVCAM', 'FHAZ'], sol_min: 0, sol_max: 2000, sort: '-sol', cursor: body.next_cursor })
    const sameNext = await http(`/api/v2/photos?rovers=curiosity&cameras=NAVCAM,FHAZ&sol_min=0&sol_max=2000&sort=-sol&per_page=25&cursor=${body.next_cursor}`)
    expect(next.body.photos).toEqual(sameNext.data)
    expect(next.body.photos[0].id).not.toBe(body.photos[0].id)
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
  })
})

describe('the gates answer before the transport', () => {
  const message = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

  test('POST /mcp without a key is a 401 problem document, not a 404', async () => {
    const res = await fetch(server.url + '/mcp', { method: 'POST', headers, body: message })
    expect(res.status).toBe(401)
    expect(((await res.json()) as { status: number }).status).toBe(401)
  })

  test('GET and DELETE /mcp with a key are 405 with a JSON-RPC error (stateless: no event stream, no session)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(server.url + '/mcp', { method, headers: { 'x-api-key': key, accept: 'text/event-stream' } })
      expect(res.status).toBe(405)
      expect(res.headers.get('allow')).toBe('POST')
      expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32000)
    }
  })

  test('every POST counts one request: past the hourly limit 429 before the transport answers', async () => {
    const keysDb = join(work, 'low.sqlite')
    const low = makeKey(keysDb, 'low@example.com')
    const s = await spawnServer({ INDEX_DIR: process.env.INDEX_DIR!, KEYS_DB: keysDb, RATE_LIMIT_HOURLY: '3' })
    try {
      const statuses: number[] = []
      for (let i = 0; i < 4; i++) {
        const res = await fetch(s.url + '/mcp', { method: 'POST', headers: { ...headers, 'x-api-key': low }, body: message })
        statuses.push(res.status)
        if (res.status === 200) expect(((await res.json()) as { result: { tools: unknown[] } }).result.tools.length).toBe(10)
        else {
          const problem = (await res.json()) as { status: number; type: string }
          expect(problem.status).toBe(429)
          expect(problem.type).toContain('rate-limit')
        }
      }
      expect(statuses).toEqual([200, 200, 200, 429])
    } finally {
      await s.stop()
    }
  }, 60_000)

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
    ]
    for (const b of bodies) {
      const res = await post(b)
      const text = await res.text()
      expect({ b: b.slice(0, 60), status: res.status < 500 }).toEqual({ b: b.slice(0, 60), status: true })
      expect(text).not.toContain('/work/')
    }
  })

  test('1,500 generated malformed messages (bad JSON, wrong ids, unknown methods, batches, garbage and oversized arguments, wrong media types): never a 5xx, server RSS grows at most 100 MB', async () => {
    let seed = 34
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648)
    const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!
    const junk = (): unknown => pick([null, -1, 1.5, 2 ** 53, 'x'.repeat(Math.floor(rand() * 5000)), [], [{}], { a: { b: [1] } }, true, '../../etc', '%zz', 'NAVCAM,,', '-'])
    const ids = () => pick<unknown>([1, 'a', null, { x: 1 }, [1], 1.5, -0, 'x'.repeat(300)])
    const tools = ['search_photos', 'get_photos', 'photo_stats', 'list_rovers', 'rover_manifest', 'rover_traverse', 'list_cameras', 'find_locations', 'find_panoramas', 'nope']
    const args = ['rovers', 'cameras', 'sol', 'sol_min', 'sol_max', 'slug', 'ids', 'per_page', 'cursor', 'sort', 'fields', 'group_by', 'simplify', 'format', 'zzz']
    const one = (): unknown =>
      pick([
        () => ({ jsonrpc: '2.0', id: ids(), method: pick(['tools/list', 'resources/list', 'initialize', 'ping', 'no/such', '', 'tools/call']) }),
        () => ({ jsonrpc: pick(['2.0', '1.0', 2, null]), id: ids(), method: 'tools/call', params: { name: pick(tools), arguments: Object.fromEntries(Array.from({ length: Math.floor(rand() * 4) }, () => [pick(args), junk()])) } }),
        () => ({ jsonrpc: '2.0', id: ids(), method: 'tools/call', params: pick([null, 'x', [], { name: 3 }, { name: 'search_photos', arguments: 'x' }]) }),
        () => ({ jsonrpc: '2.0', id: ids(), method: 'resources/read', params: { uri: pick(['mars-api://guide.md', 'file:///etc/passwd', '', 'mars-api://openapi.json', 'x'.repeat(2000)]) } }),
        () => ({ jsonrpc: '2.0', method: pick(['notifications/initialized', 'notifications/cancelled', 'x']) }),
      ])()
    const body = (): { text: string; type?: string; accept?: string } =>
      pick([
        () => ({ text: JSON.stringify(one()) }),
        () => ({ text: JSON.stringify(Array.from({ length: 1 + Math.floor(rand() * 200) }, one)) }),
        () => ({ text: JSON.stringify(one()).slice(0, Math.floor(rand() * 40)) }),
        () => ({ text: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_photos', arguments: { nasa_id: 'x'.repeat(70_000) } } }) }),
        () => ({ text: '[]' }),
        () => ({ text: JSON.stringify(one()), type: pick(['text/plain', 'application/x-www-form-urlencoded', '']) }),
        () => ({ text: JSON.stringify(one()), accept: pick(['text/html', 'application/json', '*/*']) }),
      ])()
    const rss = () => Number(/VmRSS:\s+(\d+)/.exec(require('node:fs').readFileSync(`/proc/${server.proc.pid}/status`, 'utf8'))![1]) * 1024
    const before = rss()
    const fives: string[] = []
    const seen = new Set<number>()
    for (let round = 0; round < 150; round++) {
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          const b = body()
          const res = await fetch(server.url + '/mcp', { method: 'POST', headers: { 'x-api-key': key, 'content-type': b.type ?? 'application/json', accept: b.accept ?? 'application/json, text/event-stream' }, body: b.text })
          const text = await res.text()
          seen.add(res.status)
          if (res.status >= 500 || text.includes('/work/') || /\.(?:ts|js):\d+/.test(text)) fives.push(`${res.status} ${b.text.slice(0, 120)} -> ${text.slice(0, 200)}`)
        }),
      )
    }
    expect(fives).toEqual([])
    // The generator reaches the transport (200, its own 400/406/415) and the body cap (413).
    expect([...seen].sort()).toEqual(expect.arrayContaining([200, 400, 406, 413, 415]))
    expect(rss() - before).toBeLessThanOrEqual(100 * 1024 * 1024)
    expect((await fetch(server.url + '/health')).status).toBe(200)
  }, 60_000)
})
