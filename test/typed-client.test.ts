import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { makeTestApp, type TestApp } from './setup/test-app'
import { ensureOpenApiTools, toolBin, TOOLS } from './setup/openapi-tools'
import { answerValidator, type Answer } from './setup/openapi-answers'

const CLIENT = resolve(import.meta.dir, '../clients/typescript')
/** The origin the committed client was generated from (a public name: see the lint test). */
const ORIGIN = 'http://mars-photos.test'

let t: TestApp
let dir: string
let docText: string

beforeAll(async () => {
  await ensureOpenApiTools()
  t = await makeTestApp()
  docText = await (await t.app.handle(new Request(ORIGIN + '/api/v2/openapi.json'))).text()
  dir = mkdtempSync(join(tmpdir(), 'mv-client-'))
  writeFileSync(join(dir, 'openapi.json'), docText)
}, 300_000) // a fresh clone installs tools/openapi first (test/setup/openapi-tools.ts)
afterAll(async () => {
  await t.close()
  rmSync(dir, { recursive: true, force: true })
})

function typeCheck(file: string): { ok: boolean; output: string } {
  const config = join(dir, `tsconfig-${Math.random().toString(36).slice(2)}.json`)
  writeFileSync(
    config,
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', lib: ['ES2022', 'DOM'], skipLibCheck: true, types: [] },
      files: [file],
    }),
  )
  const r = Bun.spawnSync([toolBin('tsc'), '-p', config], { cwd: TOOLS })
  return { ok: r.exitCode === 0, output: r.stdout.toString() + r.stderr.toString() }
}

describe('the typed TypeScript client (openapi-typescript + openapi-fetch)', () => {
  test('generated from the served document equals the committed clients/typescript/src/schema.ts', () => {
    const out = join(dir, 'schema.ts')
    const r = Bun.spawnSync([toolBin('openapi-typescript'), join(dir, 'openapi.json'), '-o', out], { cwd: TOOLS })
    expect(r.exitCode).toBe(0)
    // When this fails after a deliberate change: `npm run client:generate` rewrites the committed file.
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(join(CLIENT, 'src', 'schema.ts'), 'utf8'))
  }, 60_000)

  test('the tour program type-checks with TypeScript 5, and a call with a wrongly typed parameter does not', () => {
    const good = typeCheck(join(CLIENT, 'tour.ts'))
    expect(good.output).toBe('')
    expect(good.ok).toBe(true)
    // Same folder layout as the committed client, so `./schema` resolves to the same types.
    const bad = join(CLIENT, `.bad-${process.pid}.ts`)
    writeFileSync(
      bad,
      "import { marsClient } from './tour'\nconst c = marsClient('http://x', 'k')\nvoid c.GET('/api/v2/photos', { params: { query: { sol: 'yesterday' } } })\n",
    )
    try {
      const r = typeCheck(bad)
      expect(r.ok).toBe(false)
      expect(r.output).toContain("Type 'string' is not assignable to type 'number'")
    } finally {
      rmSync(bad, { force: true })
    }
  }, 60_000)

  test('the tour runs against the app and every answer it got validates against the document (ajv)', async () => {
    const { marsClient, tour } = await import('../clients/typescript/tour')
    const answers: Answer[] = []
    const fetchImpl = async (request: Request) => {
      const response = await t.app.handle(new Request(request.url.replace(ORIGIN, 'http://localhost'), request))
      answers.push({ method: request.method, url: request.url, status: response.status, contentType: response.headers.get('content-type') ?? '', body: await response.clone().text() })
      return response
    }
    const result = await tour(marsClient(ORIGIN, t.key, fetchImpl))

    expect(result.filteredTotal).toBeGreaterThan(0)
    expect(new Set(result.walkedIds).size).toBe(result.walkedIds.length)
    expect(result.walkedIds.length).toBe(77) // every Spirit photo of the bundled data, once
    expect(result.batchFound).toEqual(result.walkedIds.slice(0, 2))
    expect(result.batchMissing).toEqual([2_000_000_000])
    expect(result.statsGroups).toBe(4)
    expect(result.rovers).toEqual(['curiosity', 'opportunity', 'perseverance', 'spirit'])
    expect(result.cameraRovers.length).toBeGreaterThan(0)
    expect(result.missingPhotoStatus).toBe(404)
    expect(result.badParameterNames.sort()).toEqual(['per_page', 'sol'])

    const validate = answerValidator(JSON.parse(docText))
    const statuses = new Set<number>()
    for (const a of answers) {
      const problems = validate(a)
      expect(problems, `${a.method} ${a.url} ${a.status}`).toEqual([])
      statuses.add(a.status)
    }
    expect([...statuses].sort()).toEqual([200, 400, 404])
    // The validator is not lenient: a photo with a member the document does not list is refused.
    const list = answers.find((a) => a.status === 200 && new URL(a.url).pathname === '/api/v2/photos')!
    const tampered = JSON.parse(list.body)
    tampered.data[0].attributes.colour = 'red'
    expect(validate({ ...list, body: JSON.stringify(tampered) }).join()).toContain('must NOT have additional properties {"additionalProperty":"colour"}')
    expect(answers.length).toBeGreaterThan(20)
  }, 60_000)
})
