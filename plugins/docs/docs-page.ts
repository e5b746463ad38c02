import { allowedValues, type ParamSchema } from './allowed-values'
import { operationSamples } from './code-samples'
import { escapeHtml as esc, markdownHtml } from './markdown-html'
import { EXAMPLE_ORIGIN, EXAMPLE_REQUESTS, type ExampleAnswer } from './operation-examples'
import { REFERENCE_SECTIONS, sectionOf } from './reference-sections'
import { resolveRef } from './resolve-ref'
import EXAMPLE_ANSWERS from './reference-examples.json' with { type: 'json' }

/**
 * The reference at /api/v2/docs: one HTML page rendered on the server from the OpenAPI document,
 * for people. Sections in reading order (reference-sections.ts); each operation with its one-line
 * purpose, its description, its parameters with their allowed values in words, its example
 * request and the answer the default index gives to it, and snippets to copy; the protocol notes
 * (authentication, limits, errors, caching) after the operations. No script at all (nothing to
 * allow in the page's Content-Security-Policy beyond its one style block); Markdown is rendered
 * here with every text escaped (markdown-html.ts).
 */
interface Doc {
  info: { title: string; version: string; description?: string }
  tags?: Array<{ name: string; description?: string }>
  paths: Record<string, Record<string, Operation>>
  components?: { responses?: Record<string, { description?: string }>; parameters?: Record<string, Parameter> }
}
interface Parameter {
  name: string
  in: string
  required?: boolean
  description?: string
  schema?: ParamSchema
  $ref?: string
}
interface Operation {
  operationId?: string
  summary?: string
  description?: string
  tags?: string[]
  security?: unknown[]
  parameters?: Parameter[]
  requestBody?: { content?: Record<string, { schema?: unknown }> }
  responses?: Record<string, { description?: string; $ref?: string; content?: Record<string, unknown> }>
}

const ANSWERS = EXAMPLE_ANSWERS as Record<string, ExampleAnswer>
const EXAMPLE_ORDER = Object.keys(EXAMPLE_REQUESTS)

const resolve = <T>(doc: Doc, obj: T | undefined): T | undefined => resolveRef(doc, obj)

const anchor = (method: string, path: string) => `${method.toLowerCase()}-${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '')}`

function paramsTable(doc: Doc, op: Operation): string {
  const params = (op.parameters ?? []).map((p) => resolve(doc, p)!).filter(Boolean)
  if (!params.length) return ''
  const rows = params.map((p) => {
    const upper = /upper case/i.test(p.description ?? '')
    return `<tr><td><code>${esc(p.name)}</code>${p.required ? ' <span class="req">required</span>' : ''}<div class="in">${esc(p.in)}</div></td><td>${esc(allowedValues(p.schema, upper))}</td><td>${markdownHtml(p.description)}</td></tr>`
  })
  return `<h4>Parameters</h4><table class="params"><thead><tr><th>Name</th><th>Allowed values</th><th>Meaning</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
}

function requestBody(op: Operation): string {
  const schema = op.requestBody?.content?.['application/json']?.schema
  if (!schema) return ''
  return `<h4>Request body</h4><p>JSON (<code>Content-Type: application/json</code>):</p><pre>${esc(JSON.stringify(schema, null, 2))}</pre>`
}

function example(method: string, path: string): string {
  const ex = EXAMPLE_REQUESTS[`${method} ${path}`]
  if (!ex) return ''
  const answer = ANSWERS[`${method} ${path}`]
  let out = `<h4>Example</h4><pre class="req">${esc(`${method} ${ex.url}`)}${ex.body !== undefined ? '\n\n' + esc(JSON.stringify(ex.body)) : ''}</pre>`
  if (answer) {
    const body = answer.json !== undefined ? JSON.stringify(answer.json, null, 2) : (answer.text ?? '')
    const note = answer.trimmed ? `<p class="note">Lists shortened to their first items; the real answer has more.</p>` : ''
    out += `<p class="note">Answer (${answer.status}, <code>${esc(answer.type)}</code>) from the default index:</p><pre class="ans">${esc(body)}</pre>${note}`
  }
  return out
}

function snippets(doc: Doc, method: string, path: string, op: Operation): string {
  const samples = operationSamples(doc, method, path, op)
  if (!samples.length) return ''
  return `<div class="snippets">${samples.map((s, i) => `<details${i === 0 ? ' open' : ''}><summary>${esc(s.label)}</summary><pre>${esc(s.source)}</pre></details>`).join('')}</div>`
}

function responses(doc: Doc, op: Operation): string {
  const items = Object.entries(op.responses ?? {}).map(([status, r]) => `<li><b>${esc(status)}</b> ${esc(resolve(doc, r)?.description ?? '')}</li>`)
  return items.length ? `<h4>Answers</h4><ul class="answers">${items.join('')}</ul>` : ''
}

function operation(doc: Doc, method: string, path: string, op: Operation): string {
  const id = anchor(method, path)
  const open = op.security && op.security.length === 0 ? '<p class="note">No key needed; not counted against your limits.</p>' : ''
  return `<section class="op" id="${id}">
<h3><a href="#${id}"><span class="m ${method.toLowerCase()}">${method}</span> <span class="path">${esc(path)}</span></a></h3>
<p class="purpose">${esc(op.summary ?? '')}</p>
${op.description ? `<div class="md">${markdownHtml(op.description)}</div>` : ''}${open}
${paramsTable(doc, op)}${requestBody(op)}${example(method, path)}${snippets(doc, method, path, op)}${responses(doc, op)}
</section>`
}

function problemTypes(doc: Doc): string {
  const rows = Object.values(doc.components?.responses ?? {}).map((r) => `<li>${esc(r.description ?? '')}</li>`)
  return rows.length ? `<h3 id="problem-types">Problem types</h3><ul>${rows.join('')}</ul>` : ''
}

const STYLE = `body{font:16px/1.55 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
header{background:#8a2b0e;color:#fff;padding:1rem 2rem}header h1{margin:0;font-size:1.4rem}header a{color:#fff}
nav.site a{margin-right:1rem}main{max-width:1100px;margin:0 auto;padding:1rem 2rem}
.toc{columns:2;background:#fff;border:1px solid #ddd;border-radius:6px;padding:.6rem 1.6rem}
section.op{background:#fff;border:1px solid #ddd;border-radius:6px;margin:1rem 0;padding:.2rem 1rem 1rem}
section.op h3 a{color:inherit;text-decoration:none}.purpose{font-size:1.05rem;margin:.2rem 0 .6rem}
.m{font:700 .8rem monospace;padding:.15rem .5rem;border-radius:4px;color:#fff;background:#2a6fb0}.m.post{background:#2f8f46}
.path{font-family:ui-monospace,monospace}.note{color:#555;font-size:.9rem}.req{color:#8a2b0e;font-size:.8rem}.in{color:#777;font-size:.8rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}td,th{border-bottom:1px solid #eee;padding:.35rem .4rem;text-align:left;vertical-align:top}
td:first-child{white-space:nowrap}code,pre{font-family:ui-monospace,monospace;font-size:.85rem}
pre{background:#f3f3f3;padding:.6rem;overflow:auto;max-height:28rem;border-radius:4px;white-space:pre}
.md p{margin:.3rem 0}.md code,td code,p code,li code{background:#f0f0f0;padding:0 .2rem;border-radius:3px}
.snippets details{margin:.3rem 0}.snippets summary{cursor:pointer;font-weight:600}
h2{margin-top:2rem;color:#8a2b0e}`

/** The reference page of `doc` (the service's OpenAPI document). */
export function docsPage(doc: Doc): string {
  const bySection = new Map<string, Array<{ method: string; path: string; op: Operation }>>()
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [m, op] of Object.entries(ops)) {
      const method = m.toUpperCase()
      const list = bySection.get(sectionOf(path).id) ?? []
      list.push({ method, path, op })
      bySection.set(sectionOf(path).id, list)
    }
  }
  const rank = (e: { method: string; path: string }) => {
    const i = EXAMPLE_ORDER.indexOf(`${e.method} ${e.path}`)
    return i < 0 ? EXAMPLE_ORDER.length : i
  }
  const sections = REFERENCE_SECTIONS.filter((s) => bySection.has(s.id)).map((s) => ({ s, ops: bySection.get(s.id)!.sort((a, b) => rank(a) - rank(b)) }))
  const toc = sections
    .map(({ s, ops }) => `<li><a href="#${s.id}">${esc(s.title)}</a><ul>${ops.map((e) => `<li><a href="#${anchor(e.method, e.path)}">${esc(e.op.summary ?? e.path)}</a></li>`).join('')}</ul></li>`)
    .join('')
  // A tag whose operations all sit in one section adds its description there (the v1 layer's, say).
  const tagSections = new Map<string, Set<string>>()
  for (const { s, ops } of sections) for (const e of ops) for (const tag of e.op.tags ?? []) (tagSections.get(tag) ?? tagSections.set(tag, new Set()).get(tag)!).add(s.id)
  const tagNotes = (id: string) =>
    (doc.tags ?? [])
      .filter((t) => t.description && tagSections.get(t.name)?.size === 1 && tagSections.get(t.name)!.has(id))
      .map((t) => markdownHtml(t.description))
      .join('')
  const body = sections
    .map(({ s, ops }) => `<h2 id="${s.id}">${esc(s.title)}</h2><div class="md">${markdownHtml(s.intro)}${tagNotes(s.id)}</div>${ops.map((e) => operation(doc, e.method, e.path, e.op)).join('\n')}`)
    .join('\n')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.info.title)} - reference</title>
<style>${STYLE}</style></head>
<body><header><h1>${esc(doc.info.title)}</h1><nav class="site"><a href="/">Home</a><a href="/api/v2/docs">API docs</a><a href="/dashboard">Dashboard</a><a href="/rovers/curiosity">Rovers</a><a href="/api/v2/openapi.json">OpenAPI document</a></nav><div>Version ${esc(doc.info.version)}</div></header>
<main>
<section class="md" id="start"><h2>Getting started</h2>
<p>Every example calls <code>${EXAMPLE_ORIGIN}</code>: put your server's address in its place. Every path under <code>/api</code> needs an API key in the <code>X-API-Key</code> header (<a href="/dashboard">get a key</a>); the snippets read it from the environment variable <code>MARS_API_KEY</code>. Answers are JSON; errors are problem documents that name what is wrong. The example answers below come from the default index (the bundled real records), shortened where marked.</p></section>
<nav class="toc" aria-label="Contents"><ul>${toc}<li><a href="#protocol">Protocol notes</a></li></ul></nav>
${body}
<h2 id="protocol">Protocol notes</h2>
<div class="md">${markdownHtml(doc.info.description)}</div>
${problemTypes(doc)}
</main></body></html>`
}
