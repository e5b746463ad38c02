import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { Type } from '@sinclair/typebox'
import { RouteDocs } from '../src/http/route-docs'
import { JsonBody } from '../src/http/json-body'
import { paramOf, resourcePlugin } from '../src/http/resource-plugin'
import { makeTestApp, type TestApp } from './setup/test-app'

/**
 * The resource-plugin helper on its own, mounted on a bare parent app over the real test index:
 * what it declares, what it hands to `render`, and that answers come from the shared response
 * cache. (The real resources through the assembled app: rovers, cameras, locations, panoramas
 * and rover-manifest tests.)
 */
let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(() => t.close())

function mount(render: (id: string, query: URLSearchParams) => string) {
  const routes = new RouteDocs()
  const calls: Array<{ id: string; query: string; version: string; base: string }> = []
  const plugin = resourcePlugin(
    { ...t.deps, routes },
    {
      name: 'things',
      tag: 'things',
      routes: [
        { doc: { path: '/api/v2/things', summary: 'List', responses: { 200: { description: 'ok' } } }, render: (store, q, base, id) => (calls.push({ id, query: q.toString(), version: store.version, base }), render(id, q)) },
        {
          doc: { path: '/api/v2/things/:name', summary: 'One', params: Type.Object({ name: Type.String() }), responses: { 200: { description: 'ok' }, 404: { description: 'unknown' } } },
          render: (store, q, base, id) => (calls.push({ id, query: q.toString(), version: store.version, base }), render(id, q)),
        },
      ],
    },
  )
  // The text of the JsonBody the handler returned (the content-type plugin makes the Response in the real app).
  const app = new Elysia().mapResponse(({ response }) => (response instanceof JsonBody ? new Response(response.text) : undefined)).use(plugin)
  const get = async (path: string) => (await app.handle(new Request('http://localhost' + path))).text()
  return { routes, calls, get }
}

describe('resourcePlugin', () => {
  test('declares each route once in the app\'s RouteDocs, as GET with the resource\'s tag', () => {
    const { routes } = mount(() => '{}')
    expect(routes.lookup('GET', '/api/v2/things')?.summary).toBe('List')
    expect(routes.lookup('GET', '/api/v2/things')?.tags).toEqual(['things'])
    expect(routes.lookup('GET', '/api/v2/things/:name')?.tags).toEqual(['things'])
    expect(routes.lookup('GET', '/api/v2/things/:name')?.params).toBeDefined()
    expect(routes.lookup('POST', '/api/v2/things')).toBeUndefined()
  })

  test('hands render the decoded path parameter, "" on the list and for a segment that is not valid percent-encoding', async () => {
    const { calls, get } = mount((id) => JSON.stringify({ id }))
    expect(await get('/api/v2/things/Na%20me?b=2&a=1')).toBe('{"id":"Na me"}')
    expect(await get('/api/v2/things/%')).toBe('{"id":""}')
    expect(await get('/api/v2/things?x=1')).toBe('{"id":""}')
    expect(calls.map((c) => c.id)).toEqual(['Na me', '', ''])
    expect(calls[0]!.query).toBe('b=2&a=1')
    expect(calls[0]!.version).toBe(t.deps.stores.current.version)
    expect(calls[0]!.base).toBe('http://localhost')
  })

  test('answers a repeated request from the response cache (render runs once per canonical request)', async () => {
    const { calls, get } = mount((id, q) => JSON.stringify({ id, n: q.get('n') }))
    const first = await get('/api/v2/things/alpha?n=1')
    expect(await get('/api/v2/things/alpha?n=1')).toBe(first)
    expect(await get('/api/v2/things/alpha?n=2')).toBe('{"id":"alpha","n":"2"}')
    expect(calls.map((c) => `${c.id} ${c.query}`)).toEqual(['alpha n=1', 'alpha n=2'])
  })

  test('refuses a route with more than one path parameter (the id is one value)', () => {
    expect(paramOf('/a/:x')).toBe('x')
    expect(paramOf('/a')).toBeUndefined()
    expect(() => paramOf('/a/:x/b/:y')).toThrow(/at most one path parameter/)
  })
})
