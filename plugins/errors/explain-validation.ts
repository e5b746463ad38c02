import type { TObject, TSchema } from '@sinclair/typebox'
import type { ParamError } from '../../src/http/problems'

/**
 * Turns a failed request validation into one `{parameter, message}` per bad parameter
 * (decisions.md, Errors: a 400 names every bad parameter at once).
 *
 * Elysia stops early and reports coerced query values without their names, so when the route's
 * schemas are known (src/http/route-docs.ts) every parameter is checked again here, by a small
 * reader of the schema shapes used for query and path parameters (Elysia's t.Numeric / t.Integer
 * / t.BooleanString unions, plain TypeBox integer / number / boolean / string, literal unions).
 */
export function checkParameters(schema: TObject, get: (name: string) => string | null | undefined): ParamError[] {
  const out: ParamError[] = []
  const required = new Set(schema.required ?? [])
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const raw = get(name)
    if (raw === null || raw === undefined) {
      if (required.has(name)) out.push({ parameter: name, message: 'is required' })
      continue
    }
    const problem = checkValue(prop as TSchema, raw)
    if (problem) out.push({ parameter: name, message: problem })
  }
  return out
}

type Shape =
  | { kind: 'integer' | 'number'; min?: number; max?: number; exMin?: number; exMax?: number }
  | { kind: 'boolean' }
  | { kind: 'enum'; values: string[] }
  | { kind: 'string'; minLength?: number; maxLength?: number; pattern?: RegExp; format?: string }
  | { kind: 'unknown' }

/** The message for a bad raw value, or undefined when it is acceptable. */
export function checkValue(schema: TSchema, raw: string): string | undefined {
  const shape = shapeOf(schema)
  const bad = (): string => (typeof schema.error === 'string' ? schema.error : describe(shape, schema))
  switch (shape.kind) {
    case 'integer':
    case 'number': {
      const t = raw.trim()
      const n = Number(t)
      if (t === '' || !Number.isFinite(n)) return bad()
      if (shape.kind === 'integer' && (!/^[+-]?\d+$/.test(t) || !Number.isSafeInteger(n))) return bad()
      if (shape.min !== undefined && n < shape.min) return bad()
      if (shape.max !== undefined && n > shape.max) return bad()
      if (shape.exMin !== undefined && n <= shape.exMin) return bad()
      if (shape.exMax !== undefined && n >= shape.exMax) return bad()
      return undefined
    }
    case 'boolean':
      return raw === 'true' || raw === 'false' ? undefined : bad()
    case 'enum':
      return shape.values.includes(raw) ? undefined : bad()
    case 'string':
      if (shape.minLength !== undefined && raw.length < shape.minLength) return bad()
      if (shape.maxLength !== undefined && raw.length > shape.maxLength) return bad()
      if (shape.pattern && !shape.pattern.test(raw)) return bad()
      return undefined
    default:
      return undefined
  }
}

/** A human sentence (after the parameter name) for what `schema` accepts. */
export function describeSchema(schema: TSchema): string {
  return typeof schema.error === 'string' ? schema.error : describe(shapeOf(schema), schema)
}

function describe(shape: Shape, schema: TSchema): string {
  switch (shape.kind) {
    case 'integer':
    case 'number': {
      const what = shape.kind === 'integer' ? 'an integer' : 'a number'
      const lo = shape.min ?? (shape.exMin !== undefined ? `more than ${shape.exMin}` : undefined)
      const hi = shape.max ?? (shape.exMax !== undefined ? `less than ${shape.exMax}` : undefined)
      if (typeof lo === 'number' && typeof hi === 'number') return `must be ${what} from ${lo} to ${hi}`
      if (lo !== undefined && hi === undefined) return typeof lo === 'number' ? `must be ${what} of at least ${lo}` : `must be ${what} ${lo}`
      if (hi !== undefined && lo === undefined) return typeof hi === 'number' ? `must be ${what} of at most ${hi}` : `must be ${what} ${hi}`
      if (lo !== undefined && hi !== undefined) return `must be ${what}, ${lo} and ${hi}`
      return `must be ${what}`
    }
    case 'boolean':
      return 'must be true or false'
    case 'enum':
      return `must be one of: ${shape.values.join(', ')}`
    case 'string': {
      const example = Array.isArray(schema.examples) ? schema.examples[0] : schema.example
      if (shape.pattern) return schema.description ? `must be ${schema.description}` : `has an invalid format${example ? ` (e.g. ${example})` : ''}`
      if (shape.maxLength !== undefined) return `must be at most ${shape.maxLength} characters long`
      if (shape.minLength !== undefined) return `must be at least ${shape.minLength} characters long`
      return 'is invalid'
    }
    default:
      return 'is invalid'
  }
}

function shapeOf(s: TSchema): Shape {
  const branches: TSchema[] = Array.isArray(s.anyOf) ? s.anyOf : [s]
  const types = new Set(branches.map((b) => (b.type === 'string' && (b.format === 'integer' || b.format === 'numeric' || b.format === 'boolean') ? b.format : b.type)))
  if (branches.length > 1 && branches.every((b) => b.const !== undefined)) return { kind: 'enum', values: branches.map((b) => String(b.const)) }
  if (Array.isArray(s.enum)) return { kind: 'enum', values: s.enum.map(String) }
  if (s.const !== undefined) return { kind: 'enum', values: [String(s.const)] }
  const numeric = branches.find((b) => b.type === 'integer' || b.type === 'number') ?? s
  const bounds = {
    min: num(s.minimum) ?? num(numeric.minimum),
    max: num(s.maximum) ?? num(numeric.maximum),
    exMin: num(s.exclusiveMinimum) ?? num(numeric.exclusiveMinimum),
    exMax: num(s.exclusiveMaximum) ?? num(numeric.exclusiveMaximum),
  }
  if (types.has('integer')) return { kind: 'integer', ...bounds }
  if (types.has('number') || types.has('numeric')) return { kind: 'number', ...bounds }
  if (types.has('boolean')) return { kind: 'boolean' }
  if (types.size === 1 && types.has('string')) {
    const str = branches[0]!
    let pattern: RegExp | undefined
    try {
      pattern = typeof str.pattern === 'string' ? new RegExp(str.pattern) : undefined
    } catch {
      pattern = undefined
    }
    return { kind: 'string', minLength: num(str.minLength), maxLength: num(str.maxLength), pattern, format: str.format }
  }
  return { kind: 'unknown' }
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' ? v : undefined
}
