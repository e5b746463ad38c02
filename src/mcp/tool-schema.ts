import type { TObject } from '@sinclair/typebox'

/** A tool's input JSON Schema (MCP `inputSchema`): an object of named arguments. */
export interface InputSchema {
  type: 'object'
  properties: Record<string, Record<string, unknown>>
  required?: string[]
  additionalProperties: false
}

/**
 * The input schema of a tool from the TypeBox `query` schema of the route it answers through, so
 * the tool takes exactly the parameters the route declares, with the route's own words and
 * bounds (one source of truth). Integers, numbers and booleans are already typed there; a
 * comma-separated list (a string whose pattern is a list) also takes an array of strings.
 */
export function inputSchemaOf(query: TObject | undefined, extra: InputSchema['properties'] = {}, required: string[] = []): InputSchema {
  const properties: InputSchema['properties'] = {}
  for (const [name, schema] of Object.entries(query?.properties ?? {})) {
    // JSON round trip: drops TypeBox's symbol keys (Optional, Kind).
    const plain = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>
    properties[name] = isList(plain) ? { description: plain.description, anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] } : plain
  }
  Object.assign(properties, extra)
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false }
}

function isList(s: Record<string, unknown>): boolean {
  return s.type === 'string' && typeof s.description === 'string' && /comma-separated/i.test(s.description)
}

/**
 * Tool arguments as the route's query string: numbers and booleans as their text, arrays joined
 * with commas. An argument the schema does not name is refused (returned), as the route refuses
 * an unknown query name.
 */
export function queryOf(args: Record<string, unknown>, schema: InputSchema, skip: readonly string[] = []): { query: URLSearchParams } | { unknown: string } {
  const query = new URLSearchParams()
  for (const [name, value] of Object.entries(args)) {
    if (!(name in schema.properties)) return { unknown: name }
    if (skip.includes(name) || value === undefined || value === null) continue
    query.set(name, Array.isArray(value) ? value.map(String).join(',') : String(value))
  }
  return { query }
}
