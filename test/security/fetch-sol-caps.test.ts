import { afterAll, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEFAULT_CAPS } from '../../index-builder/fetch/fetch-caps'
import { fetchFeeds, type SolRange } from '../../index-builder/fetch/fetch-feeds'
import { loadState } from '../../index-builder/fetch/fetch-state'
import { formatFetchSummary } from '../../index-builder/fetch/format-fetch-summary'
import { DEFAULT_POLITE } from '../../index-builder/fetch/polite-client'
import { FeedReplayServer } from '../support/feed-replay-server'

/**
 * The fetcher bounded a page (8 MiB) but not a sol or a run: a feed answering a sol of many big
 * pages had them all held in memory and saved (12 pages: 77 MiB saved, ~320 MB resident). Now a
 * sol over 32 MiB or 20,000 records is refused whole with nothing of it saved, the summary names
 * the cap, pages go to disk as they arrive, and a run stops at its byte cap and resumes after it.
 */
const work = mkdtempSync(join(tmpdir(), 'mv-sec-fetch-'))
const server = new FeedReplayServer({ latestPerseverance: 8 })
const FAST = { ...DEFAULT_POLITE, ratePerSecond: 200, backoffMs: 20, maxBackoffMs: 100, timeoutMs: 10_000, tries: 2 }
let dirs = 0
const freshDir = () => join(work, `feeds-${++dirs}`)
const run = (feedDir: string, range: SolRange, caps = DEFAULT_CAPS) => fetchFeeds({ rover: 'perseverance', feedDir, baseUrl: server.url, range, polite: FAST, caps })
const staged = (dir: string) => (existsSync(join(dir, '.staging', 'perseverance')) ? readdirSync(join(dir, '.staging', 'perseverance')) : [])

afterAll(() => {
  server.stop()
  rmSync(work, { recursive: true, force: true })
})

/** Pads every page of Perseverance sol 2 (1,036 images, 11 pages) by `bytes`. */
function padSol2(bytes: number): void {
  for (let p = 0; p < 11; p++) server.inject(`perseverance:2:${p}`, { padBytes: bytes })
}

test('a sol of 11 pages of 7 MiB (77 MiB) is refused whole at the default 32 MiB cap: nothing of it saved, nothing staged, the summary names the cap', async () => {
  const dir = freshDir()
  padSol2(7 * 1024 * 1024)
  const s = await run(dir, { kind: 'sols', min: 2, max: 2 })
  server.faults.clear()
  expect(s.sols).toMatchObject({ failed: 1, refused: 1, changed: 0 })
  expect(s.errors[0]).toContain('refused whole, nothing of it saved')
  expect(s.errors[0]).toContain('32 MiB a sol')
  expect(existsSync(join(dir, 'perseverance', 'sol-00002'))).toBe(false)
  expect(staged(dir)).toEqual([])
  // It stops asking at the page that passes the cap: 5 pages of 7 MiB, not all 11.
  expect(s.pages.fetched).toBe(5)
  const text = formatFetchSummary(s)
  expect(text).toContain('caps    32 MiB and 20,000 records a sol')
  expect(text).toContain('1 sol refused over a sol cap, nothing of it saved')
  expect(loadState(dir, 'perseverance').run?.finished).toBeUndefined()
}, 120_000)

test('a sol over the record cap is refused whole; a sol under it is saved in the same run', async () => {
  const dir = freshDir()
  const s = await run(dir, { kind: 'sols', min: 2, max: 4 }, { ...DEFAULT_CAPS, solRecords: 500 })
  expect(s.sols).toMatchObject({ failed: 1, refused: 1, changed: 1, empty: 1 })
  expect(s.errors[0]).toMatch(/^sol 2: refused whole.*500 records a sol/)
  expect(existsSync(join(dir, 'perseverance', 'sol-00002'))).toBe(false)
  expect(readdirSync(join(dir, 'perseverance', 'sol-00004'))).toHaveLength(2)
  expect(staged(dir)).toEqual([])
}, 60_000)

test('pages go to disk as they arrive: when page 6 is asked for, pages 0 to 5 are already staged files', async () => {
  const dir = freshDir()
  let seen: string[] | undefined
  server.onRequest = (key) => {
    if (key === 'perseverance:2:6') seen = staged(dir).flatMap((d) => readdirSync(join(dir, '.staging', 'perseverance', d)))
  }
  try {
    const s = await run(dir, { kind: 'sols', min: 2, max: 2 })
    expect(s.sols.changed).toBe(1)
  } finally {
    server.onRequest = undefined
  }
  expect(seen?.sort()).toEqual(['page-000.json', 'page-001.json', 'page-002.json', 'page-003.json', 'page-004.json', 'page-005.json'])
  expect(readdirSync(join(dir, 'perseverance', 'sol-00002'))).toHaveLength(11)
  expect(staged(dir)).toEqual([])
}, 60_000)

test('a run stops after the sol that passes the run byte cap, says so, and the same request again goes on from the next sol', async () => {
  const dir = freshDir()
  const caps = { ...DEFAULT_CAPS, runBytes: 64 * 1024 }
  const first = await run(dir, { kind: 'sols', min: 2, max: 4 }, caps)
  expect(first.sols).toMatchObject({ changed: 1, failed: 0, left: 2 })
  expect(first.stopped).toContain('run cap of 64 KiB')
  expect(first.stopped).toContain('before sol 3')
  expect(loadState(dir, 'perseverance').run).toMatchObject({ done: [2] })
  expect(loadState(dir, 'perseverance').run?.finished).toBeUndefined()
  const second = await run(dir, { kind: 'sols', min: 2, max: 4 }, { ...caps, runBytes: DEFAULT_CAPS.runBytes })
  expect(second).toMatchObject({ resumed: true, sols: { skipped: 1, changed: 1, empty: 1, left: 0 } })
  expect(second.stopped).toBeUndefined()
  expect(loadState(dir, 'perseverance').run?.finished).toBeDefined()
}, 60_000)

test('the caps are set by flag or environment, and a bad one is a usage error naming it', async () => {
  const ROOT = join(import.meta.dir, '../..')
  const dir = freshDir()
  const env = { ...process.env, FETCH_MAX_SOL_RECORDS: '500' }
  const p = Bun.spawn([process.execPath, 'index-builder/fetch/cli.ts', '--rover', 'perseverance', '--sol-min', '2', '--sol-max', '2', '--feed-dir', dir, '--base-url', server.url, '--rate', '200', '--max-sol-bytes', '16MiB'], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })
  const out = await new Response(p.stdout).text()
  expect(await p.exited).toBe(1)
  expect(out).toContain('caps    16 MiB and 500 records a sol, 4 GiB a run')
  expect(out).toContain('500 records a sol (--max-sol-records, FETCH_MAX_SOL_RECORDS)')
  const bad = Bun.spawnSync([process.execPath, 'index-builder/fetch/cli.ts', '--rover', 'perseverance', '--max-run-bytes', 'lots'], { cwd: ROOT })
  expect(bad.exitCode).toBe(2)
  expect(bad.stderr.toString()).toContain('--max-run-bytes must be a byte count')
}, 60_000)
