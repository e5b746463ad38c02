import { beforeAll, describe, expect, test } from 'bun:test'
import { join, resolve } from 'node:path'
import { ensureGraphTools, importViolations, type Violation } from './setup/graph-tools'

/**
 * The import rules of tools/graph/import-rules.cjs over the runtime folders: src/ (the core)
 * imports no plugin and nothing imports the composition root (app/); a plugin imports no other
 * plugin's internals; the server never imports the offline builder and the builder no HTTP
 * layer; runtime code imports no test, bench or dev-only package; no two files import each other,
 * directly or around a cycle; each stage folder of src/query/ imports only the stages below it.
 * Over bench/, test/, scripts/ and clients/: no cycle and no import that does not resolve.
 */
const ROOT = resolve(import.meta.dir, '..')
const RUNTIME = ['app', 'src', 'plugins', 'index-builder']
const TOOLING = ['bench', 'test', 'scripts', 'clients']

const edge = (v: Violation) => `${v.rule}: ${v.from} -> ${v.to}${v.cycle ? ` (cycle ${v.cycle.join(' -> ')})` : ''}`

let found: Violation[]

beforeAll(async () => {
  await ensureGraphTools()
  found = importViolations(ROOT, [...RUNTIME, ...TOOLING])
}, 300_000) // a fresh clone installs tools/graph first (test/setup/tool-folder.ts)

describe('the import graph of app/, src/, plugins/, index-builder/ and the benches, tests and scripts', () => {
  test('breaks no import rule: no src/ -> plugins/, nothing -> app/, no file cycle (bench/ included), no plugin -> another plugin\'s internals, no src/query/ stage -> a stage above it', () => {
    expect(found.map(edge)).toEqual([])
  })
})

describe('the import rules', () => {
  test('report each kind of violation in a fixture tree built to break every rule once (so the check above can fail)', () => {
    const fixture = join(import.meta.dir, 'fixtures/import-graph')
    const got = importViolations(fixture, [...RUNTIME, 'bench']).map((v) => ({ ...v, to: v.to.includes('node_modules/fast-check/') ? 'fast-check' : v.to }))
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
        'no-file-cycle-in-tooling: bench/ring-c.ts -> bench/ring-d.ts (cycle bench/ring-d.ts -> bench/ring-c.ts)',
        'tooling-import-resolves: bench/loads-gone.ts -> ./scenario-gone',
        'query-scan-imports-only-lower-stages: src/query/scan/row-loop.ts -> src/query/params/query-text.ts',
        'query-scan-imports-only-lower-stages: src/query/scan/row-loop.ts -> src/query/left-flat.ts',
        'query-plan-imports-only-lower-stages: src/query/plan/uses-face.ts -> src/query/index.ts',
        'query-imports-no-answering-layer: src/query/params/query-text.ts -> src/resources/answer.ts',
      ].sort(),
    )
  })
})
