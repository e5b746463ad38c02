import { Type } from '@sinclair/typebox'
import type { RouteDoc } from '../../src/http/route-docs'
import { SERVICE_VERSION } from '../../src/service-version'

export const API_PREFIX = '/api/v2'

/** Body of GET /api/v2: a bare self-description (behaviour.md §16.1), not wrapped in `data`. */
export const ApiRootSchema = Type.Object({
  name: Type.String(),
  version: Type.String(),
  description: Type.String(),
  resources: Type.Record(
    Type.String(),
    Type.Object({
      href: Type.String({ format: 'uri' }),
      endpoints: Type.Array(Type.Object({ method: Type.String(), href: Type.String({ description: 'Absolute URL template; {name} marks a path parameter' }), summary: Type.String() })),
    }),
  ),
  links: Type.Object({ self: Type.String(), openapi: Type.String(), documentation: Type.String(), health: Type.String() }),
})

const NOT_RESOURCES = new Set(['openapi.json', 'docs'])

/** Resources are the first path segment after /api/v2 of every registered route, with absolute links. */
export function apiRoot(routes: RouteDoc[], base: string) {
  const resources: Record<string, { href: string; endpoints: Array<{ method: string; href: string; summary: string }> }> = {}
  for (const r of routes) {
    if (!r.path.startsWith(API_PREFIX + '/')) continue
    const name = r.path.slice(API_PREFIX.length + 1).split('/')[0]!
    if (!name || NOT_RESOURCES.has(name)) continue
    const res = (resources[name] ??= { href: `${base}${API_PREFIX}/${name}`, endpoints: [] })
    res.endpoints.push({ method: r.method, href: base + r.path.replace(/:([A-Za-z0-9_]+)\??/g, '{$1}'), summary: r.summary })
  }
  return {
    name: 'Mars rover photo query API',
    version: SERVICE_VERSION,
    description: 'Read-only query service over Mars rover photo metadata: photos, rovers, cameras, locations, panoramas and photo statistics.',
    resources,
    links: {
      self: `${base}${API_PREFIX}`,
      openapi: `${base}${API_PREFIX}/openapi.json`,
      documentation: `${base}${API_PREFIX}/docs`,
      health: `${base}/health`,
    },
  }
}
