import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { makeTestApp, type TestApp } from './setup/test-app'
import { ensureOpenApiTools, toolBin, TOOLS } from './setup/openapi-tools'
import { MarsApiError, marsClient, photoPages, walkPhotos, type PhotoQuery } from '../clients/typescript/src/index'

/**
 * The two clients a user starts from, as a user would: the TypeScript package
 * (clients/typescript: built with TypeScript 5, its README example type-checked with
 * `tsc --strict` against the built package and run against the app) and the Python module
 * (clients/python/mars_photos.py: standard library only, run by python3 against the app). Both
 * paging helpers must walk the same photos, each once.
 */
const ROOT = resolve(import.meta.dir, '..')
const CLIENT = join(ROOT, 'clients', 'typescript')
const PYTHON = join(ROOT, 'clients', 'python')
const PLACEHOLDER = 'https://mars-api.example'

let t: TestApp
let server: ReturnType<typeof Bun.serve>
let origin: string
let consumer: string
let example: string

/** The ```ts block of the package README. */
function readmeExample(): string {
  const md = readFileSync(join(CLIENT, 'README.md'), 'utf8')
  const m = /```ts\n([\s\S]*?)```/.exec(md)
  if (!m) throw new Error('no ts example in clients/typescript/README.md')
  return m[1]!
}

/** A child process run while this process keeps serving the app (a synchronous spawn would block the server it calls). */
async function spawn(cmd: string[], cwd: string, env: Record<string, string | undefined>): Promise<{ out: string; err: string; code: number | null }> {
  const p = Bun.spawn(cmd, { cwd, env, stdout: 'pipe', stderr: 'pipe' })
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()])
  return { out, err, code: await p.exited }
}

function tsc(args: string[], cwd = TOOLS): { ok: boolean; output: string } {
  const r = Bun.spawnSync([toolBin('tsc'), ...args], { cwd })
  return { ok: r.exitCode === 0, output: r.stdout.toString() + r.stderr.toString() }
}

beforeAll(async () => {
  await ensureOpenApiTools()
  t = await makeTestApp()
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req) => t.app.handle(req) })
  origin = `http://127.0.0.1:${server.port}`
  // A project that installed the package: node_modules links to it and to the types Node users have.
  consumer = mkdtempSync(join(tmpdir(), 'mv-client-user-'))
  mkdirSync(join(consumer, 'node_modules', '@mars-photos'), { recursive: true })
  mkdirSync(join(consumer, 'node_modules', '@types'), { recursive: true })
  symlinkSync(CLIENT, join(consumer, 'node_modules', '@mars-photos', 'client'))
  symlinkSync(join(ROOT, 'node_modules', '@types', 'node'), join(consumer, 'node_modules', '@types', 'node'))
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'mars-client-user', private: true, type: 'module' }))
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'ESNext', moduleResolution: 'bundler', lib: ['ES2022', 'DOM'], types: ['node'], skipLibCheck: true }, files: ['example.ts'] }),
  )
  example = readmeExample()
}, 300_000) // a fresh clone installs tools/openapi first
afterAll(async () => {
  server?.stop(true)
  await t?.close()
  if (consumer) rmSync(consumer, { recursive: true, force: true })
})

describe('the TypeScript client package (clients/typescript)', () => {
  test('builds with TypeScript 5 into dist/: JavaScript and the .d.ts types of marsClient, photoPages, walkPhotos and the generated paths', () => {
    const r = tsc(['-p', join(CLIENT, 'tsconfig.json')])
    expect(r.output).toBe('')
    expect(r.ok).toBe(true)
    const pkg = JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8'))
    expect(pkg.exports['.']).toEqual({ types: './dist/index.d.ts', import: './dist/index.js' })
    const types = readFileSync(join(CLIENT, 'dist', 'index.d.ts'), 'utf8')
    for (const name of ['marsClient', 'photoPages', 'walkPhotos']) expect(types).toContain(`export declare function ${name}`)
    expect(types).toContain('export declare class MarsApiError')
    expect(existsSync(join(CLIENT, 'dist', 'schema.d.ts'))).toBe(true)
    expect(existsSync(join(CLIENT, 'dist', 'index.js'))).toBe(true)
  }, 120_000)

  test('the README example passes tsc --strict against the built package; the same example with a wrongly typed parameter does not', () => {
    expect(example).toContain("from '@mars-photos/client'")
    writeFileSync(join(consumer, 'example.ts'), example)
    const good = tsc(['-p', join(consumer, 'tsconfig.json'), '--strict'], consumer)
    expect(good.output).toBe('')
    expect(good.ok).toBe(true)
    writeFileSync(join(consumer, 'example.ts'), example.replace('sol_min: 1000', "sol_min: 'a thousand'"))
    const bad = tsc(['-p', join(consumer, 'tsconfig.json'), '--strict'], consumer)
    expect(bad.ok).toBe(false)
    expect(bad.output).toContain("Type 'string' is not assignable to type 'number'")
  }, 120_000)

  test('the README example, run against the app, prints five Curiosity photos and the number of sols of every Spirit photo it walked', async () => {
    expect(example).toContain(PLACEHOLDER)
    writeFileSync(join(consumer, 'example.ts'), example.replace(PLACEHOLDER, origin))
    const r = await spawn([process.execPath, 'example.ts'], consumer, { ...process.env, MARS_API_KEY: t.key })
    const out = r.out.trim().split('\n')
    expect(r.err).toBe('')
    expect(r.code).toBe(0)
    expect(out.length).toBe(6)
    const sols = new Set<number>()
    for await (const p of walkPhotos(marsClient({ baseUrl: origin, apiKey: t.key }), { rovers: 'spirit', fields: 'sol' })) sols.add(p.attributes.sol!)
    expect(out[5]).toBe(`${sols.size} sols of Spirit photos`)
  }, 60_000)

  test('walkPhotos follows every cursor: each Spirit photo once, in the order of the numbered pages; a bad query throws MarsApiError with the 400 problem', async () => {
    const asked: string[] = []
    const client = marsClient({
      baseUrl: 'http://mars-photos.test',
      apiKey: t.key,
      fetch: (request) => {
        asked.push(request.url)
        return t.app.handle(new Request(request.url.replace('http://mars-photos.test', 'http://localhost'), request))
      },
    })
    const ids: number[] = []
    for await (const p of walkPhotos(client, { rovers: 'spirit', per_page: 20, fields: 'sol' })) ids.push(p.id)
    expect(ids.length).toBe(77) // every Spirit photo of the bundled data
    expect(new Set(ids).size).toBe(77)
    expect(asked.length).toBe(4)
    expect(asked.slice(1).every((u) => new URL(u).searchParams.has('cursor'))).toBe(true)
    const numbered: number[] = []
    for (let page = 1; page <= 4; page++) {
      const body = (await (await t.request(`/api/v2/photos?rovers=spirit&per_page=20&fields=sol&page=${page}`)).json()) as { data: Array<{ id: number }> }
      numbered.push(...body.data.map((p) => p.id))
    }
    expect(ids).toEqual(numbered)
    let pages = 0
    for await (const page of photoPages(client, { rovers: 'spirit' })) pages += page.meta.returned_count > 0 ? 1 : 0
    expect(pages).toBe(1) // 100 a page by default
    const bad = walkPhotos(client, { sol: -1, per_page: 0 } as PhotoQuery)
    const e = await bad.next().then(() => undefined, (x: unknown) => x)
    expect(e).toBeInstanceOf(MarsApiError)
    expect((e as MarsApiError).status).toBe(400)
    expect(((e as MarsApiError).problem as { errors: Array<{ parameter: string }> }).errors.map((x) => x.parameter).sort()).toEqual(['per_page', 'sol'])
  })
})

describe('the Python example module (clients/python/mars_photos.py)', () => {
  const run = (code: string) => spawn(['python3', '-c', code], PYTHON, { ...process.env, MARS_API_KEY: t.key, PYTHONDONTWRITEBYTECODE: '1' })

  test('imports nothing outside the Python standard library', async () => {
    const r = await run(`
import ast, sys
tree = ast.parse(open("mars_photos.py").read())
names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
names |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
print(sorted(names), sorted(m for m in names if m not in sys.stdlib_module_names))`)
    expect(r.err).toBe('')
    expect(r.out.trim()).toBe("['json', 'os', 'sys', 'urllib'] []")
  })

  test('walk_photos, run by python3 against the app, follows every cursor to the same photos as the TypeScript helper; a bad parameter raises MarsApiError naming it', async () => {
    const r = await run(`
import json
from mars_photos import MarsApiError, MarsClient, photo_pages, walk_photos
c = MarsClient(${JSON.stringify(origin)}, __import__("os").environ["MARS_API_KEY"])
ids = [p["id"] for p in walk_photos(c, rovers="spirit", per_page=20, fields="sol")]
pages = sum(1 for _ in photo_pages(c, rovers="spirit", per_page=20))
first = c.get("/api/v2/photos", rovers="curiosity", sol=1000, per_page=5)
try:
    list(walk_photos(c, sol=-1, per_page=0))
    err = None
except MarsApiError as e:
    err = {"status": e.status, "parameters": sorted(e.parameters)}
print(json.dumps({"ids": ids, "pages": pages, "first": [p["id"] for p in first["data"]], "err": err}))`)
    expect(r.err).toBe('')
    const got = JSON.parse(r.out) as { ids: number[]; pages: number; first: number[]; err: unknown }
    const ts: number[] = []
    for await (const p of walkPhotos(marsClient({ baseUrl: origin, apiKey: t.key }), { rovers: 'spirit', per_page: 20, fields: 'sol' })) ts.push(p.id)
    expect(got.ids).toEqual(ts)
    expect(got.ids.length).toBe(77)
    expect(got.pages).toBe(4)
    const five = (await (await t.request('/api/v2/photos?rovers=curiosity&sol=1000&per_page=5')).json()) as { data: Array<{ id: number }> }
    expect(got.first).toEqual(five.data.map((p) => p.id))
    expect(got.err).toEqual({ status: 400, parameters: ['per_page', 'sol'] })
  }, 60_000)

  test('run as a program it walks a query and prints the count; without a key it says so and exits 2', async () => {
    const ok = await spawn(['python3', 'mars_photos.py', origin, 'rovers=spirit', 'per_page=30'], PYTHON, { ...process.env, MARS_API_KEY: t.key, PYTHONDONTWRITEBYTECODE: '1' })
    expect(ok.err).toBe('')
    expect(ok.code).toBe(0)
    expect(JSON.parse(ok.out).photos).toBe(77)
    const env: Record<string, string | undefined> = { ...process.env, PYTHONDONTWRITEBYTECODE: '1' }
    delete env.MARS_API_KEY
    const none = await spawn(['python3', 'mars_photos.py', origin], PYTHON, env)
    expect(none.code).toBe(2)
    expect(none.err).toContain('MARS_API_KEY is not set')
  }, 30_000)
})
