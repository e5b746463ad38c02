import { Type, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { ParamError } from '../../http/problems'
import { ROVER_SLUGS, type RoverSlug } from '../../catalog/rovers'

/**
 * Query-parameter declarations: one TypeBox schema per parameter (the same schema feeds the
 * OpenAPI document) and one parser that coerces the raw text, checks it against the schema
 * and records every problem in `errors` instead of stopping at the first (decisions.md, Errors).
 *
 * Raw-value rules (decisions.md, Filters; behaviour.md §7.1): names are lower-case as in the
 * interface; a blank value counts as absent; a repeated scalar uses its first value; values
 * inside comma lists are trimmed and empty items dropped.
 */
export interface ParamSpec<T> {
  name: string
  schema: TSchema
  parse(raw: string, errors: ParamError[]): T | undefined
}

export const INT32_MAX = 2_147_483_647

/**
 * Longest text a scalar number, date or time parameter may have. Checked before any pattern, so
 * a parser's cost is bounded by this, never by what a client sends (a 15,000-digit value once took
 * 0.4 s in a backtracking pattern, and eight in parallel stalled the service). No valid value of
 * these parameters comes close: a double needs at most 24 characters, a date 10.
 */
export const MAX_SCALAR_LENGTH = 64

/** The refusal of an over-long scalar, or undefined when `raw` is within MAX_SCALAR_LENGTH. */
function tooLong(name: string, raw: string, errors: ParamError[]): boolean {
  if (raw.length <= MAX_SCALAR_LENGTH) return false
  errors.push({ parameter: name, message: `is too long (${raw.length} characters; at most ${MAX_SCALAR_LENGTH})` })
  return true
}

/**
 * A decimal number as the interface accepts it: optional sign, digits with an optional fraction
 * (or a bare fraction), optional exponent. Linear: every branch consumes a distinct character
 * class in turn, so a failing match never re-splits a run of digits (the earlier `\d+\.?\d*`
 * did, quadratically).
 */
export const DECIMAL = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/

/** Where parameters are read from: URLSearchParams, or its first values (firstValues). */
export interface ParamSource {
  get(name: string): string | null
}

/**
 * The first value of each parameter name, read in one pass: a parser that looks up every
 * parameter it knows (about forty for photos) then pays a map lookup each instead of a search
 * of the query's entries. Same answers as URLSearchParams#get.
 */
export function firstValues(params: URLSearchParams): ParamSource {
  const first = new Map<string, string>()
  params.forEach((v, k) => { if (!first.has(k)) first.set(k, v) })
  return { get: (name) => first.get(name) ?? null }
}

/** The first non-blank value of `name`, or undefined. */
export function rawParam(params: ParamSource, name: string): string | undefined {
  const v = params.get(name)
  if (v === null) return undefined
  const t = v.trim()
  return t === '' ? undefined : t
}

export function readParam<T>(params: ParamSource, spec: ParamSpec<T>, errors: ParamError[]): T | undefined {
  const raw = rawParam(params, spec.name)
  return raw === undefined ? undefined : spec.parse(raw, errors)
}

function check(spec: { name: string; schema: TSchema }, value: unknown, errors: ParamError[], message: string): boolean {
  if (Value.Check(spec.schema, value)) return true
  errors.push({ parameter: spec.name, message })
  return false
}

/** Shortened echo of a bad value for messages (no control characters, at most 40 chars). */
export function echo(raw: string): string {
  const clean = raw.replace(/[\u0000-\u001f\u007f]/g, '?')
  return clean.length > 40 ? `${clean.slice(0, 40)}…` : clean
}

export function intParam(name: string, min: number, max: number, description: string): ParamSpec<number> {
  const schema = Type.Integer({ minimum: min, maximum: max, description })
  const spec: ParamSpec<number> = {
    name,
    schema,
    parse(raw, errors) {
      if (tooLong(name, raw, errors)) return undefined
      if (!/^[+-]?\d{1,20}$/.test(raw)) {
        errors.push({ parameter: name, message: `must be an integer from ${min} to ${max}, got "${echo(raw)}"` })
        return undefined
      }
      const n = Number(raw)
      return check(spec, n, errors, `must be an integer from ${min} to ${max}, got ${echo(raw)}`) ? n : undefined
    },
  }
  return spec
}

export function numberParam(name: string, min: number, max: number, description: string): ParamSpec<number> {
  const schema = Type.Number({ minimum: min, maximum: max, description })
  const spec: ParamSpec<number> = {
    name,
    schema,
    parse(raw, errors) {
      if (tooLong(name, raw, errors)) return undefined
      const n = DECIMAL.test(raw) ? Number(raw) : NaN
      if (!Number.isFinite(n)) {
        errors.push({ parameter: name, message: `must be a number from ${min} to ${max}, got "${echo(raw)}"` })
        return undefined
      }
      return check(spec, n, errors, `must be a number from ${min} to ${max}, got ${echo(raw)}`) ? n : undefined
    },
  }
  return spec
}

export function boolParam(name: string, description: string): ParamSpec<boolean> {
  const schema = Type.Boolean({ description })
  return {
    name,
    schema,
    parse(raw, errors) {
      const v = raw.toLowerCase()
      if (v === 'true') return true
      if (v === 'false') return false
      errors.push({ parameter: name, message: `must be true or false, got "${echo(raw)}"` })
      return undefined
    },
  }
}

/** YYYY-MM-DD that is a real calendar date; parsed to days since 1970-01-01. */
export function dateParam(name: string, description: string): ParamSpec<number> {
  const schema = Type.String({ format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description })
  return {
    name,
    schema,
    parse(raw, errors) {
      if (tooLong(name, raw, errors)) return undefined
      const days = parseDay(raw)
      if (days === undefined) errors.push({ parameter: name, message: `must be a calendar date YYYY-MM-DD, got "${echo(raw)}"` })
      return days
    },
  }
}

/**
 * An RFC 3339 date-time (ISO 8601 with seconds and an explicit offset), read as ms since the Unix
 * epoch; fractions of a millisecond are kept, so a bound compares exactly. Without an offset a
 * time is ambiguous, so it is refused rather than guessed.
 */
export function instantParam(name: string, description: string): ParamSpec<number> {
  const schema = Type.String({ format: 'date-time', pattern: INSTANT_PATTERN, description })
  return {
    name,
    schema,
    parse(raw, errors) {
      if (tooLong(name, raw, errors)) return undefined
      const ms = parseInstant(raw)
      if (ms === undefined) {
        // A "+" of an offset written unencoded in a URL reads as a blank.
        const hint = /\d \d{2}:\d{2}$/.test(raw) ? ' (write the "+" of an offset as %2B in a URL)' : ''
        errors.push({ parameter: name, message: `must be an ISO 8601 date-time with an offset, e.g. 2024-05-01T12:00:00Z, got "${echo(raw)}"${hint}` })
      }
      return ms
    },
  }
}

const INSTANT_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,9})?(?:Z|[+-]\\d{2}:\\d{2})$'
// INSTANT_PATTERN with groups (test/param-agreement.test.ts holds the two to the same values).
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|([+-])(\d{2}):(\d{2}))$/

export function parseInstant(raw: string): number | undefined {
  const m = INSTANT.exec(raw)
  if (!m) return undefined
  const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]))
  if (h! > 23 || mi! > 59 || s! > 59) return undefined
  if (parseDay(raw.slice(0, 10)) === undefined) return undefined
  let ms = Date.UTC(y!, mo! - 1, d!, h, mi, s) + (m[7] ? Number(m[7]) * 1000 : 0)
  if (m[8] !== 'Z') {
    const oh = Number(m[10])
    const om = Number(m[11])
    if (oh > 23 || om > 59) return undefined
    ms -= (m[9] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000
  }
  return ms
}

export function parseDay(raw: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw)
  if (!m) return undefined
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const ms = Date.UTC(y, mo - 1, d)
  const back = new Date(ms)
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return undefined
  return Math.round(ms / 86_400_000)
}

/** Comma list whose items must come from `allowed` after `normalise`; unknown items are errors naming the valid ones. */
export function listParam(name: string, allowed: readonly string[], normalise: (s: string) => string, description: string): ParamSpec<string[]> {
  const caseless = allowed.every((a) => normalise(a.toUpperCase()) === a || normalise(a.toLowerCase()) === a)
  const schema = Type.String({ description: `${description} Comma-separated; one or more of: ${allowed.join(', ')}.`, pattern: listPattern(allowed, caseless) })
  return {
    name,
    schema,
    parse(raw, errors) {
      const items = splitList(raw).map(normalise)
      const bad = items.filter((i) => !allowed.includes(i))
      if (bad.length) {
        errors.push({ parameter: name, message: `unknown value${bad.length > 1 ? 's' : ''} ${bad.map((b) => `"${echo(b)}"`).join(', ')}; valid: ${allowed.join(', ')}` })
        return undefined
      }
      return items.length ? [...new Set(items)] : undefined
    },
  }
}

/**
 * One value of `allowed`, in either case, blanks around it ignored (as a list item is read; a blank
 * value is no value, as for every parameter: rawParam), for
 * parameters that take exactly one: the schema's pattern and the parser accept the same strings
 * (test/param-agreement), so a comma list is refused by both, not advertised by one and refused
 * by the other.
 */
export function choiceParam<T extends string>(name: string, allowed: readonly T[], description: string, unknown = (raw: string) => `must be one of ${allowed.join(', ')}, got "${echo(raw)}"`): ParamSpec<T> {
  const schema = Type.String({ description: `${description} One of: ${allowed.join(', ')} (case-insensitive).`, pattern: `^\\s*(?:${itemAlternation(allowed, true)}\\s*)?$` })
  return {
    name,
    schema,
    parse(raw, errors) {
      const v = raw.trim().toLowerCase()
      const hit = allowed.find((a) => a.toLowerCase() === v)
      if (hit === undefined) errors.push({ parameter: name, message: unknown(raw) })
      return hit
    },
  }
}

/**
 * The JSON Schema pattern of a comma list whose items come from `items` (test/param-agreement
 * proves the parsers and these patterns accept the same values): blanks around items and empty
 * items allowed, as splitList() reads them; `caseless`: every letter in either case.
 */
export function listPattern(items: readonly string[], caseless: boolean, prefix = ''): string {
  const alt = itemAlternation(items, caseless)
  // One \\s* before an item and one after it: no two adjacent runs of blanks to backtrack between.
  const item = `(?:${prefix}${alt}\\s*)`
  return `^\\s*${item}?(?:,\\s*${item}?)*$`
}

/** `(?:a|b|c)` matching exactly one of `items` (longest first); `caseless`: every letter in either case. */
export function itemAlternation(items: readonly string[], caseless: boolean): string {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const letterClass = (s: string) => [...s].map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : esc(c))).join('')
  return '(?:' + [...items].sort((a, b) => b.length - a.length).map((i) => (caseless ? letterClass(i) : esc(i))).join('|') + ')'
}

export function splitList(raw: string): string[] {
  return raw.split(',').map((s) => s.trim()).filter((s) => s !== '')
}

// ---- parameters shared by every list endpoint -------------------------------------------

export const MAX_PER_PAGE = 100
export const DEFAULT_PER_PAGE = 25

export const ROVERS_PARAM = listParam('rovers', ROVER_SLUGS, (s) => s.toLowerCase(), 'Rover slugs, handled as lower case.') as ParamSpec<RoverSlug[]>

export const PAGE_PARAM = intParam('page', 1, INT32_MAX, 'Page number, 1-indexed. Default 1.')

/** per_page: 1 or more; above 100 is served as 100 (the interface's cap); below 1 or not an integer: 400. */
export const PER_PAGE_PARAM: ParamSpec<number> = (() => {
  const schema = Type.Integer({ minimum: 1, description: 'Page size, default 25. The effective size is capped at 100.' })
  return {
    name: 'per_page',
    schema,
    parse(raw: string, errors: ParamError[]) {
      if (!/^[+-]?\d{1,20}$/.test(raw) || Number(raw) < 1) {
        errors.push({ parameter: 'per_page', message: `must be an integer of 1 or more (values above ${MAX_PER_PAGE} are served as ${MAX_PER_PAGE}), got "${echo(raw)}"` })
        return undefined
      }
      return Math.min(Number(raw), MAX_PER_PAGE)
    },
  }
})()

export const SOL_MIN_PARAM = intParam('sol_min', 0, INT32_MAX, 'Minimum sol, inclusive.')
export const SOL_MAX_PARAM = intParam('sol_max', 0, INT32_MAX, 'Maximum sol, inclusive.')

export interface Paging {
  page: number
  perPage: number
}

export function readPaging(params: ParamSource, errors: ParamError[]): Paging {
  return {
    page: readParam(params, PAGE_PARAM, errors) ?? 1,
    perPage: readParam(params, PER_PAGE_PARAM, errors) ?? DEFAULT_PER_PAGE,
  }
}

/** Records a 400 item when both bounds are present and min > max (error named after the *_min parameter). */
export function checkRange(minName: string, min: number | undefined, max: number | undefined, errors: ParamError[]): void {
  if (min !== undefined && max !== undefined && min > max) {
    errors.push({ parameter: minName, message: `must not be greater than ${minName.replace(/_min$/, '_max').replace(/^min_/, 'max_')} (${min} > ${max})` })
  }
}
