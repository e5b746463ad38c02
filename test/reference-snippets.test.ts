import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EXAMPLE_ORIGIN, EXAMPLE_REQUESTS } from '../plugins/docs/operation-examples'
import { ensureOpenApiTools, toolBin, TOOLS } from './setup/openapi-tools'
import { spawnServer, type ServerProcess } from './setup/test-app'

/**
 * Every snippet of the reference (the x-codeSamples of the served OpenAPI document, which the page
 * at /api/v2/docs shows) runs as written against a live server, with only the placeholder origin
 * replaced by the server's and MARS_API_KEY set to a key made for the test: curl with
 * --fail-with-body, JavaScript under Bun, Python 3 with its standard library; the typed-client
 * snippets also type-check with TypeScript 5 (--strict) against clients/typescript/schema.d.ts.
 */
const ROOT = join(import.meta.dir, '..')
const work = mkdtempSync(join(tmpdir(), 'mv-snippets-'))
// Inside tools/openapi so `openapi-fetch` resolves from its node_modules, beside a copy of the client types.
const typed = join(TOOLS, `.snippets-${process.pid}`)
let server: ServerProcess
let key: string
type Sample = { lang: string; label: string; source: string }
let samples: Array<{ op: string; sample: Sample }>

beforeAll(async () => {
  await ensureOpenApiTools()
  const KEYS_DB = join(work, 'keys.sqlite')
  const made = Bun.spawnSync([process.execPath, 'scripts/keys.ts', 'create', '--email', 'snippets@example.com'], { cwd: ROOT, env: { ...process.env, KEYS_DB } })
  key = made.stdout.toString().trim().split('\n').pop()!
  server = await spawnServer({ INDEX_DIR: process.env.INDEX_DIR!, KEYS_DB })
  const doc = (await (await fetch(`${server.url}/api/v2/openapi.json`)).json()) as { paths: Record<string, Record<string, { 'x-codeSamples'?: Sample[] }>> }
  samples = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).flatMap(([m, op]) => (op['x-codeSamples'] ?? []).map((sample) => ({ op: `${m.toUpperCase()} ${path}`, sample }))),
  )
  // The client's TypeScript sources as they sit in the repository, so './clients/typescript/schema' resolves as it does there.
  cpSync(join(ROOT, 'clients/typescript'), join(typed, 'clients/typescript'), {
    recursive: true,
    filter: (src) => !/[\\/](node_modules|dist)$/.test(src) && (!/\.[a-z]+$/.test(src) || /\.ts$/.test(src)),
  })
}, 300_000) // a fresh clone installs tools/openapi first
afterAll(async () => {
  await server?.stop()
  rmSync(work, { recursive: true, force: true })
  rmSync(typed, { recursive: true, force: true })
})

const live = (source: string) => source.split(EXAMPLE_ORIGIN).join(server.url)
const env = () => ({ ...process.env, MARS_API_KEY: key })

function run(cmd: string[], cwd = work): { code: number; out: string } {
  const r = Bun.spawnSync(cmd, { cwd, env: env(), stdout: 'pipe', stderr: 'pipe' })
  return { code: r.exitCode ?? -1, out: r.stdout.toString() + r.stderr.toString() }
}

const of = (label: string) => samples.filter((s) => s.sample.label === label)

describe('the reference snippets', () => {
  test('cover every keyed /api/v2 operation with curl, fetch, the typed client and Python', () => {
    const ops = new Set(samples.map((s) => s.op))
    for (const op of ['GET /api/v2/photos', 'POST /api/v2/photos/batch', 'GET /api/v2/photos/stats', 'GET /api/v2/photos/export', 'GET /api/v2/rovers/{slug}/journey', 'GET /api/v1/rovers/{name}/photos']) expect(ops.has(op)).toBe(true)
    for (const label of ['curl', 'JavaScript (fetch)', 'TypeScript (typed client)', 'Python (standard library)']) expect(of(label).length).toBeGreaterThanOrEqual(25)
  })

  test('curl: each runs as written and the server answers 2xx', () => {
    const failed = of('curl')
      .map(({ op, sample }) => ({ op, stream: EXAMPLE_REQUESTS[op]?.stream === true, r: run(['sh', '-c', live(sample.source).replace('--max-time 30', '--max-time 2') + ' -o /dev/null']) }))
      // A stream ends only by its time limit (exit 28), after a 2xx: a refused request exits 22.
      .filter(({ r, stream }) => r.code !== 0 && !(stream && r.code === 28))
    expect(failed.map(({ op, r }) => `${op}: ${r.out.slice(0, 300)}`)).toEqual([])
  }, 300_000)

  test('JavaScript (fetch): each runs as written under Bun and prints the answer', () => {
    const failed = of('JavaScript (fetch)')
      .map(({ op, sample }, i) => {
        const file = join(work, `fetch-${i}.mjs`)
        writeFileSync(file, live(sample.source))
        return { op, r: run([process.execPath, file]) }
      })
      .filter(({ r }) => r.code !== 0 || r.out.length < 2)
    expect(failed.map(({ op, r }) => `${op}: ${r.out.slice(0, 300)}`)).toEqual([])
  }, 300_000)

  // The system's Python first: a version manager's shim can take seconds per start.
  const python = ['/usr/bin/python3', '/usr/local/bin/python3'].find((p) => Bun.file(p).size > 0) ?? Bun.which('python3')
  test.skipIf(!python)('Python (standard library): each runs as written with python3 and prints the answer', () => {
    const failed = of('Python (standard library)')
      .map(({ op, sample }) => ({ op, r: run([python!, '-c', live(sample.source)]) }))
      .filter(({ r }) => r.code !== 0 || r.out.length < 2)
    expect(failed.map(({ op, r }) => `${op}: ${r.out.slice(0, 300)}`)).toEqual([])
  }, 300_000)

  test('TypeScript (typed client): each type-checks with TypeScript 5 --strict and runs against the server without an error answer', () => {
    const files = of('TypeScript (typed client)').map(({ op, sample }, i) => {
      const file = join(typed, `typed-${i}.ts`)
      writeFileSync(file, live(sample.source) + '\nexport {}\n')
      return { op, file }
    })
    // The snippets assume Node.js or Bun; the one global they use is declared for the check.
    writeFileSync(join(typed, 'env.d.ts'), 'declare const process: { env: Record<string, string | undefined> }\n')
    writeFileSync(
      join(typed, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', lib: ['ES2022', 'DOM'], skipLibCheck: true, types: [] },
        files: ['env.d.ts', ...files.map((f) => f.file)],
      }),
    )
    const tsc = Bun.spawnSync([toolBin('tsc'), '-p', join(typed, 'tsconfig.json')], { cwd: TOOLS })
    expect(tsc.stdout.toString() + tsc.stderr.toString()).toBe('')
    const failed = files.map(({ op, file }) => ({ op, r: run([process.execPath, file], typed) })).filter(({ r }) => r.code !== 0)
    expect(failed.map(({ op, r }) => `${op}: ${r.out.slice(0, 300)}`)).toEqual([])
  }, 300_000)
})
