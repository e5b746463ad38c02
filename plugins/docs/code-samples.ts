import { EXAMPLE_ORIGIN, EXAMPLE_REQUESTS, type ExampleRequest } from './operation-examples'
import { resolveRef } from './resolve-ref'
import EXAMPLE_ANSWERS from './reference-examples.json' with { type: 'json' }

/**
 * Copyable snippets of an operation's example request: curl, JavaScript with `fetch`, TypeScript
 * with the typed client of clients/typescript (openapi-fetch over the generated `paths`), and
 * Python with the standard library only. Every snippet calls EXAMPLE_ORIGIN and reads the key
 * from the environment variable MARS_API_KEY, so nothing secret is pasted into code.
 * test/reference-snippets.test.ts runs each of them against a live server.
 */
export interface CodeSample {
  /** The `lang` of the x-codeSamples extension (what documentation renderers highlight by). */
  lang: 'Shell' | 'JavaScript' | 'TypeScript' | 'Python'
  label: string
  source: string
}

const KEY_ENV = 'MARS_API_KEY'

const q = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`

function curl(ex: ExampleRequest, method: string, url: string): string {
  // -N: print each event as it comes; a stream does not end by itself (--max-time ends it).
  const parts = ex.stream ? ['curl', '-N', '--fail-with-body', '-sS', '--max-time', '30'] : ['curl', '--fail-with-body', '-sS']
  if (method !== 'GET') parts.push('-X', method)
  if (ex.keyed !== false) parts.push('-H', `"X-API-Key: $${KEY_ENV}"`)
  if (ex.body !== undefined) parts.push('-H', "'Content-Type: application/json'", '-d', `'${JSON.stringify(ex.body)}'`)
  parts.push(`'${url}'`)
  return parts.join(' ')
}

function fetchJs(ex: ExampleRequest, method: string, url: string, json: boolean): string {
  const init: string[] = []
  if (method !== 'GET') init.push(`  method: '${method}',`)
  const headers: string[] = []
  if (ex.keyed !== false) headers.push(`'X-API-Key': process.env.${KEY_ENV}`)
  if (ex.body !== undefined) headers.push("'Content-Type': 'application/json'")
  if (headers.length) init.push(`  headers: { ${headers.join(', ')} },`)
  if (ex.body !== undefined) init.push(`  body: JSON.stringify(${jsLiteral(ex.body)}),`)
  const call = init.length ? `await fetch(${q(url)}, {\n${init.join('\n')}\n})` : `await fetch(${q(url)})`
  if (ex.stream) {
    // A browser uses EventSource (docs/follow-new-photos.md); here, the first piece of the stream.
    return [`const res = ${call}`, `if (!res.ok) throw new Error(\`\${res.status}: \${await res.text()}\`)`, 'const reader = res.body.getReader()', 'console.log(new TextDecoder().decode((await reader.read()).value))', 'await reader.cancel()'].join('\n')
  }
  return [`const res = ${call}`, `if (!res.ok) throw new Error(\`\${res.status}: \${await res.text()}\`)`, json ? 'console.log(await res.json())' : 'console.log(await res.text())'].join('\n')
}

/** The path template and its values, parsed back from the example's concrete URL. */
function pathParams(template: string, path: string): Record<string, string> {
  const names: string[] = []
  const re = new RegExp('^' + template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([A-Za-z0-9_]+)\}/g, (_, n: string) => (names.push(n), '([^/]+)')) + '$')
  const m = re.exec(path)
  const out: Record<string, string> = {}
  names.forEach((n, i) => (out[n] = decodeURIComponent(m?.[i + 1] ?? '')))
  return out
}

/** A JSON value as a JavaScript literal written as people write one: `{ ids: [1, 2] }`. */
function jsLiteral(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(jsLiteral).join(', ')}]`
  if (v !== null && typeof v === 'object') return `{ ${Object.entries(v).map(([k, x]) => `${/^[A-Za-z_]\w*$/.test(k) ? k : JSON.stringify(k)}: ${jsLiteral(x)}`).join(', ')} }`
  return JSON.stringify(v)
}

/** A JavaScript literal of a query value: numbers and booleans as the typed client declares them. */
function literal(v: string, numeric: boolean): string {
  if (numeric && /^-?\d+(\.\d+)?$/.test(v)) return v
  if (v === 'true' || v === 'false') return v
  return q(v)
}

function typedClient(ex: ExampleRequest, method: string, template: string, numericParams: Set<string>, json: boolean): string | undefined {
  if (!template.startsWith('/api/')) return undefined
  const u = new URL(ex.url, EXAMPLE_ORIGIN)
  const path = pathParams(template, u.pathname)
  const query = [...u.searchParams].map(([k, v]) => `${k}: ${literal(v, numericParams.has(k))}`)
  const params: string[] = []
  if (Object.keys(path).length) params.push(`path: { ${Object.entries(path).map(([k, v]) => `${k}: ${literal(v, numericParams.has(k))}`).join(', ')} }`)
  if (query.length) params.push(`query: { ${query.join(', ')} }`)
  const opts: string[] = []
  if (params.length) opts.push(`params: { ${params.join(', ')} }`)
  if (ex.body !== undefined) opts.push(`body: ${jsLiteral(ex.body)}`)
  if (ex.stream) opts.push("parseAs: 'stream'")
  else if (!json) opts.push("parseAs: 'text'")
  const call = `await mars.${method}(${q(template)}${opts.length ? `, { ${opts.join(', ')} }` : ''})`
  return [
    "import createClient from 'openapi-fetch'",
    "import type { paths } from './clients/typescript/schema' // this API's types (clients/typescript)",
    '',
    `const mars = createClient<paths>({ baseUrl: '${EXAMPLE_ORIGIN}', headers: { 'X-API-Key': process.env.${KEY_ENV}! } })`,
    `const { data, error } = ${call}`,
    'if (error) throw new Error(JSON.stringify(error)) // a typed problem document',
    ...(ex.stream
      ? ['const reader = data!.getReader() // Server-Sent Events: the first piece, then stop', 'console.log(new TextDecoder().decode((await reader.read()).value))', 'await reader.cancel()']
      : ['console.log(data)']),
  ].join('\n')
}

function python(ex: ExampleRequest, method: string, url: string, json: boolean): string {
  const headers: string[] = []
  if (ex.keyed !== false) headers.push(`'X-API-Key': os.environ['${KEY_ENV}']`)
  if (ex.body !== undefined) headers.push("'Content-Type': 'application/json'")
  const args = [q(url)]
  if (ex.body !== undefined) args.push(`data=json.dumps(${JSON.stringify(ex.body)}).encode()`)
  if (headers.length) args.push(`headers={${headers.join(', ')}}`)
  if (method !== 'GET') args.push(`method='${method}'`)
  const imports = ['json', 'os', 'urllib.request'].filter((m) => m !== 'os' || ex.keyed !== false).filter((m) => m !== 'json' || json || ex.body !== undefined)
  return [
    `import ${imports.join(', ')}`,
    '',
    `req = urllib.request.Request(${args.join(',\n                             ')})`,
    'with urllib.request.urlopen(req) as res:',
    // A stream does not end: its first line, then the connection closes.
    ex.stream ? "    print(res.readline().decode('utf-8'))" : json ? '    print(json.load(res))' : "    print(res.read().decode('utf-8'))",
  ].join('\n')
}

/**
 * The snippets of operation `METHOD template` (as the OpenAPI document names it), or none when
 * the reference has no example request for it. `json`: whether the answer is JSON.
 * `numericParams`: the parameter names the document types as numbers (the typed client wants
 * numbers there).
 */
export function codeSamples(method: string, template: string, json: boolean, numericParams: Set<string> = new Set()): CodeSample[] {
  const ex = EXAMPLE_REQUESTS[`${method} ${template}`]
  if (!ex) return []
  const url = EXAMPLE_ORIGIN + ex.url
  const out: CodeSample[] = [
    { lang: 'Shell', label: 'curl', source: curl(ex, method, url) },
    { lang: 'JavaScript', label: 'JavaScript (fetch)', source: fetchJs(ex, method, url, json) },
  ]
  const typed = typedClient(ex, method, template, numericParams, json)
  if (typed) out.push({ lang: 'TypeScript', label: 'TypeScript (typed client)', source: typed })
  out.push({ lang: 'Python', label: 'Python (standard library)', source: python(ex, method, url, json) })
  return out
}

interface SampledOperation {
  parameters?: Array<{ name?: string; schema?: { type?: string }; $ref?: string }>
  responses?: Record<string, { $ref?: string; content?: Record<string, unknown> }>
  'x-codeSamples'?: CodeSample[]
}

/** The snippets of one operation of an OpenAPI document, typed as its parameters and answer are. */
export function operationSamples(doc: unknown, method: string, path: string, op: SampledOperation): CodeSample[] {
  const numeric = new Set(
    (op.parameters ?? [])
      .map((p) => resolveRef(doc, p))
      .filter((p) => p?.schema?.type === 'integer' || p?.schema?.type === 'number')
      .map((p) => p!.name!),
  )
  // The recorded answer's media type when there is one (an export asked for CSV is text), else the document's.
  const recorded = (EXAMPLE_ANSWERS as Record<string, { type: string }>)[`${method} ${path}`]
  const ok = resolveRef(doc, op.responses?.['200'])
  const json = recorded ? recorded.type.includes('json') : !!ok?.content && Object.keys(ok.content).some((t) => t.includes('json'))
  return codeSamples(method, path, json, numeric)
}

/**
 * `doc` with the snippets of each operation as `x-codeSamples` (the extension documentation
 * renderers such as Redoc read), so tools that render the OpenAPI document show the same snippets
 * as /api/v2/docs.
 */
export function withCodeSamples<D extends { paths: Record<string, Record<string, SampledOperation>> }>(doc: D): D {
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [m, op] of Object.entries(ops)) {
      const samples = operationSamples(doc, m.toUpperCase(), path, op)
      if (samples.length) op['x-codeSamples'] = samples
    }
  }
  return doc
}
