import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { allowedValues, patternNames } from '../plugins/docs/allowed-values'
import { markdownHtml } from '../plugins/docs/markdown-html'
import { EXAMPLE_REQUESTS, recordExamples, withoutVolatile } from '../plugins/docs/operation-examples'
import { REFERENCE_SECTIONS } from '../plugins/docs/reference-sections'
import { makeTestApp, type TestApp } from './setup/test-app'

/**
 * The reference at /api/v2/docs, read as a person reads it: sections in order, each operation
 * with its purpose, its parameters' allowed values in words, a real example and snippets; the
 * protocol notes after the operations; nothing a person cannot read (regex patterns) and no
 * address but the placeholder.
 */
let t: TestApp
let html: string
let doc: { paths: Record<string, Record<string, { summary?: string; 'x-codeSamples'?: Array<{ lang: string; label: string; source: string }> }>> }
beforeAll(async () => {
  t = await makeTestApp()
  html = await (await t.anonymous('/api/v2/docs')).text()
  doc = (await (await t.anonymous('/api/v2/openapi.json')).json()) as typeof doc
})
afterAll(() => t.close())

const operations = () => Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))

describe('the reference page', () => {
  test('reads photos, rovers, cameras, stats, locations, panoramas, journeys, export, v1, then the service and the protocol notes', () => {
    const order = [...REFERENCE_SECTIONS.map((s) => `<h2 id="${s.id}">`), '<h2 id="protocol">'].map((h) => html.indexOf(h))
    expect(order.every((i) => i > 0)).toBe(true)
    expect(order).toEqual([...order].sort((a, b) => a - b))
    expect(REFERENCE_SECTIONS.map((s) => s.id)).toEqual(['photos', 'rovers', 'cameras', 'stats', 'locations', 'panoramas', 'journeys', 'export', 'v1', 'service'])
    // Limits, errors and caching come after the last operation.
    const lastOp = html.lastIndexOf('<section class="op"')
    for (const note of ['<strong>Limits</strong>', '<strong>Errors</strong>', '<strong>Conditional requests</strong>']) expect(html.indexOf(note)).toBeGreaterThan(lastOp)
  })

  test('puts each operation in its section: /photos/stats under stats, /photos/export under export, journeys and traverses under journeys', () => {
    const sectionOf = (anchor: string) => {
      const at = html.indexOf(`id="${anchor}"`)
      expect(at).toBeGreaterThan(0)
      return [...html.slice(0, at).matchAll(/<h2 id="([a-z0-9]+)">/g)].pop()![1]
    }
    expect(sectionOf('get-api-v2-photos')).toBe('photos')
    expect(sectionOf('post-api-v2-photos-batch')).toBe('photos')
    expect(sectionOf('get-api-v2-photos-stats')).toBe('stats')
    expect(sectionOf('get-api-v2-photos-export')).toBe('export')
    expect(sectionOf('get-api-v2-rovers-slug-journey')).toBe('journeys')
    expect(sectionOf('get-api-v2-rovers-slug-traverse')).toBe('journeys')
    expect(sectionOf('get-api-v2-rovers-slug-manifest')).toBe('rovers')
    expect(sectionOf('get-api-v1-rovers-name-photos')).toBe('v1')
    expect(sectionOf('get-health')).toBe('service')
  })

  test('gives every operation its one-line purpose, and every /api operation an example request with snippets', () => {
    for (const op of operations()) {
      const [method, path] = op.split(' ') as [string, string]
      const o = doc.paths[path]![method.toLowerCase()]!
      expect(o.summary?.length ?? 0).toBeGreaterThan(5)
      expect(html).toContain(`<p class="purpose">${o.summary!.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')}</p>`)
      if (path.startsWith('/api/')) expect(EXAMPLE_REQUESTS[op], op).toBeDefined()
    }
  })

  test('shows no regex pattern and no address but the placeholder https://mars-api.example', () => {
    expect(html).not.toContain('[pP]')
    expect(html).not.toMatch(/\[[a-z][A-Z]\]\[[a-z][A-Z]\]/)
    expect(html).not.toMatch(/localhost|127\.0\.0\.1/)
    expect(html).toContain('https://mars-api.example/api/v2/photos?rovers=curiosity')
  })

  test('states allowed values in words, read back from the schemas', () => {
    expect(html).toContain('one or more of, comma-separated: perseverance, opportunity, curiosity, spirit (any case)')
    expect(html).toContain('whole number from 0 to 2,147,483,647')
    expect(html).toContain('one of: arrow, ndjson, csv')
    expect(html).toContain('a date, YYYY-MM-DD')
    expect(patternNames('^\\s*(?:(?:[cC][aA][mM][eE][rR][aA]|[rR][oO][vV][eE][rR]|[sS][oO][lL])\\s*)?$')).toEqual(['camera', 'rover', 'sol'])
    expect(allowedValues({ type: 'string', pattern: '^\\s*(?:(?:-\\s*)?(?:[sS][oO][lL]|[iI][dD])\\s*)?(?:,\\s*(?:(?:-\\s*)?(?:[sS][oO][lL]|[iI][dD])\\s*)?)*$' })).toBe(
      'one or more of, comma-separated: sol, id (any case); put - before a name for descending order',
    )
    expect(allowedValues({ type: 'integer', minimum: 1, maximum: 100 })).toBe('whole number from 1 to 100')
    expect(allowedValues({ type: 'string', pattern: '^M?(?:[01]?\\d|2[0-3]):[0-5]\\d$' })).toBe('text')
  })

  test('renders Markdown with every text escaped: raw HTML stays text and only http(s), relative and # links become anchors', () => {
    const out = markdownHtml('Intro <script>alert(1)</script> with [docs](/api/v2/docs) and [bad](javascript:void).\n\n- one *item*\n- two `a<b`')
    expect(out).toBe(
      '<p>Intro &lt;script&gt;alert(1)&lt;/script&gt; with <a href="/api/v2/docs">docs</a> and bad.</p><ul><li>one <em>item</em></li><li>two <code>a&lt;b</code></li></ul>',
    )
  })
})

describe('the example answers', () => {
  test('are what the default index answers today (npm run docs:examples rewrites them after a catalogue or shape change)', async () => {
    const committed = JSON.parse(readFileSync(join(import.meta.dir, '../plugins/docs/reference-examples.json'), 'utf8'))
    const now = await recordExamples((url, init) => t.request(url, init), 'http://localhost')
    expect(withoutVolatile(now)).toEqual(withoutVolatile(committed))
  })

  test('are shown on the page under their operation, with the placeholder origin in their links', () => {
    const at = html.indexOf('id="get-api-v2-locations"')
    const section = html.slice(at, html.indexOf('</section>', at))
    expect(section).toContain('<pre class="req">GET /api/v2/locations?rovers=curiosity&amp;min_photos=50&amp;per_page=2</pre>')
    expect(section).toContain('&quot;photos&quot;: &quot;https://mars-api.example/api/v2/photos?rovers=curiosity&amp;site=4&amp;drive=916&quot;')
  })
})

describe('the OpenAPI document', () => {
  test('carries the same snippets as x-codeSamples: curl, fetch, the typed client and Python for every /api/v2 operation', () => {
    for (const op of operations().filter((o) => o.includes(' /api/v2') && !/openapi\.json|\/docs$/.test(o))) {
      const [method, path] = op.split(' ') as [string, string]
      const samples = doc.paths[path]![method.toLowerCase()]!['x-codeSamples']
      expect(samples?.map((s) => s.label), op).toEqual(['curl', 'JavaScript (fetch)', 'TypeScript (typed client)', 'Python (standard library)'])
      for (const s of samples!) expect(s.source).toContain('https://mars-api.example')
    }
  })
})
