import type { TObject, TSchema } from '@sinclair/typebox'
import { closestName } from '../http/query-names'
import type { ParamError } from '../http/problems'

/** A tool's input JSON Schema (MCP `inputSchema`): an object of named arguments. */
export interface InputSchema {
  type: 'object'
  properties: Record<string, Record<string, unknown>>
  required?: string[]
  additionalProperties: false
}

/** Where each argument of a tool goes: the route's query string, its path parameter, its JSON body, or the tool itself. */
export type ArgumentPlace = 'query' | 'path' | 'body' | 'own'

/** Arguments of one place, as a TypeBox object schema declares them (its `required` list included). */
export interface ArgumentGroup {
  place: ArgumentPlace
  schema: TObject | undefined
  /** Names required whatever the schema says (a path parameter always is). */
  required?: readonly string[]
}

/**
 * The input schema of a tool from the TypeBox schemas of the route it answers as (its `query`,
 * `params` and `body` declarations) and of the tool's own arguments, so the tool takes exactly
 * the parameters the route declares, with the route's own words and bounds (one source of
 * truth). Integers, numbers and booleans are already typed there; a comma-separated list (a
 * string whose description says so) also takes an array of strings. Returns where each
 * argument goes with it.
 */
export function inputSchemaOf(groups: readonly ArgumentGroup[]): { schema: InputSchema; places: ReadonlyMap<string, ArgumentPlace> } {
  const properties: InputSchema['properties'] = {}
  const required: string[] = []
  const places = new Map<string, ArgumentPlace>()
  for (const g of groups) {
    for (const [name, schema] of Object.entries(g.schema?.properties ?? {})) {
      if (places.has(name)) throw new Error(`tool argument "${name}" is declared twice`)
      properties[name] = plain(schema, g.place === 'query')
      places.set(name, g.place)
    }
    for (const name of [...(g.schema?.required ?? []), ...(g.required ?? [])]) if (places.has(name) && !required.includes(name)) required.push(name)
  }
  return { schema: { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false }, places }
}

function plain(schema: TSchema, listsTakeArrays: boolean): Record<string, unknown> {
  // JSON round trip: drops TypeBox's symbol keys (Optional, Kind).
  const p = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>
  return listsTakeArrays && isList(p) ? { description: p.description, anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] } : p
}

function isList(s: Record<string, unknown>): boolean {
  return s.type === 'string' && typeof s.description === 'string' && /comma-separated/i.test(s.description)
}

/** Unknown argument names named in one error at most; the rest are counted. */
const MAX_UNKNOWN_NAMED = 10

/** A tool's arguments sorted by where they go: query-string texts, the path parameter, the body's JSON values, the tool's own texts. */
export interface SortedArguments {
  query: URLSearchParams
  path: string | undefined
  body: Record<string, unknown>
  own: URLSearchParams
}

/**
 * The arguments of a call sorted by place, with an error for each argument the tool does not
 * take (with the closest name it takes, and the names it takes), each required one missing, and
 * each query or path value that is not text, a number, a boolean or (for a list) an array of
 * them. Query and path values become the text a URL would carry (numbers and booleans as
 * written, arrays joined with commas), so the route's own parsers judge them with its own
 * messages; body values stay JSON.
 */
export function sortArguments(args: Record<string, unknown>, schema: InputSchema, places: ReadonlyMap<string, ArgumentPlace>, errors: ParamError[]): SortedArguments {
  const out: SortedArguments = { query: new URLSearchParams(), path: undefined, body: {}, own: new URLSearchParams() }
  const takes = new Set(places.keys())
  let unknown = 0
  for (const [name, value] of Object.entries(args)) {
    const place = places.get(name)
    if (place === undefined) {
      // The first few named, with the closest name (an edit distance each): a flood of names costs no more.
      if (unknown++ < MAX_UNKNOWN_NAMED) {
        const near = closestName(name, takes)
        errors.push({ parameter: clip(name), message: `is not an argument of this tool${near ? `; did you mean "${near}"?` : ''} It takes: ${takes.size ? [...takes].join(', ') : 'no arguments'}.` })
      }
      continue
    }
    if (value === undefined || value === null) continue
    if (place === 'body') {
      out.body[name] = value
      continue
    }
    const text = asText(value)
    if (text === undefined) {
      errors.push({ parameter: name, message: 'must be a string, a number or a boolean (a list: a comma-separated string or an array of strings)' })
      continue
    }
    if (place === 'path') out.path = text
    else (place === 'query' ? out.query : out.own).set(name, text)
  }
  if (unknown > MAX_UNKNOWN_NAMED) errors.push({ parameter: 'arguments', message: `${unknown - MAX_UNKNOWN_NAMED} more names this tool does not take` })
  for (const name of schema.required ?? []) {
    if (args[name] === undefined || args[name] === null) errors.push({ parameter: name, message: `is required${describe(schema.properties[name])}` })
  }
  return out
}

function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')) return value.join(',')
  return undefined
}

function describe(schema: Record<string, unknown> | undefined): string {
  return typeof schema?.description === 'string' ? `: ${schema.description}` : ''
}

/** An unknown name as it is named back: bounded, like every echo of client text. */
function clip(name: string): string {
  return name.length > 64 ? name.slice(0, 64) + '…' : name
}
