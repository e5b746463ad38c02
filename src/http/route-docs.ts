import type { TObject, TSchema } from '@sinclair/typebox'

/**
 * The route registry behind the OpenAPI document (plugins/docs). Each resource plugin registers
 * its routes with the same TypeBox schemas it validates requests with, so the document cannot
 * drift from what the server accepts.
 */
export interface RouteDoc {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS'
  /** Elysia-style path, e.g. `/api/v2/photos/:id` (rendered as `{id}` in OpenAPI). */
  path: string
  summary: string
  description?: string
  query?: TObject
  params?: TObject
  body?: TSchema
  responses: Record<number, { description: string; schema?: TSchema }>
  tags?: string[]
  /** The OpenAPI operationId when the one made from method and path would repeat another's. */
  operationId?: string
  /** false for routes that need no X-API-Key (health, docs). Default true. */
  keyed?: boolean
}

const registry = new Map<string, RouteDoc>()

/** Register (or re-register: same method + path replaces) one route. Idempotent, so plugin factories may run many times. */
export function registerRoute(doc: RouteDoc): void {
  registry.set(doc.method + ' ' + doc.path, doc)
}

/** Every registered route, sorted by path then method. */
export function routes(): RouteDoc[] {
  return [...registry.values()].sort((a, b) => (a.path === b.path ? a.method.localeCompare(b.method) : a.path.localeCompare(b.path)))
}
