import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { Type } from '@sinclair/typebox'
import { RouteDocs, CATCH_ALL_ROUTE } from '../../src/http/route-docs'
import { route, routesPlugin } from '../../src/http/route'
import { V1_PREFIXES } from '../../src/v1/v1-paths'
import { makeTestApp, type TestApp } from '../setup/test-app'

/**
 * One declaration per route (src/http/route.ts): what the app mounts on Elysia is exactly what it
 * declares in its RouteDocs (from which the OpenAPI document, the docs page and the gates read),
 * method and path, aliases included. A route mounted by hand beside the helper would be keyed
 * but undocumented; a declared one never mounted would be documented and answer 404.
 */
let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(() => t.close())

const line = (r: { method: string; path: string }) => `${r.method} ${r.path}`

describe('the assembled app mounts exactly the routes it declares', () => {
  test('mounted routes (Elysia app.routes, minus the catch-all) equal the declared ones, method and path, each once', () => {
    const mounted = t.app.routes.filter((r) => r.path !== CATCH_ALL_ROUTE).map(line).sort()
    const declared = t.app.routeDocs.all().map(line).sort()
    expect(new Set(mounted).size).toBe(mounted.length)
    expect(mounted).toEqual(declared)
    expect(mounted.length).toBeGreaterThan(40)
    // the catch-all is the one mounted route that is no declaration: it answers every other path
    expect(t.app.routes.filter((r) => r.path === CATCH_ALL_ROUTE).map(line)).toEqual(['ALL /*'])
  })

  test('every v1 route is declared at each v1 prefix, documented at the first and hidden (an alias) at the others', () => {
    const v1 = t.app.routeDocs.all().filter((d) => d.path.startsWith(V1_PREFIXES[0] + '/'))
    expect(v1.length).toBe(7)
    for (const d of v1) {
      expect({ path: d.path, hidden: !!d.hidden }).toEqual({ path: d.path, hidden: false })
      for (const prefix of V1_PREFIXES.slice(1)) {
        const alias = t.app.routeDocs.lookup('GET', prefix + d.path.slice(V1_PREFIXES[0].length))
        expect({ path: d.path, alias: alias?.hidden, summary: alias?.summary, keyInQuery: alias?.keyInQuery }).toEqual({ path: d.path, alias: true, summary: d.summary, keyInQuery: true })
      }
    }
  })
})

describe('routesPlugin', () => {
  test('declares and mounts each route and alias in one place; the alias answers the same and is hidden', async () => {
    const routes = new RouteDocs()
    const plugin = routesPlugin({ ...t.deps, routes }, 'things', 'things', [
      route({ method: 'GET', path: '/things/:id', aliases: ['/old/things/:id'], summary: 'One thing', params: Type.Object({ id: Type.String() }), responses: { 200: { description: 'ok' } }, handle: ({ params }) => new Response(`thing ${params.id}`) }),
      route({ method: 'POST', path: '/things', summary: 'Add', keyed: false, responses: { 200: { description: 'ok' } }, hook: { parse: 'none' }, handle: async ({ request }) => new Response(`got ${await request.text()}`) }),
    ])
    const app = new Elysia().use(plugin)
    expect(app.routes.map(line).sort()).toEqual(['GET /old/things/:id', 'GET /things/:id', 'POST /things'])
    expect(routes.all().map(line).sort()).toEqual(['GET /old/things/:id', 'GET /things/:id', 'POST /things'])
    expect(routes.lookup('GET', '/things/:id')?.hidden).toBeUndefined()
    expect(routes.lookup('GET', '/old/things/:id')?.hidden).toBe(true)
    expect(routes.lookup('GET', '/old/things/:id')?.tags).toEqual(['things'])
    expect(routes.needsKey('POST', '/things')).toBe(false)
    expect(await (await app.handle(new Request('http://localhost/old/things/7'))).text()).toBe('thing 7')
    expect(await (await app.handle(new Request('http://localhost/things/7'))).text()).toBe('thing 7')
    // parse: 'none' reached Elysia: the handler reads the raw body itself
    expect(await (await app.handle(new Request('http://localhost/things', { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } }))).text()).toBe('got {"a":1}')
  })

  test('a route with both handle and render, or neither, is refused when the plugin is built', () => {
    const deps = { ...t.deps, routes: new RouteDocs() }
    const base = { method: 'GET' as const, path: '/x', summary: 'x', responses: { 200: { description: 'ok' } } }
    expect(() => routesPlugin(deps, 'x', 'x', [route(base)])).toThrow('exactly one of handle and render')
    expect(() => routesPlugin(deps, 'x', 'x', [route({ ...base, handle: () => 'a', render: () => '{}' })])).toThrow('exactly one of handle and render')
  })
})
