import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadState } from '../index-builder/fetch/fetch-state'
import { createFetchProgress, etaSeconds, formatEta, progressLine } from '../index-builder/fetch/fetch-progress'
import { FeedReplayServer } from './support/feed-replay-server'

/**
 * `npm run fetch -- --all`: every sol from 0 to each feed's newest, both feed rovers unless
 * --rover names one, in chunks under the run byte cap, to the end in one invocation; resumable
 * after kill -9; a progress bar with an ETA on a terminal (or --progress) only; a summary at the
 * end. Against a loopback replay of the feeds (real records; Curiosity's moved to sol 5 so that
 * its whole mission is six sols).
 */
const ROOT = join(import.meta.dir, '..')
const work = mkdtempSync(join(tmpdir(), 'mv-mirror-'))
const server = new FeedReplayServer({ latestPerseverance: 8, curiositySol: 5 })
let dirs = 0
const freshDir = () => join(work, `feeds-${++dirs}`)

afterAll(() => {
  server.stop()
  rmSync(work, { recursive: true, force: true })
})

const fetchCmd = (dir: string, ...extra: string[]) => [process.execPath, 'index-builder/fetch/cli.ts', '--all', '--feed-dir', dir, '--base-url', server.url, '--rate', '1000', '--backoff-ms', '20', ...extra]

async function runFetch(cmd: string[]): Promise<{ code: number; out: string; err: string }> {
  const p = Bun.spawn(cmd, { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  return { code, out, err }
}

/** Every saved image id of a rover, across its sols and pages. */
function savedIds(dir: string, rover: 'perseverance' | 'curiosity'): string[] {
  const root = join(dir, rover)
  if (!existsSync(root)) return []
  const key = rover === 'perseverance' ? 'images' : 'items'
  return readdirSync(root).sort().flatMap((sol) => readdirSync(join(root, sol)).sort().flatMap((f) => (JSON.parse(readFileSync(join(root, sol, f), 'utf8'))[key] as Array<{ imageid: string }>).map((r) => r.imageid)))
}

const allIds = (rover: 'perseverance' | 'curiosity', sols: number[]) => sols.flatMap((sol) => server.records(rover, sol).map((r) => r.imageid as string))

describe('mirroring every sol', () => {
  test('--all without --rover walks both feeds from sol 0 to their newest, past the run cap chunk after chunk in one invocation, and prints a summary of each', async () => {
    const dir = freshDir()
    const r = await runFetch(fetchCmd(dir, '--max-run-bytes', '64KiB', '--json'))
    expect(r.code).toBe(0)
    const [p, c] = r.out.trim().split('\n').map((l) => JSON.parse(l))
    expect(p).toMatchObject({ rover: 'perseverance', solMin: 0, solMax: 8, sols: { total: 9, changed: 2, empty: 7, failed: 0, left: 0 }, images: { new: 1196 } })
    expect(c).toMatchObject({ rover: 'curiosity', solMin: 0, solMax: 5, sols: { total: 6, changed: 1, empty: 5, failed: 0 } })
    // Sol 2's pages alone pass 64 KiB: the run went on in a new chunk instead of stopping.
    expect(p.chunks).toBeGreaterThan(1)
    expect(p.stopped).toBeUndefined()
    expect(savedIds(dir, 'perseverance')).toEqual(allIds('perseverance', [2, 4]))
    expect(savedIds(dir, 'curiosity')).toEqual(allIds('curiosity', [5]))
    expect(loadState(dir, 'perseverance').run).toMatchObject({ request: 'all', solMin: 0, solMax: 8 })
    expect(loadState(dir, 'perseverance').run?.finished).toBeDefined()
    // The human summary names the chunks and the caps; no progress bar when stderr is not a terminal.
    const again = await runFetch(fetchCmd(dir, '--rover', 'curiosity'))
    expect(again.out).toContain('fetch curiosity sols 0..5: 6 sols, 0 changed, 1 unchanged, 5 empty')
    expect(again.out).toContain('caps    32 MiB and 20,000 records a sol, 4 GiB a run')
    expect(again.err).toBe('')
    expect(again.code).toBe(0)
  }, 120_000)

  test('kill -9 in the middle of --all, then the same command: the sols done are not asked again, every image is saved once', async () => {
    const dir = freshDir()
    const cmd = fetchCmd(dir, '--rover', 'perseverance', '--rate', '40', '--json')
    const child = Bun.spawn(cmd, { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
    server.onRequest = (key) => {
      if (key === 'perseverance:4:0') child.kill('SIGKILL')
    }
    await child.exited
    server.onRequest = undefined
    expect(child.signalCode).toBe('SIGKILL')
    expect(loadState(dir, 'perseverance').run).toMatchObject({ request: 'all', done: [0, 1, 2, 3] })
    const mark = server.log.length
    const again = await runFetch(cmd)
    expect(again.code).toBe(0)
    expect(JSON.parse(again.out)).toMatchObject({ resumed: true, sols: { skipped: 4, changed: 1, failed: 0 }, images: { new: 160 } })
    expect(server.log.slice(mark).map((r) => r.key).filter((k) => /^perseverance:[0-3]:/.test(k))).toEqual([])
    const ids = savedIds(dir, 'perseverance')
    expect(ids).toEqual(allIds('perseverance', [2, 4]))
    expect(new Set(ids).size).toBe(ids.length)
  }, 120_000)

  test('--progress draws the bar with its sol count and an ETA on stderr, and ends the line before the summary', async () => {
    const r = await runFetch(fetchCmd(freshDir(), '--rover', 'perseverance', '--progress'))
    expect(r.code).toBe(0)
    expect(r.err).toMatch(/\[[#.]{30}\] +\d+% \d+\/9 sols +perseverance sol \d+ +ETA (--|\d+s)/)
    expect(r.err).toContain('9/9 sols')
    expect(r.err.endsWith('\r\x1b[K')).toBe(true)
    expect(r.out).toStartWith('fetch perseverance sols 0..8: 9 sols')
  }, 60_000)

  test('--rover is optional in every mode, and --all takes no sol range', async () => {
    const r = await runFetch([process.execPath, 'index-builder/fetch/cli.ts', '--sol-min', '4', '--sol-max', '5', '--feed-dir', freshDir(), '--base-url', server.url, '--rate', '1000', '--json'])
    expect(r.code).toBe(0)
    expect(r.out.trim().split('\n').map((l) => JSON.parse(l)).map((s) => [s.rover, s.solMin, s.solMax, s.images.new])).toEqual([
      ['perseverance', 4, 5, 160],
      ['curiosity', 4, 5, server.records('curiosity', 5).length],
    ])
    const bad = await runFetch(fetchCmd(freshDir(), '--since-sols', '3'))
    expect(bad.code).toBe(2)
    expect(bad.err).toContain('--all fetches every sol')
  }, 60_000)
})

describe('the ETA', () => {
  test('is the pace of the sols fetched so far applied to the sols left, and unknown before the first', () => {
    expect(etaSeconds(0, 100, 5)).toBeUndefined()
    expect(etaSeconds(10, 100, 20)).toBe(180)
    expect(etaSeconds(100, 100, 20)).toBe(0)
    expect([formatEta(undefined), formatEta(42.4), formatEta(185), formatEta(7620), formatEta(3 * 86_400 + 4 * 3600)]).toEqual(['--', '42s', '3m05s', '2h07m', '3d04h'])
    expect(progressLine(25, 100, 'curiosity sol 25', 50)).toBe(`[${'#'.repeat(8)}${'.'.repeat(22)}]  25% 25/100 sols  curiosity sol 25         ETA 2m30s`)
  })

  test('is drawn only when enabled, at most ten times a second', () => {
    const written: string[] = []
    let t = 0
    const off = createFetchProgress(false, { write: (s: string) => written.push(s) })
    off.update(1, 2, 'x')
    expect(written).toEqual([])
    const on = createFetchProgress(true, { write: (s: string) => written.push(s) }, () => t)
    t = 1000
    on.update(1, 10, 'a')
    t = 1050
    on.update(2, 10, 'b') // 50 ms later: skipped
    t = 1200
    on.update(3, 10, 'c')
    on.done()
    expect(written.map((w) => w.slice(0, 50))).toEqual([expect.stringContaining('1/10 sols'), expect.stringContaining('3/10 sols'), '\r\x1b[K'])
    expect(written[1]).toContain('ETA 3s') // 3 sols in the 1.2 s since the start: 7 more take 2.8 s
  })
})
