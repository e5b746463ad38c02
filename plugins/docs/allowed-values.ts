/**
 * A parameter's allowed values in words, from its JSON Schema, for the reference page: ranges as
 * "whole number from 0 to 100", unions of constants as "one of: …", and the case-insensitive
 * name patterns the parsers validate with (`[pP][eE][rR]…`) read back into the names they accept.
 * The patterns stay in the OpenAPI document for machines; people never see them.
 */
export interface ParamSchema {
  type?: string
  format?: string
  minimum?: number
  maximum?: number
  maxLength?: number
  pattern?: string
  enum?: unknown[]
  const?: unknown
  anyOf?: ParamSchema[]
  default?: unknown
}

const fmt = (n: number) => (Number.isInteger(n) && Math.abs(n) >= 10_000 ? n.toLocaleString('en-US') : String(n))

/** The words a case-insensitive name pattern accepts, in its order, without repeats: `[cC][aA][mM]` → `cam`. */
export function patternNames(pattern: string): string[] {
  const names: string[] = []
  for (const m of pattern.matchAll(/(?:\[([a-zA-Z])([a-zA-Z])\]|[_0-9])+/g)) {
    const word = m[0].replace(/\[([a-zA-Z])[a-zA-Z]\]/g, (_, c: string) => c.toLowerCase())
    if (/[a-z]/.test(word) && !names.includes(word)) names.push(word)
  }
  return names
}

function range(kind: string, s: ParamSchema): string {
  const { minimum: lo, maximum: hi } = s
  if (lo !== undefined && hi !== undefined) return `${kind} from ${fmt(lo)} to ${fmt(hi)}`
  if (lo !== undefined) return `${kind}, at least ${fmt(lo)}`
  if (hi !== undefined) return `${kind}, at most ${fmt(hi)}`
  return kind
}

/** `upper`: the parameter's description says its names are handled as upper case (cameras). */
export function allowedValues(s: ParamSchema | undefined, upper = false): string {
  if (!s) return 'any text'
  const consts = s.anyOf?.every((a) => a.const !== undefined) ? s.anyOf.map((a) => String(a.const)) : s.enum?.map(String)
  let words: string
  if (consts) words = `one of: ${consts.join(', ')}`
  else if (s.type === 'integer') words = range('whole number', s)
  else if (s.type === 'number') words = range('number', s)
  else if (s.type === 'boolean') words = 'true or false'
  else if (s.format === 'date') words = 'a date, YYYY-MM-DD'
  else if (s.pattern && patternNames(s.pattern).length > 0) {
    const names = patternNames(s.pattern).map((n) => (upper ? n.toUpperCase() : n))
    const list = /\(\?:,|\[\\s,\]/.test(s.pattern)
    const descending = s.pattern.includes('(?:-\\s*)?')
    words = `${list ? 'one or more of, comma-separated' : 'one of'}: ${names.join(', ')} (any case)${descending ? '; put - before a name for descending order' : ''}`
  } else if (s.pattern === '^[A-Za-z0-9_-]*$') words = `text of letters, digits, - and _${s.maxLength ? `, at most ${fmt(s.maxLength)} characters` : ''}`
  else words = s.maxLength ? `text, at most ${fmt(s.maxLength)} characters` : 'text'
  return s.default !== undefined ? `${words}; default ${String(s.default)}` : words
}
