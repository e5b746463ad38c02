import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readSources } from '../index-builder/normalize/normalize-sources'
import { CURIOSITY, PERSEVERANCE } from '../index-builder/fetch/feed-spec'
import { fetchFeeds, type SolRange } from '../index-builder/fetch/fetch-feeds'
import { DEFAULT_POLITE } from '../index-builder/fetch/polite-client'
import { loadState } from '../index-builder/fetch/fetch-state'
import { validateFeedPage, PageError } from '../index-builder/fetch/validate-feed-page'
import { FeedReplayServer, perseveranceRecords } from './support/feed-replay-server'

/**
 * `npm run fetch` against a loopback replay of NASA's raw-image feeds (test/support/feed-replay-server.ts,
 * real records): what is saved is read by the builder's own feed readers, every image once;
 * faults (429/503 with Retry-After, stalls, pages cut mid-JSON) are retried and never saved;
 * a second run is conditional; a sol that grows gains only its new images; kill -9 resumes.
 * The rate cap and backoff are set fast here; their defaults stay polite (1 request a second).
 */
const ROOT = join(import.meta.dir, '..')
const work = mkdtempSync(join(tmpdir(), 'mv-fetch-'))
const server = new FeedReplayServer({ latestPerseverance: 8 })
const FAST = { ...DEFAULT_POLITE, ratePerSecond: 200, backoffMs: 20, maxBackoffMs: 100, timeoutMs: 2000, tries: 4 }
let dirs = 0
const freshDir = () => join(work, `feeds-${++dirs}`)

afterAll(() => {
  server.stop()
  rmSync(work, { recursive: true, force: true })
})

const run = (feedDir: string, rover: 'perseverance' | 'curiosity', range: SolRange, polite = FAST) =>
  fetchFeeds({ rover, feedDir, baseUrl: server.url, range, polite })

/** Every saved image id of a rover's sol, across its pages, in page order. */
function savedIds(feedDir: string, rover: 'perseverance' | 'curiosity', sol: number): string[] {
  const dir = join(feedDir, rover, `sol-${String(sol).padStart(5, '0')}`)
  if (!existsSync(dir)) return []
  const key = rover === 'perseverance' ? 'images' : 'items'
  return readdirSync(dir).sort().flatMap((f) => (JSON.parse(readFileSync(join(dir, f), 'utf8'))[key] as Array<{ imageid: string }>).map((r) => r.imageid))
}

const realIds = (sol: number) => perseveranceRecords().filter((r) => r.sol === sol).map((r) => r.imageid as string)

describe('fetching the feeds', () => {
  test('a one-week run saves every real record of the replayed sols once, in pages the builder reads as feed pages', async () => {
    const dir = freshDir()
    const p = await run(dir, 'perseverance', { kind: 'since', sols: 7 })
    const c = await run(dir, 'curiosity', { kind: 'since', sols: 7 })
    expect([p.solMin, p.solMax, c.solMin, c.solMax]).toEqual([2, 8, 3021, 3027])
    expect(p.images.new).toBe(1196)
    expect(p.sols).toMatchObject({ total: 7, changed: 2, empty: 5, failed: 0 })
    expect(savedIds(dir, 'perseverance', 2)).toEqual(realIds(2))
    expect(savedIds(dir, 'perseverance', 4)).toEqual(realIds(4))
    expect(readdirSync(join(dir, 'perseverance', 'sol-00002'))).toHaveLength(11) // 1,036 images, 100 a page
    expect(c.images.new).toBe(server.records('curiosity', 3027).length)
    expect(c.errors).toEqual([])
    // The builder's own readers take the saved pages: one photo per NASA image id as the feed
    // states it (a Perseverance id with its product version; the served nasa_id drops it).
    const read = await readSources([dir])
    const formats = new Set(read.sources.map((s) => s.format))
    expect([...formats].sort()).toEqual(['m2020-raw-images', 'msl-raw-image-items'])
    const ids = read.records.map((r) => r.id_key ?? r.nasa_id)
    expect(new Set(ids).size).toBe(ids.length)
    const unmapped = read.unmapped.reduce((n, u) => n + u.photos, 0)
    expect(read.records.length + unmapped).toBe(1196 + c.images.new)
  })

  test('a second run asks conditionally, gets 304 for every saved page and rewrites nothing', async () => {
    const dir = freshDir()
    await run(dir, 'perseverance', { kind: 'sols', min: 4, max: 4 })
    const page = join(dir, 'perseverance', 'sol-00004', 'page-000.json')
    const before = statSync(page).mtimeMs
    const mark = server.log.length
    const again = await run(dir, 'perseverance', { kind: 'sols', min: 4, max: 4 })
    const asked = server.log.slice(mark)
    expect(asked.map((r) => [r.key, r.status, r.conditional])).toEqual([
      ['perseverance:4:0', 304, true],
      ['perseverance:4:1', 304, true],
    ])
    expect(again.sols.unchanged).toBe(1)
    expect(again.images).toMatchObject({ new: 0, unchanged: 160, changed: 0, removed: 0 })
    expect(statSync(page).mtimeMs).toBe(before)
  })

  test('429 and 503 answers are waited out for as long as their Retry-After says, then the page is saved', async () => {
    const dir = freshDir()
    // An HTTP-date has whole seconds: 1.999 s ahead is 1 to 2 s ahead once truncated.
    server.inject('perseverance:4:0', { status: 503, retryAfter: new Date(Date.now() + 1999).toUTCString() })
    server.inject('perseverance:4:1', { status: 429, retryAfter: '1' })
    const s = await run(dir, 'perseverance', { kind: 'sols', min: 4, max: 4 })
    const tries = (key: string) => server.requests(key).slice(-2)
    const [busy0, ok0] = tries('perseverance:4:0')
    const [busy1, ok1] = tries('perseverance:4:1')
    expect([busy0!.status, ok0!.status, busy1!.status, ok1!.status]).toEqual([503, 200, 429, 200])
    expect(ok0!.at - busy0!.at).toBeGreaterThanOrEqual(900)
    expect(ok1!.at - busy1!.at).toBeGreaterThanOrEqual(990)
    expect(s.retries).toBe(2)
    expect(s.retryAfterWaitS).toBeGreaterThanOrEqual(2)
    expect(savedIds(dir, 'perseverance', 4)).toEqual(realIds(4))
  })

  test('a stalled request and a page cut mid-JSON are tried again; the cut page is never saved', async () => {
    const dir = freshDir()
    server.inject('perseverance:4:0', { stallMs: 3000 })
    server.inject('perseverance:4:1', { truncate: true })
    const s = await run(dir, 'perseverance', { kind: 'sols', min: 4, max: 4 }, { ...FAST, timeoutMs: 300 })
    expect(s.retries).toBe(2)
    expect(s.sols.failed).toBe(0)
    expect(savedIds(dir, 'perseverance', 4)).toEqual(realIds(4))
  })

  test('a page cut on every try fails its sol alone: nothing of it is saved, and the next run fetches only that sol', async () => {
    const dir = freshDir()
    server.inject('curiosity:3027:1', { truncate: true }, { truncate: true }, { truncate: true }, { truncate: true })
    const first = await run(dir, 'curiosity', { kind: 'sols', min: 3025, max: 3027 })
    expect(first.sols).toMatchObject({ failed: 1, empty: 2 })
    expect(first.errors[0]).toContain('sol 3027')
    expect(first.errors[0]).toContain('not whole JSON')
    expect(existsSync(join(dir, 'curiosity', 'sol-03027'))).toBe(false)
    expect(loadState(dir, 'curiosity').run).toMatchObject({ done: [3025, 3026] })
    expect(loadState(dir, 'curiosity').run?.finished).toBeUndefined()
    const mark = server.log.length
    const second = await run(dir, 'curiosity', { kind: 'sols', min: 3025, max: 3027 })
    expect(second).toMatchObject({ resumed: true, sols: { skipped: 2, changed: 1, failed: 0 } })
    expect(new Set(server.log.slice(mark).map((r) => r.key))).toEqual(new Set(['curiosity:3027:0', 'curiosity:3027:1']))
    expect(savedIds(dir, 'curiosity', 3027)).toEqual(server.records('curiosity', 3027).map((r) => r.imageid as string))
  })

  test('a sol whose image count grows between two runs gains the new images and no duplicate', async () => {
    const dir = freshDir()
    server.visible.set('perseverance:4', 130)
    const first = await run(dir, 'perseverance', { kind: 'sols', min: 4, max: 4 })
    expect(first.images.new).toBe(130)
    server.visible.delete('perseverance:4')
    const second = await run(dir, 'perseverance', { kind: 'sols', min: 4, max: 4 })
    expect(second.images).toMatchObject({ new: 30, unchanged: 130, changed: 0, removed: 0, duplicates: 0 })
    const ids = savedIds(dir, 'perseverance', 4)
    expect(ids).toEqual(realIds(4))
    expect(new Set(ids).size).toBe(160)
  })

  test('images deleted upstream while a sol is paged through: the shifted pages are noticed and the sol is read again, none lost or doubled', async () => {
    const dir = freshDir()
    server.onRequest = (key) => {
      if (key === 'perseverance:4:1' && !server.removedFront.has('perseverance:4')) server.removedFront.set('perseverance:4', 10)
    }
    try {
      const s = await run(dir, 'perseverance', { kind: 'sols', min: 4, max: 4 })
      expect(s.errors).toEqual([])
      expect(s.pages.fetched).toBe(4)
      expect(savedIds(dir, 'perseverance', 4)).toEqual(realIds(4).slice(10))
    } finally {
      server.onRequest = undefined
      server.removedFront.clear()
    }
  })

  test('requests keep to the rate cap, retries included', async () => {
    const dir = freshDir()
    server.inject('perseverance:4:0', { status: 500 })
    const mark = server.log.length
    await run(dir, 'perseverance', { kind: 'sols', min: 3, max: 4 }, { ...FAST, ratePerSecond: 10, backoffMs: 0 })
    const at = server.log.slice(mark).map((r) => r.at)
    expect(at.length).toBe(4) // sol 3, sol 4 page 0 twice, page 1
    // Starts are 100 ms apart at 10 a second; arrival times jitter a little on a loaded machine,
    // so the span is checked (uncapped, the four requests would take a few milliseconds).
    expect(at[3]! - at[0]!).toBeGreaterThanOrEqual(250)
  })

  test('a Retry-After longer than allowed, or a page over the size bound, fails that sol at once and saves nothing of it', async () => {
    const dir = freshDir()
    server.inject('perseverance:4:0', { status: 429, retryAfter: '86400' })
    const a = await run(dir, 'perseverance', { kind: 'sols', min: 4, max: 4 }, { ...FAST, maxRetryAfterS: 5 })
    expect(a.sols.failed).toBe(1)
    expect(a.errors[0]).toContain('asking to wait 86400s')
    expect(a.requests).toBe(1)
    server.inject('perseverance:4:0', { padBytes: 100_000 })
    const b = await run(dir, 'perseverance', { kind: 'sols', min: 4, max: 4 }, { ...FAST, maxBytes: 50_000 })
    expect(b.sols.failed).toBe(1)
    expect(b.errors[0]).toContain('over 50000')
    expect(existsSync(join(dir, 'perseverance', 'sol-00004'))).toBe(false)
  })

  test('kill -9 in the middle of a sol, then the same command again: complete sols are not fetched again, every image is saved once', async () => {
    const dir = freshDir()
    const cmd = [process.execPath, 'index-builder/fetch/cli.ts', '--rover', 'perseverance', '--sol-min', '0', '--sol-max', '6', '--feed-dir', dir, '--base-url', server.url, '--rate', '40', '--json']
    const child = Bun.spawn(cmd, { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
    server.onRequest = (key) => {
      if (key === 'perseverance:2:5') child.kill('SIGKILL')
    }
    await child.exited
    server.onRequest = undefined
    expect(child.signalCode).toBe('SIGKILL')
    const done = loadState(dir, 'perseverance').run!.done
    expect(done).toEqual([0, 1])
    expect(existsSync(join(dir, 'perseverance', 'sol-00002'))).toBe(false) // half a sol is never visible
    const mark = server.log.length
    const again = Bun.spawn(cmd, { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
    expect(await again.exited).toBe(0)
    const summary = JSON.parse(await new Response(again.stdout).text())
    expect(summary).toMatchObject({ resumed: true, sols: { skipped: 2, failed: 0 }, images: { new: 1196 } })
    const asked = server.log.slice(mark).map((r) => r.key)
    expect(asked.filter((k) => /^perseverance:[01]:/.test(k))).toEqual([])
    expect(asked.filter((k) => k === 'perseverance:2:0')).toHaveLength(1)
    expect(savedIds(dir, 'perseverance', 2)).toEqual(realIds(2))
    expect(readdirSync(join(dir, '.staging', 'perseverance'))).toEqual([])
  })

  test('the fetch and update commands print their usage and exit 0 on --help, and refuse bad options with exit 2', async () => {
    for (const script of ['index-builder/fetch/cli.ts', 'index-builder/fetch/update-cli.ts']) {
      const p = Bun.spawnSync([process.execPath, script, '--help'], { cwd: ROOT })
      expect(p.exitCode).toBe(0)
      expect(p.stdout.toString()).toContain('--feed-dir')
    }
    const bad = [
      ['--rover', 'opportunity'],
      ['--rover', 'curiosity', '--sol-min', '5'],
      ['--rover', 'curiosity', '--sol-min', '9', '--sol-max', '3'],
      ['--rover', 'curiosity', '--sol-min', '0', '--sol-max', '99999'],
      ['--rover', 'curiosity', '--since-sols', '-1'],
      ['--rover', 'curiosity', '--base-url', 'file:///etc/passwd'],
      ['--rover', 'curiosity', '--base-url', 'http://user:pw@example.org'],
      ['--rover', 'curiosity', '--rate', '0'],
    ]
    for (const args of bad) {
      const p = Bun.spawnSync([process.execPath, 'index-builder/fetch/cli.ts', ...args], { cwd: ROOT })
      expect({ args, code: p.exitCode }).toEqual({ args, code: 2 })
    }
  }, 120_000)
})

describe('validating a feed page before it is saved', () => {
  const real = () => perseveranceRecords().filter((r) => r.sol === 4).slice(0, 3)
  const page = (images: unknown[]) => JSON.stringify({ images, total_images: images.length, page: 0 })

  test('real records pass unchanged', () => {
    const v = validateFeedPage(page(real()), PERSEVERANCE, 4)
    expect(v.images.map((i) => i.id)).toEqual(real().map((r) => r.imageid as string))
    expect(v.rejected).toEqual([])
  })

  test('records with a bad id, a non-http URL, an out-of-range date, another sol or an oversized field are left out and named', () => {
    const [a, b, c] = real()
    const bad = [
      { ...a, imageid: '../../etc/passwd' },
      { ...b, image_files: { ...(b!.image_files as object), full_res: 'javascript:alert(1)' } },
      { ...c, date_taken_utc: '1999-01-01T00:00:00' },
      { ...a, imageid: 'X' + (a!.imageid as string).slice(1), sol: 5 },
      { ...b, imageid: 'Y' + (b!.imageid as string).slice(1), caption: 'x'.repeat(20_000) },
      { ...c, imageid: 'Z' + (c!.imageid as string).slice(1), date_taken_utc: null, extended: { ...(c!.extended as object), sclk: 'UNK' } },
    ]
    const v = validateFeedPage(page([...real(), ...bad]), PERSEVERANCE, 4)
    expect(v.images).toHaveLength(3)
    expect((v.doc.images as unknown[]).length).toBe(3)
    expect(v.rejected.map((r) => r.why)).toEqual([
      expect.stringContaining('not a NASA image id'),
      expect.stringContaining('image_files.full_res is not an http(s) URL'),
      expect.stringContaining('out of range'),
      expect.stringContaining('sol 5 on a page of sol 4'),
      expect.stringContaining('text field of 20000'),
      expect.stringContaining('no date_taken_utc and no spacecraft clock'),
    ])
  })

  test('a page cut short, without its list, or with far more records than asked is refused whole', () => {
    const text = page(real())
    expect(() => validateFeedPage(text.slice(0, text.length - 10), PERSEVERANCE, 4)).toThrow(PageError)
    expect(() => validateFeedPage('{"items": []}', PERSEVERANCE, 4)).toThrow('no "images" array')
    expect(() => validateFeedPage(JSON.stringify({ items: new Array(401).fill({}), more: false }), CURIOSITY, 4)).toThrow('401 records')
  })
})
