import { afterAll, beforeAll, expect, test } from 'bun:test'
import { splitProductVersion } from '../src/catalog/nasa-id-form'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { signalServer } from '../index-builder/fetch/signal-server'
import { KeyStore } from '../src/keys/key-store'
import { FeedReplayServer } from './support/feed-replay-server'
import { spawnServer, type ServerProcess } from './setup/test-app'

/**
 * `npm run update` end to end: fetch from the replayed feeds (real records), rebuild from the real
 * sources plus the fetched pages into a private index folder, publish, SIGHUP the running server
 * through its pid file. The server (a child process on a free port, never data/index) then serves
 * the new photos; the photos it served before are unchanged; no photo appears twice.
 */
const ROOT = join(import.meta.dir, '..')
const work = mkdtempSync(join(tmpdir(), 'mv-update-'))
const feeds = join(work, 'feeds')
const index = join(work, 'index')
const keysDb = join(work, 'keys.sqlite')
const pidFile = join(work, 'server.pid')
const feed = new FeedReplayServer({ latestPerseverance: 8 })
let key: string
let server: ServerProcess | undefined

beforeAll(() => {
  const keys = KeyStore.open(keysDb)
  key = keys.create('update@example.com', { hourly: 1_000_000, daily: 1_000_000, concurrent: 1_000 })
  keys.close()
})
afterAll(async () => {
  await server?.stop('SIGKILL')
  feed.stop()
  rmSync(work, { recursive: true, force: true })
})

async function update(...extra: string[]): Promise<{ code: number; report: Record<string, any> }> {
  const p = Bun.spawn([process.execPath, 'index-builder/fetch/update-cli.ts', '--feed-dir', feeds, '--index-dir', index, '--base-url', feed.url, '--rate', '200', '--backoff-ms', '20', '--json', ...extra], {
    cwd: ROOT,
    // The base catalogue without the incoming folder, which holds the very Perseverance records
    // the replay serves: here they must arrive through the feed.
    env: { ...process.env, BUILD_SOURCE_DIRS: join(ROOT, '../shared/data/raw') },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  let report: Record<string, any> = {}
  try {
    report = JSON.parse(out)
  } catch {
    report = { out, err }
  }
  return { code, report }
}

/** Resolves once the server has logged its `n`th index swap (waitFor answers the first one again). */
async function swapsLogged(n: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (server!.lines.filter((l) => l.includes('"index.swapped"')).length >= n) return
    await Bun.sleep(50)
  }
  throw new Error(`fewer than ${n} index swaps logged`)
}

/** Every photo the server answers for a rover's sol, by nasa_id, as JSON; fails on a nasa_id served twice. */
async function served(rover: string, sol: number): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  for (let page = 1; page < 100; page++) {
    const r = await fetch(`${server!.url}/api/v2/photos?rovers=${rover}&sol=${sol}&per_page=100&page=${page}&sort=id`, { headers: { 'x-api-key': key } })
    expect(r.status).toBe(200)
    const body = (await r.json()) as { data: Array<{ attributes: { nasa_id: string } }> }
    for (const p of body.data) {
      expect(out.has(p.attributes.nasa_id)).toBe(false)
      out.set(p.attributes.nasa_id, JSON.stringify(p))
    }
    if (body.data.length < 100) break
  }
  return out
}

test('update fetches, rebuilds and reloads the running server: the new photos are served, the old ones unchanged, none twice', async () => {
  feed.visible.set('perseverance:4', 100)
  feed.visible.set('curiosity:3027', 150)
  const first = await update()
  expect(first.code).toBe(0)
  expect(first.report.build).toMatchObject({ ran: true, code: 0 })

  server = await spawnServer({ KEYS_DB: keysDb, INDEX_DIR: index, WATCH_INDEX: '0' })
  writeFileSync(pidFile, `${server.proc.pid}\n`)
  const before = { p: await served('perseverance', 4), c: await served('curiosity', 3027) }
  expect(before.p.size).toBeGreaterThanOrEqual(100)

  feed.visible.clear() // sol 4 now has 160 images, sol 3027 all of its records
  const second = await update('--pid-file', pidFile)
  expect(second.code).toBe(0)
  expect(second.report.fetch.map((s: any) => [s.rover, s.images.new])).toEqual([
    ['perseverance', 60],
    ['curiosity', feed.records('curiosity', 3027).length - 150],
  ])
  expect(second.report.reload).toEqual({ sent: true, pid: server.proc.pid })
  await server.waitFor('index.swapped')
  const after = { p: await served('perseverance', 4), c: await served('curiosity', 3027) }

  for (const [rover, sol, b, a] of [['perseverance', 4, before.p, after.p], ['curiosity', 3027, before.c, after.c]] as const) {
    // A photo's own record is unchanged; its relationships may gain what the new photos bring
    // (a sequence grows, the other eye of a stereo pair arrives), so they are compared apart.
    const own = (json: string | undefined) => (json === undefined ? undefined : JSON.stringify({ ...JSON.parse(json), relationships: undefined }))
    for (const [id, json] of b) {
      expect({ id, json: own(a.get(id)) }).toEqual({ id, json: own(json) })
      const [was, now] = [JSON.parse(json).relationships, JSON.parse(a.get(id)!).relationships]
      if (was?.sequence) expect(now.sequence.id).toBe(was.sequence.id)
      if (was?.sequence) expect(now.sequence.size).toBeGreaterThanOrEqual(was.sequence.size)
      if (was?.stereo) expect(now.stereo).toEqual(was.stereo)
    }
    // Perseverance ids are served without the product version a feed imageid may carry (src/catalog/nasa-id-form.ts).
    const feedIds = feed.records(rover, sol).map((r) => splitProductVersion(r.imageid as string).id)
    const added = [...a.keys()].filter((id) => !b.has(id)).sort()
    expect(added).toEqual(feedIds.filter((id) => !b.has(id)).sort())
    for (const id of feedIds) expect({ id, served: a.has(id) }).toEqual({ id, served: true })
  }
  // Perseverance sol 4 is in no base source here: its 60 new images are new photos. The Curiosity
  // records replayed are real v1 records the base index already holds: their feed pages fold into
  // the same photos (one per NASA image id), so that sol's photo count stays as it was.
  expect(after.p.size - before.p.size).toBe(60)
  expect(after.c.size).toBe(before.c.size)

  // Nothing new: no rebuild, no signal.
  const third = await update('--pid-file', pidFile)
  expect(third.code).toBe(0)
  expect(third.report.build).toMatchObject({ ran: false })
}, 60_000)

test('npm run fetch, then npm run update: the pages fetched outside update are built and served, though update itself fetched nothing new', async () => {
  // Sol 4 (in no base source) loses its first 10 images upstream; it is fetched again by hand,
  // outside the update's own window (--since-sols 1: sol 8, empty), as a mirror run fetches.
  expect((await served('perseverance', 4)).size).toBe(160)
  feed.removedFront.set('perseverance:4', 10)
  try {
    const fetched = Bun.spawn([process.execPath, 'index-builder/fetch/cli.ts', '--rover', 'perseverance', '--sol-min', '4', '--sol-max', '4', '--feed-dir', feeds, '--base-url', feed.url, '--rate', '200', '--json'], { cwd: ROOT, stdout: 'pipe' })
    expect(await fetched.exited).toBe(0)
    expect(JSON.parse(await new Response(fetched.stdout).text())).toMatchObject({ sols: { changed: 1 }, images: { removed: 10 } })
    const r = await update('--since-sols', '1', '--pid-file', pidFile)
    expect(r.code).toBe(0)
    expect(r.report.fetch.every((s: any) => s.sols.changed === 0)).toBe(true)
    expect(r.report.build).toMatchObject({ ran: true, code: 0, reason: 'the page store differs from the one the published index was built from' })
    await swapsLogged(2)
    const sol4 = await served('perseverance', 4)
    expect([...sol4.keys()].sort()).toEqual(feed.records('perseverance', 4).map((x) => splitProductVersion(x.imageid as string).id).sort())
    expect(sol4.size).toBe(150)
  } finally {
    feed.removedFront.clear()
  }
  // The index now records these pages: the next update has nothing to build.
  const again = await update('--since-sols', '1')
  expect(again.report.build).toMatchObject({ ran: false, why: expect.stringContaining('was built from the') })
}, 120_000)

test('a second update while one holds the lock does not start (exit 75) and leaves the index alone', async () => {
  writeFileSync(`${index}.update.lock`, `${process.pid}\n`)
  try {
    const r = await update()
    expect(r.code).toBe(75)
    expect(r.report.err).toContain('another update is running')
  } finally {
    rmSync(`${index}.update.lock`, { force: true })
  }
})

test('a lock left by a process that is gone (kill -9, reboot) is taken over', async () => {
  const gone = Bun.spawn(['true'])
  await gone.exited
  writeFileSync(`${index}.update.lock`, `${gone.pid}\n`)
  const r = await update()
  expect(r.code).toBe(0)
  expect(existsSync(`${index}.update.lock`)).toBe(false)
}, 60_000)

test('a pid file naming a process that is not the server is reported, never signalled (SIGHUP would end it)', async () => {
  const other = Bun.spawn(['sleep', '30'])
  try {
    const file = join(work, 'stale.pid')
    writeFileSync(file, `${other.pid}\n`)
    const out = signalServer(file)
    expect(out.sent).toBe(false)
    expect((out as { why: string }).why).toContain('is not the server')
    await Bun.sleep(50)
    expect(other.exitCode).toBeNull()
    writeFileSync(file, '../../etc/passwd')
    expect(signalServer(file)).toEqual({ sent: false, why: `${file} does not hold a pid` })
  } finally {
    other.kill('SIGKILL')
  }
})
