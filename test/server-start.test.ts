import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { cpSync, mkdtempSync, readlinkSync, realpathSync, renameSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { Elysia } from 'elysia'
import { gracefulStop } from '../app/server'
import { spawnServer, type ServerProcess } from './setup/test-app'
import { copyIndex as copyIndexInto } from './setup/index-copy'

/** Response JSON, untyped (tests assert on its fields). */
const json = (r: Response): Promise<any> => r.json()

/**
 * `bun app/server.ts` as a real process over the real test index (process.env.INDEX_DIR):
 * start line, refusal of a missing or corrupt index, SIGHUP reload (refusing a corrupt one),
 * the index watch, and SIGTERM.
 */
const ROOT = join(import.meta.dir, '..')
const INDEX = process.env.INDEX_DIR!
const work = mkdtempSync(join(tmpdir(), 'mv-server-'))
const KEYS_DB = join(work, 'keys.sqlite')
const servers: ServerProcess[] = []
afterAll(async () => {
  for (const s of servers) await s.stop('SIGKILL')
  rmSync(work, { recursive: true, force: true })
})

const copyIndex = (name: string) => copyIndexInto(work, name)

/** Points <dir>/current at <dir>/<target> atomically, as the builder does. */
function repoint(dir: string, target: string) {
  symlinkSync(target, join(dir, 'current.tmp'))
  renameSync(join(dir, 'current.tmp'), join(dir, 'current'))
}

function startFails(env: Record<string, string>) {
  const r = Bun.spawnSync([process.execPath, 'app/server.ts'], { cwd: ROOT, env: { ...process.env, PORT: '0', KEYS_DB, ...env } })
  return { code: r.exitCode, err: r.stderr.toString() }
}

/** A second real index with other content (one source file), hence another version. */
let other: { dir: string; version: string }
beforeAll(() => {
  const out = join(work, 'other-build')
  const r = Bun.spawnSync([process.execPath, 'index-builder/cli.ts', '--out', out, '--only-sources', join(ROOT, '../shared/data/raw/elbi3__Mars-Rover-Photo-Journal/spiritSol1.json.gz')], { cwd: ROOT })
  if (r.exitCode !== 0) throw new Error('building the second index failed: ' + r.stderr.toString())
  other = { dir: out, version: readlinkSync(join(out, 'current')) }
})

async function health(s: ServerProcess) {
  return (await json(await fetch(`${s.url}/health`))) as { index: { version: string; photos: number } }
}

describe('start', () => {
  test('logs one start line with port, index version, kind, rows and load time, and serves /health over HTTP', async () => {
    const s = await spawnServer({ KEYS_DB })
    servers.push(s)
    const started = JSON.parse(s.lines.find((l) => l.includes('"server.started"'))!)
    const manifest = await Bun.file(join(INDEX, 'current', 'manifest.json')).json()
    expect(started.port).toBe(s.port)
    expect(started.index_version).toBe(manifest.version)
    expect(started.kind).toBe(manifest.kind)
    expect(started.rows).toEqual(manifest.rows)
    expect(typeof started.load_ms).toBe('number')
    const h = await health(s)
    expect(h.index.version).toBe(manifest.version)
    expect(h.index.photos).toBe(manifest.rows.photos)
    expect((await fetch(`${s.url}/api/v2`)).status).toBe(401)
  }, 30_000)

  test('a missing index: a clear message and a non-zero exit', () => {
    const r = startFails({ INDEX_DIR: join(work, 'no-such-index') })
    expect(r.code).toBe(1)
    expect(r.err).toContain('cannot start')
    expect(r.err).toContain(join(work, 'no-such-index'))
    expect(r.err).toContain('npm run build-index')
  }, 30_000)

  test('a truncated Arrow file: a message naming the file, and a non-zero exit', () => {
    const { dir, version } = copyIndex('truncated-arrow')
    const file = join(dir, version, 'photos.arrow')
    truncateSync(file, 1000)
    const r = startFails({ INDEX_DIR: dir })
    expect(r.code).toBe(1)
    expect(r.err).toContain('cannot start')
    expect(r.err).toContain('photos.arrow')
  }, 30_000)

  test('a corrupt manifest: a message naming it, and a non-zero exit', () => {
    const { dir, version } = copyIndex('bad-manifest')
    writeFileSync(join(dir, version, 'manifest.json'), '{"schema_version": 1, "vers')
    const r = startFails({ INDEX_DIR: dir })
    expect(r.code).toBe(1)
    expect(r.err).toContain('manifest.json')
  }, 30_000)

  test('a bad setting (RATE_LIMIT_HOURLY=abc) is refused at start with its name', () => {
    const r = startFails({ RATE_LIMIT_HOURLY: 'abc' })
    expect(r.code).toBe(1)
    expect(r.err).toContain('RATE_LIMIT_HOURLY')
  }, 30_000)
})

describe('reload', () => {
  test('SIGHUP swaps in a new index; a corrupt one is refused with a logged error while the old keeps serving', async () => {
    const { dir, version } = copyIndex('reload')
    const s = await spawnServer({ KEYS_DB, INDEX_DIR: dir })
    servers.push(s)
    expect((await health(s)).index.version).toBe(version)

    cpSync(join(other.dir, other.version), join(dir, 'broken'), { recursive: true })
    truncateSync(join(dir, 'broken', 'photos.arrow'), 10)
    repoint(dir, 'broken')
    s.proc.kill('SIGHUP')
    const refused = await s.waitFor('index.reload-refused')
    expect(String(refused.error)).toContain('photos.arrow')
    expect((await health(s)).index.version).toBe(version)

    cpSync(join(other.dir, other.version), join(dir, other.version), { recursive: true })
    repoint(dir, other.version)
    s.proc.kill('SIGHUP')
    const swapped = await s.waitFor('index.swapped')
    expect(swapped).toMatchObject({ from: version, to: other.version })
    expect((await health(s)).index.version).toBe(other.version)
  }, 30_000)

  test('with WATCH_INDEX on, pointing `current` at a new version reloads without a signal', async () => {
    const { dir, version } = copyIndex('watched')
    const s = await spawnServer({ KEYS_DB, INDEX_DIR: dir, WATCH_INDEX: '1' })
    servers.push(s)
    cpSync(join(other.dir, other.version), join(dir, other.version), { recursive: true })
    repoint(dir, other.version)
    expect(await s.waitFor('index.swapped')).toMatchObject({ from: version, to: other.version })
    expect((await health(s)).index.version).toBe(other.version)
  }, 30_000)
})

describe('stop', () => {
  test('SIGTERM: the server stops, logs it, and exits 0', async () => {
    const s = await spawnServer({ KEYS_DB })
    expect((await fetch(`${s.url}/health`)).status).toBe(200)
    expect(await s.stop('SIGTERM')).toBe(0)
    expect(s.lines.some((l) => l.includes('"server.stopped"') && l.includes('"drained"'))).toBe(true)
  }, 30_000)

  test('gracefulStop: no new connections, the request in flight finishes with its answer', async () => {
    let entered!: () => void
    const inside = new Promise<void>((r) => (entered = r))
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const app = new Elysia().get('/slow', async () => {
      entered()
      await gate
      return 'done'
    })
    app.listen({ port: 0, hostname: '127.0.0.1' })
    const url = `http://127.0.0.1:${app.server!.port}`
    const inFlight = fetch(`${url}/slow`)
    await inside
    const stopping = gracefulStop(app.server!, 5_000)
    await Bun.sleep(20)
    expect(await fetch(`${url}/slow`).then(() => 'answered', () => 'refused')).toBe('refused')
    release()
    const r = await inFlight
    expect(r.status).toBe(200)
    expect(await r.text()).toBe('done')
    expect(await stopping).toBe('drained')
  }, 30_000)

  test('gracefulStop: past the deadline the remaining connections are closed', async () => {
    const app = new Elysia().get('/stuck', () => new Promise<string>(() => {}))
    app.listen({ port: 0, hostname: '127.0.0.1' })
    const stuck = fetch(`http://127.0.0.1:${app.server!.port}/stuck`).catch(() => 'closed')
    await Bun.sleep(20)
    expect(await gracefulStop(app.server!, 100)).toBe('deadline')
    expect(await stuck).toBe('closed')
  }, 30_000)
})
