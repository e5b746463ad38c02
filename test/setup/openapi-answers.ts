/**
 * Validates recorded HTTP answers against the OpenAPI document that promised them: the
 * operation is found by matching the URL path against the document's path templates, the
 * response by status, and the body is checked with ajv (JSON Schema 2020-12, formats on)
 * against that response's schema for the answer's media type.
 */
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { TOOLS } from './openapi-tools'

const requireTool = createRequire(join(TOOLS, 'package.json'))

export interface Answer {
  method: string
  url: string
  status: number
  contentType: string
  body: string
}

export function answerValidator(doc: any): (a: Answer) => string[] {
  const Ajv2020 = requireTool(join(TOOLS, 'node_modules', 'ajv', 'dist', '2020.js')).default
  const addFormats = requireTool(join(TOOLS, 'node_modules', 'ajv-formats', 'dist', 'index.js')).default
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true })
  addFormats(ajv)
  ajv.addSchema(doc, 'openapi.json')
  const templates = Object.keys(doc.paths).map((p) => ({ p, re: new RegExp('^' + p.replace(/\{[^}]+\}/g, '[^/]+').replace(/\./g, '\\.') + '$') }))
  const resolve = (obj: any) => {
    let seen = 0
    while (obj?.$ref && seen++ < 10) obj = obj.$ref.replace(/^#\//, '').split('/').reduce((o: any, k: string) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc)
    return obj
  }
  const pointer = (...parts: string[]) => parts.map((x) => x.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')
  return (a) => {
    const path = new URL(a.url).pathname
    const t = templates.filter((x) => x.re.test(path)).sort((x, y) => (x.p.includes('{') ? 1 : 0) - (y.p.includes('{') ? 1 : 0))[0]
    if (!t) return [`no path of the document matches ${path}`]
    const op = doc.paths[t.p][a.method.toLowerCase()]
    if (!op) return [`${a.method} ${t.p} is not in the document`]
    const declared = op.responses[String(a.status)]
    if (!declared) return [`${a.method} ${t.p} does not document status ${a.status}`]
    const response = resolve(declared)
    const media = a.contentType.split(';')[0]!.trim()
    if (!response.content) return a.body === '' ? [] : [`status ${a.status} documents no body`]
    if (!response.content[media]) return [`status ${a.status} does not document ${media}`]
    // Refer into the document so every $ref resolves against it.
    const where = declared.$ref ? declared.$ref.slice(1) : '/' + pointer('paths', t.p, a.method.toLowerCase(), 'responses', String(a.status))
    const validate = ajv.getSchema('openapi.json#' + where + '/' + pointer('content', media, 'schema')) ?? ajv.compile({ $ref: 'openapi.json#' + where + '/' + pointer('content', media, 'schema') })
    const ok = validate(JSON.parse(a.body))
    return ok ? [] : (validate.errors ?? []).map((e: any) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`)
  }
}
