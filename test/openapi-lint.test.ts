import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { makeTestApp, type TestApp } from './setup/test-app'
import { ensureOpenApiTools, toolBin } from './setup/openapi-tools'

let t: TestApp
let doc: any
let dir: string

beforeAll(async () => {
  await ensureOpenApiTools()
  t = await makeTestApp()
  // A public host name: the document names the origin it was asked on (redocly flags localhost).
  doc = await (await t.app.handle(new Request('http://mars-photos.test/api/v2/openapi.json', { headers: { 'x-forwarded-proto': 'https' } }))).json()
  dir = mkdtempSync(join(tmpdir(), 'mv-openapi-'))
}, 300_000) // a fresh clone installs tools/openapi first (test/setup/openapi-tools.ts)
afterAll(async () => {
  await t.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('the served OpenAPI document', () => {
  test('passes `redocly lint` (recommended rules) with 0 errors and 0 warnings', () => {
    const file = join(dir, 'openapi.json')
    writeFileSync(file, JSON.stringify(doc, null, 2))
    const r = Bun.spawnSync([toolBin('redocly'), 'lint', file, '--format', 'json'], { cwd: dir, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } })
    const out = r.stdout.toString()
    const report = JSON.parse(out.slice(out.indexOf('{')))
    const problems = (report.problems ?? []).map((p: any) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`)
    expect(problems).toEqual([])
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 })
  }, 60_000)

  test('every operation types its 200 answer with a schema and lists its errors as problem documents', () => {
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      if (path.startsWith('/api/v2/__')) continue // probe routes other test files register in this process
      for (const [method, op] of Object.entries<any>(item)) {
        const ok = op.responses['200']
        expect(ok, `${method} ${path}`).toBeDefined()
        const media = Object.values<any>(ok.content ?? {})
        expect(media.length, `${method} ${path} 200 content`).toBeGreaterThan(0)
        for (const m of media) expect(m.schema && Object.keys(m.schema).length > 0, `${method} ${path} 200 schema`).toBe(true)
        for (const [status, r] of Object.entries<any>(op.responses)) {
          if (Number(status) < 400) continue
          expect(r.$ref, `${method} ${path} ${status}`).toMatch(/^#\/components\/responses\/\w+Problem$/)
        }
        if (op.security?.length !== 0) expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '429']))
      }
    }
    expect(doc.paths['/api/v2/photos/batch'].post.responses).toHaveProperty('413')
    expect(doc.paths['/api/v2/photos/batch'].post.responses).toHaveProperty('415')
    expect(doc.paths['/api/v2/photos/{id}'].get.responses).toHaveProperty('404')
    // decisions.md: no 406 is ever sent, so none is documented.
    expect(JSON.stringify(doc)).not.toContain('"406"')
  })
})
