import { beforeAll, describe, expect, test } from 'bun:test'
import { join, resolve } from 'node:path'
import { ensureGraphTools, importViolations, type Violation } from './setup/graph-tools'

/**
 * The import rules of tools/graph/import-rules.cjs over the runtime folders: src/ (the core)
 * imports no plugin and nothing imports the composition root (app/); a plugin imports no other
 * plugin's internals; the server never imports the offline builder and the builder no HTTP
 * layer; runtime code imports no test, bench or dev-only package; no two files import each other,
 * directly or around a cycle.
 */
const ROOT = resolve(import.meta.dir, '..')
const RUNTIME = ['app', 'src', 'plugins', 'index-builder']

/**
 * Imports that break a rule today and are being moved (the per-request context replaces these
 * shared plugin internals). Each must still exist: drop an entry as soon as its import is gone.
 */
const KNOWN: Violation[] = [
  { rule: 'core-imports-no-plugin', from: 'src/http/cached-answer.ts', to: 'plugins/compression/answer-template.ts' },
  // The filters hand their fused-scan templates to fused-scan.ts, which takes filters: being
  // replaced by one template definition per filter from which every loop is generated.
  { rule: 'no-file-cycle', from: 'src/query/filters.ts', to: 'src/query/fused-scan.ts' },
  ...(
    [
      ['auth/index.ts', 'content-type/answer-state.ts'],
      ['compression/index.ts', 'request-log/body-bytes.ts'],
      ['dashboard/dashboard.ts', 'auth/failed-auth-throttle.ts'],
      ['dashboard/dashboard.ts', 'rate-limit/limit-rules.ts'],
      ['docs/openapi-document.ts', 'rate-limit/ratelimit-fields.ts'],
      ['errors/index.ts', 'auth/authenticate.ts'],
      ['errors/index.ts', 'auth/key-of.ts'],
      ['errors/index.ts', 'content-type/answer-state.ts'],
      ['errors/index.ts', 'request-log/request-id.ts'],
      ['errors/render-problem.ts', 'content-type/negotiate.ts'],
      ['etag/index.ts', 'auth/key-of.ts'],
      ['etag/index.ts', 'content-type/answer-state.ts'],
      ['etag/index.ts', 'content-type/negotiate.ts'],
      ['etag/index.ts', 'errors/catch-all.ts'],
      ['etag/index.ts', 'rate-limit/limit-rules.ts'],
      ['export/index.ts', 'auth/key-of.ts'],
      ['export/index.ts', 'content-type/answer-state.ts'],
      ['export/index.ts', 'content-type/negotiate.ts'],
      ['export/index.ts', 'etag/entity-tag.ts'],
      ['export/index.ts', 'rate-limit/limit-rules.ts'],
      ['rate-limit/index.ts', 'auth/key-of.ts'],
      ['rate-limit/index.ts', 'content-type/answer-state.ts'],
    ] as const
  ).map(([from, to]) => ({ rule: 'plugin-imports-no-other-plugins-internals', from: `plugins/${from}`, to: `plugins/${to}` })),
]

const edge = (v: Violation) => `${v.rule}: ${v.from} -> ${v.to}${v.cycle ? ` (cycle ${v.cycle.join(' -> ')})` : ''}`
const sameEdge = (a: Violation, b: Violation) => a.rule === b.rule && a.from === b.from && a.to === b.to

let found: Violation[]

beforeAll(async () => {
  await ensureGraphTools()
  found = importViolations(ROOT, RUNTIME)
}, 300_000) // a fresh clone installs tools/graph first (test/setup/tool-folder.ts)

describe('the import graph of app/, src/, plugins/ and index-builder/', () => {
  test('breaks no import rule: no src/ -> plugins/, nothing -> app/, no file cycle, no plugin -> another plugin\'s internals (beyond the listed exceptions)', () => {
    expect(found.filter((v) => !KNOWN.some((k) => sameEdge(k, v))).map(edge)).toEqual([])
  })

  test('every listed exception is still an import of the tree (a fixed one must leave the list)', () => {
    expect(KNOWN.filter((k) => !found.some((v) => sameEdge(k, v))).map(edge)).toEqual([])
  })
})

describe('the import rules', () => {
  test('report each kind of violation in a fixture tree built to break every rule once (so the check above can fail)', () => {
    const fixture = join(import.meta.dir, 'fixtures/import-graph')
    const got = importViolations(fixture, RUNTIME).map((v) => ({ ...v, to: v.to.includes('node_modules/fast-check/') ? 'fast-check' : v.to }))
    expect(got.map(edge).sort()).toEqual(
      [
        'builder-imports-no-http: index-builder/build.ts -> plugins/other/internal.ts',
        'core-imports-no-plugin: src/core.ts -> plugins/other/index.ts',
        'every-import-resolves: src/unresolved.ts -> ./nowhere',
        'no-file-cycle: src/ring-a.ts -> src/ring-b.ts (cycle src/ring-b.ts -> src/ring-a.ts)',
        'nothing-imports-the-composition-root: src/uses-root.ts -> app/app.ts',
        'plugin-imports-no-other-plugins-internals: plugins/thing/index.ts -> plugins/other/internal.ts',
        'runtime-imports-no-dev-dependency: src/dev-only.ts -> fast-check',
        'server-imports-no-builder: src/uses-builder.ts -> index-builder/build.ts',
      ].sort(),
    )
  })
})
