import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { cpSync, mkdtempSync, readlinkSync, realpathSync, rmSync, symlinkSync, truncateSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { KeyStore } from '../src/keys/key-store'
import { loadStore } from '../src/store/load-store'
import { makeTestApp, spawnServer, type ServerProcess } from './setup/test-app'
import { copyIndex as copyIndexInto } from './setup/index-copy'

/**
 * Index rebuild while serving (docs/reliability.md, "Reloads"): `npm run build-index` publishes a
 * new index into the served folder while clients keep asking; the server swaps it in (on the
 * `current` change with WATCH_INDEX, and on SIGHUP). Under load: zero failed requests, and every
 * answer belongs to one version: its ETag is that version's ETag for the request and its body
 * (meta.timestamp aside) is byte-for-byte what that version alone answers.
 */
const ROOT = join(import.meta.dir, '..')
const RAW = join(ROOT, '../shared/data/raw')
const EXTRA = join(ROOT, 'test/fixtures/feeds/m2020-raw-images-page.json')
const INDEX = process.env.INDEX_DIR!
const work = mkdtempSync(join(tmpdir(), 'mv-reload-'))
const keysDb = join(work, 'keys.sqlite')
let key: string
const servers: ServerProcess[] = []

beforeAll(() => {
  const keys = KeyStore.open(keysDb)
  key = keys.create('reload@example.com', { hourly: 1_000_000, daily: 1_000_000, concurrent: 1_000 })
  keys.close()
})
afterAll(async () => {
  for (const s of servers) await s.stop('SIGKILL')
  rmSync(work, { recursive: true, force: true })
})

const copyIndex = (name: string) => copyIndexInto(work, name)

/** `npm run build-index -- --out <dir> <sources...>` as a child process; resolves with the published version. */
async function buildIndex(out: string, sources: string[]): Promise<string> {
  const p = Bun.spawn([process.execPath, 'index-builder/cli.ts', '--out', out, '--keep', '3', ...sources], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
  const code = await p.exited
  if (code !== 0) throw new Error(`build-index failed (${code}): ${await new Response(p.stderr).text()}`)
  return readlinkSync(join(out, 'current'))
}

/** The request shapes the clients repeat: lists, filters, stats, one photo, a batch, catalogue and health. */
const SHAPES: Array<{ path: string; method?: string; body?: string }> = [
  { path: '/api/v2/photos?per_page=7' },
  { path: '/api/v2/photos?rovers=perseverance&sort=sol,-id&per_page=5&page=3' },
  { path: '/api/v2/photos?cameras=NAVCAM_LEFT,FHAZ&per_page=4' },
  { path: '/api/v2/photos/stats?group_by=rover' },
  { path: '/api/v2/rovers/perseverance' },
  { path: '/api/v2/cameras' },
  { path: '/api/v2/locations?per_page=3&rovers=perseverance' },
  { path: '/api/v2/photos/batch?fields=sol', method: 'POST' }, // body filled with real ids below
]

interface Seen {
  shape: number
  status: number
  etag: string | null
  body: string
}

/** The body without its per-response timestamp. */
function stable(text: string): string {
  const doc = JSON.parse(text)
  if (doc?.meta) delete doc.meta.timestamp
  return JSON.stringify(doc)
}

/** Clients asking the SHAPES in a loop until stopped; every answer is recorded, failures included. */
function load(url: string, clients: number) {
  const seen: Seen[] = []
  const failures: string[] = []
  let running = true
  const loops = Array.from({ length: clients }, async (_, c) => {
    for (let i = c; running; i++) {
      const shape = i % SHAPES.length
      const s = SHAPES[shape]!
      try {
        const r = await fetch(url + s.path, { method: s.method ?? 'GET', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: s.body })
        const text = await r.text()
        if (r.status !== 200) failures.push(`${s.path}: ${r.status} ${text.slice(0, 200)}`)
        else seen.push({ shape, status: r.status, etag: r.headers.get('etag'), body: stable(text) })
      } catch (e) {
        failures.push(`${s.path}: ${(e as Error).message}`)
      }
    }
  })
  return {
    seen,
    failures,
    async stop() {
      running = false
      await Promise.all(loops)
    },
  }
}

/** What each version alone answers to each shape (an in-process app over that version, same origin). */
async function referenceAnswers(dir: string, versions: string[], origin: string) {
  const out = new Map<string, Array<{ etag: string | null; body: string }>>()
  for (const v of versions) {
    const t = await makeTestApp({ store: await loadStore(join(dir, v)) })
    const answers = []
    for (const s of SHAPES) {
      const r = await t.app.handle(new Request(origin + s.path, { method: s.method ?? 'GET', headers: { 'x-api-key': t.key, 'content-type': 'application/json' }, body: s.body }))
      expect(r.status).toBe(200)
      answers.push({ etag: r.headers.get('etag'), body: stable(await r.text()) })
    }
    out.set(v, answers)
    await t.close()
  }
  return out
}

/** Which version each answer belongs to; fails the test on an answer that matches none. */
function attribute(seen: Seen[], refs: Map<string, Array<{ etag: string | null; body: string }>>): Map<string, number> {
  const counts = new Map<string, number>()
  const mixed: string[] = []
  for (const s of seen) {
    const owners = [...refs].filter(([, answers]) => answers[s.shape]!.body === s.body && answers[s.shape]!.etag === s.etag).map(([v]) => v)
    if (owners.length === 0) mixed.push(`${SHAPES[s.shape]!.path}: etag ${s.etag}, body ${s.body.slice(0, 160)}`)
    else counts.set(owners[0]!, (counts.get(owners[0]!) ?? 0) + 1)
  }
  expect(mixed).toEqual([])
  return counts
}

describe('rebuild while serving', () => {
  let batchIds: number[]
  beforeAll(async () => {
    const t = await makeTestApp()
    const r = await t.request('/api/v2/photos?rovers=perseverance&per_page=6&sort=-sol')
    batchIds = ((await r.json()) as { data: Array<{ id: number }> }).data.map((p) => p.id)
    SHAPES[7]!.body = JSON.stringify({ ids: [...batchIds, 1, 2] })
    await t.close()
  })

  test('WATCH_INDEX: build-index publishes real sources + one more feed under load; the swap loses no request and every answer is one version', async () => {
    const { dir, version: a } = copyIndex('watched')
    const s = await spawnServer({ KEYS_DB: keysDb, INDEX_DIR: dir, WATCH_INDEX: '1' })
    servers.push(s)
    const clients = load(s.url, 6)
    await Bun.sleep(300)
    const b = await buildIndex(dir, [RAW, EXTRA])
    expect(b).not.toBe(a)
    expect(await s.waitFor('index.swapped')).toMatchObject({ from: a, to: b })
    await Bun.sleep(500) // keep asking on the new version
    await clients.stop()

    expect(clients.failures).toEqual([])
    const refs = await referenceAnswers(dir, [a, b], s.url)
    // The versions really differ for the shapes that count photos.
    expect(refs.get(a)![0]!.body).not.toBe(refs.get(b)![0]!.body)
    const counts = attribute(clients.seen, refs)
    expect(counts.get(a) ?? 0).toBeGreaterThan(0)
    expect(counts.get(b) ?? 0).toBeGreaterThan(0)
    const health = (await (await fetch(`${s.url}/health`)).json()) as { index: { version: string } }
    expect(health.index.version).toBe(b)
  }, 60_000)

  test('SIGHUP: a rebuild from fewer sources is swapped in on the signal, not before; a corrupt one is refused while the old keeps serving', async () => {
    const { dir, version: a } = copyIndex('signalled')
    const s = await spawnServer({ KEYS_DB: keysDb, INDEX_DIR: dir, WATCH_INDEX: '0' })
    servers.push(s)
    const clients = load(s.url, 6)
    await Bun.sleep(200)
    const c = await buildIndex(dir, ['--only-sources', '--force', join(RAW, 'GuiihDantas__mars-perseverance-data'), join(RAW, 'elbi3__Mars-Rover-Photo-Journal')])
    await Bun.sleep(300)
    // Published but not yet signalled: still serving a.
    expect(((await (await fetch(`${s.url}/health`)).json()) as any).index.version).toBe(a)
    s.proc.kill('SIGHUP')
    expect(await s.waitFor('index.swapped')).toMatchObject({ from: a, to: c, why: 'SIGHUP' })
    await Bun.sleep(400)

    // A corrupt version published by hand: refused, logged, and c keeps serving under load.
    cpSync(join(dir, c), join(dir, 'broken'), { recursive: true })
    truncateSync(join(dir, 'broken', 'photos.arrow'), 4096)
    symlinkSync('broken', join(dir, 'current.next'))
    const { renameSync } = await import('node:fs')
    renameSync(join(dir, 'current.next'), join(dir, 'current'))
    s.proc.kill('SIGHUP')
    const refused = await s.waitFor('index.reload-refused')
    expect(refused).toMatchObject({ serving: c })
    expect(String(refused.error)).toContain('photos.arrow')
    await Bun.sleep(300)
    await clients.stop()

    expect(clients.failures).toEqual([])
    const counts = attribute(clients.seen, await referenceAnswers(dir, [a, c], s.url))
    expect(counts.get(a) ?? 0).toBeGreaterThan(0)
    expect(counts.get(c) ?? 0).toBeGreaterThan(0)
    expect(s.proc.exitCode).toBeNull()
  }, 60_000)
})
