import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readManifest } from '../index-builder/encode/manifest'
import { mergeUpdate } from '../index-builder/merge/merge-update'
import { assignedIdFor } from '../index-builder/normalize/assign-ids'
import { parseImageId } from '../index-builder/normalize/parse-image-id'
import { BUILT_IN_CALIBRATION, sclkToUtcFor } from '../index-builder/normalize/sclk-to-utc'
import { splitProductVersion } from '../src/catalog/nasa-id-form'
import { loadStore } from '../src/store/load-store'
import type { Store } from '../src/store/store'
import { makeTestApp } from './setup/test-app'
import { perseveranceRecords } from './support/feed-replay-server'
import { moveRecord, StandInOrigin } from './support/stand-in-origin'

/**
 * `npm run update` as a merge (index-builder/merge/): the sols whose pages changed are read
 * alone and merged into the published index. Each update here is checked against a clean full
 * build of the same pages: the same files byte for byte (so the same rows and ids), and the same
 * answers to API queries; and that it took the merge path, or said why it did not.
 */
const ROOT = join(import.meta.dir, '..')
const work = mkdtempSync(join(tmpdir(), 'mv-merge-'))
const feeds = join(work, 'feeds')
const index = join(work, 'index')
const mainIndex = index
const origin = new StandInOrigin({ sols: 12, perSol: 150 })
const empty = join(work, 'no-sources')
const env = { ...process.env, BUILD_SOURCE_DIRS: empty }

/** Set by a test to build with other settings (the raw JSON limit). */
let extraEnv: Record<string, string> = {}

async function run(args: string[], sources = empty): Promise<string> {
  const p = Bun.spawn([process.execPath, ...args], { cwd: ROOT, env: { ...env, BUILD_SOURCE_DIRS: sources, ...extraEnv }, stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  expect({ args, code, err: code === 0 ? '' : err }).toEqual({ args, code: 0, err: '' })
  return out
}

async function update(sinceSols: number): Promise<{ fetch: Array<{ solMin: number; solMax: number }>; build: { ran: boolean; merged?: boolean; code?: number; output?: string; fallback?: string } }> {
  return JSON.parse(await run(['index-builder/fetch/update-cli.ts', '--since-sols', String(sinceSols), '--rover', 'perseverance', '--feed-dir', feeds, '--index-dir', index, '--base-url', origin.url, '--rate', '1000', '--json']))
}

/** A clean full build of the page store as it is now, in its own folder. */
async function cleanBuild(name: string): Promise<string> {
  const out = join(work, name)
  await run(['index-builder/cli.ts', '--out', out, '--page-store', feeds])
  return out
}

function queries(newSol: number, revisedSol: number): string[] {
  return [
    `/api/v2/photos?rovers=perseverance&per_page=100`,
    `/api/v2/photos?rovers=perseverance&sol=${newSol}&per_page=100&fields=nasa_id,sol,images,location,sun,id,date_taken_utc,date_taken_mars`,
    `/api/v2/photos?rovers=perseverance&sol=${revisedSol}&per_page=100&sort=sol`,
    `/api/v2/photos?rovers=perseverance&sol_min=${newSol - 2}&sol_max=${newSol}&sort=sun_elevation&per_page=50`,
    `/api/v2/photos?rovers=perseverance&sort=date_received&per_page=30`,
    `/api/v2/photos/stats?rovers=perseverance`,
    `/api/v2/rovers/perseverance`,
    `/api/v2/rovers/perseverance/manifest`,
    `/api/v2/cameras`,
    `/api/v2/panoramas?rovers=perseverance`,
    `/api/v2/locations?rovers=perseverance`,
    `/api/v1/rovers/perseverance/photos?sol=${newSol}`,
    `/api/v1/manifests/perseverance`,
    `/api/v2/photos?rovers=perseverance&sol=${newSol - 1}&per_page=100&fields=id,nasa_id,date_taken_utc,date_taken_mars,sun`,
  ]
}

/** A body without the time of the answer (`meta.timestamp`), the one thing two answers of one index differ by. */
function timeless(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(timeless)
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'timestamp').map(([k, x]) => [k, timeless(x)]))
  return v
}

/** Each query's status and body from the app over each index (bodies parsed, so key order is theirs). */
async function answers(store: Store, paths: string[]): Promise<Array<{ path: string; status: number; body: unknown }>> {
  const t = await makeTestApp({ store })
  try {
    const out = []
    for (const path of paths) {
      const res = await t.request(path)
      const text = await res.text()
      out.push({ path, status: res.status, body: res.headers.get('content-type')?.includes('json') ? timeless(JSON.parse(text)) : text })
    }
    // Each new id's own answer too.
    const page = (out[1]!.body as { data?: Array<{ id: string | number }> }).data ?? []
    expect(page.length).toBeGreaterThan(0)
    for (const p of page.slice(0, 5)) {
      const res = await t.request(`/api/v2/photos/${p.id}`)
      out.push({ path: `/api/v2/photos/${p.id}`, status: res.status, body: timeless(await res.json()) })
    }
    return out
  } finally {
    await t.close()
  }
}

/** The updated index equals the clean build: manifest version and files, rows, sources, and API answers. */
async function expectSameIndex(clean: string, paths = queries(12, 3), index = mainIndex): Promise<Store> {
  const a = readManifest(join(index, 'current'))!
  const b = readManifest(join(clean, 'current'))!
  expect(a.rows).toEqual(b.rows)
  expect(a.sources).toEqual(b.sources)
  expect(a.page_store).toEqual(b.page_store)
  expect(a.files).toEqual(b.files)
  expect(a.version).toBe(b.version)
  const [sa, sb] = await Promise.all([loadStore(index), loadStore(clean)])
  expect(Array.from(sa.photos.id)).toEqual(Array.from(sb.photos.id))
  const [qa, qb] = await Promise.all([answers(sa, paths), answers(sb, paths)])
  for (const q of qa) expect({ path: q.path, status: q.status, body: q.status === 200 ? "" : q.body }).toEqual({ path: q.path, status: 200, body: "" })
  expect(qa).toEqual(qb)
  return sa
}

beforeAll(async () => {
  mkdirSync(empty)
  await run(['index-builder/fetch/cli.ts', '--all', '--rover', 'perseverance', '--feed-dir', feeds, '--base-url', origin.url, '--rate', '1000', '--json'])
  await run(['index-builder/cli.ts', '--out', index, '--page-store', feeds])
}, 120_000)

afterAll(() => {
  origin.stop()
  rmSync(work, { recursive: true, force: true })
})

test('one new sol upstream: update merges it (reading that sol and the sols the clock fit moves), and the index equals a clean full build of the same pages', async () => {
  const before = await loadStore(index)
  const added = origin.addSol()
  const started = Date.now()
  const upd = await update(1)
  expect(upd.fetch[0]).toMatchObject({ solMin: added, solMax: added })
  expect(upd.build).toMatchObject({ ran: true, merged: true, code: 0 })
  expect(upd.build.output).toContain(`sols merged: perseverance/${added}`)
  const merged = await expectSameIndex(await cleanBuild('clean-1'))
  expect(merged.manifest.rows.photos).toBe(13 * 150)
  // The ledger: the new sol's photos arrived with this update, every other photo keeps its time.
  const oldAdded = new Map<number, number>()
  for (let r = 0; r < before.photos.length; r++) oldAdded.set(before.photos.id[r]!, before.photos.added_at![r]!)
  let fresh = 0
  for (let r = 0; r < merged.photos.length; r++) {
    const id = merged.photos.id[r]!
    if (merged.photos.sol[r] === added) {
      fresh++
      expect(merged.photos.added_at![r]!).toBeGreaterThanOrEqual(started - 1000)
    } else expect(merged.photos.added_at![r]).toBe(oldAdded.get(id)!)
  }
  expect(fresh).toBe(150)
}, 240_000)

test('a published sol revised upstream (a record withdrawn, one edited): update merges the replaced page, and the index equals a clean full build of the same pages', async () => {
  origin.revise(3)
  const upd = await update(origin.latest + 1)
  expect(upd.build).toMatchObject({ ran: true, merged: true, code: 0 })
  expect(upd.build.output).toContain('sols merged: perseverance/3')
  const merged = await expectSameIndex(await cleanBuild('clean-2'))
  expect(merged.manifest.rows.photos).toBe(13 * 150 - 1)
}, 240_000)

test('a new sol and a source file added beside the page store: the merge is refused (it reads no other source again), the update says why and runs the full build, and the index equals a clean full build', async () => {
  const images = perseveranceRecords().slice(0, 3).map((r) => moveRecord(r, 400))
  const added = origin.addSol()
  writeFileSync(join(empty, 'extra-page.json'), JSON.stringify({ images, per_page: '100', total_results: 3, type: 'mars2020', page: 0, mission: 'mars2020', total_images: 3 }))
  const upd = await update(1)
  expect(upd.build).toMatchObject({ ran: true, merged: false, code: 0 })
  expect(upd.build.fallback).toContain('sources besides the page store changed')
  const merged = await expectSameIndex(await cleanBuild('clean-sources'), queries(added, 3))
  expect(merged.manifest.rows.photos).toBe(14 * 150 - 1 + 3)
}, 240_000)

test('a sol folder removed from the page store: the merge is refused, the update says why and runs the full build, and the index equals a clean full build', async () => {
  rmSync(join(feeds, 'perseverance', 'sol-00000'), { recursive: true })
  const upd = await update(1)
  expect(upd.build).toMatchObject({ ran: true, merged: false, code: 0 })
  expect(upd.build.fallback).toContain('removed')
  await expectSameIndex(await cleanBuild('clean-3'))
}, 240_000)

test('an index whose raw JSON is in raw.bin (past BUILD_RAW_INLINE_BYTES): update merges a new sol, writing raw.bin from the published one and the new rows, and the index (raw.bin included) equals a clean full build', async () => {
  extraEnv = { BUILD_RAW_INLINE_BYTES: '1000' }
  try {
    // First the published index itself moves its raw JSON to raw.bin (a full build: the limit is not in the merge state).
    await run(['index-builder/cli.ts', '--out', index, '--page-store', feeds])
    expect(readManifest(join(index, 'current'))!.files['raw.bin']).toBeDefined()
    const added = origin.addSol()
    const upd = await update(1)
    expect(upd.build).toMatchObject({ ran: true, merged: true, code: 0 })
    const merged = await expectSameIndex(await cleanBuild('clean-raw'), queries(added, 3))
    expect(merged.manifest.files['raw.bin']).toBeDefined()
    // A revised sol (a record withdrawn, one edited) in the middle of raw.bin: merged too.
    origin.revise(5)
    const revised = await update(origin.latest + 1)
    expect(revised.build).toMatchObject({ ran: true, merged: true, code: 0 })
    await expectSameIndex(await cleanBuild('clean-raw-revised'), queries(added, 3))
  } finally {
    extraEnv = {}
  }
}, 240_000)

test('an index whose raw JSON is inline, merged with a limit it now passes: the merge writes raw.bin as a clean full build does, and back under the limit it is inline again', async () => {
  await run(['index-builder/cli.ts', '--out', index, '--page-store', feeds])
  expect(readManifest(join(index, 'current'))!.files['raw.bin']).toBeUndefined()
  const bytes = (await loadStore(index)).photos.raw.data.length
  // Past the published index's bytes, under those with one more sol: the merge crosses the limit.
  extraEnv = { BUILD_RAW_INLINE_BYTES: String(bytes + 1000) }
  try {
    const added = origin.addSol()
    expect((await update(1)).build).toMatchObject({ ran: true, merged: true, code: 0 })
    expect((await expectSameIndex(await cleanBuild('clean-cross'), queries(added, 3))).manifest.files['raw.bin']).toBeDefined()
    // A higher limit: the merge reads raw.bin and writes the texts inline again, as a clean build does.
    extraEnv = { BUILD_RAW_INLINE_BYTES: String(bytes * 4) }
    const next = origin.addSol()
    expect((await update(1)).build).toMatchObject({ ran: true, merged: true, code: 0 })
    expect((await expectSameIndex(await cleanBuild('clean-inline'), queries(next, 3))).manifest.files['raw.bin']).toBeUndefined()
  } finally {
    extraEnv = {}
  }
}, 240_000)

/**
 * A page store whose records are clock labels (their stated UTC agrees with the clock count in
 * their image id, as NASA's feeds do; the stand-in feed's moved times do not), with a drift
 * that differs per sol, and every fourth record without its Mars time (derived through the clock
 * fit's LMST correction, so its row moves when the fit does).
 */
const labelled = join(work, 'labelled-feeds')
const labelledSources = join(work, 'labelled-sources')
const labelledIndex = join(work, 'labelled-index')
const clock = sclkToUtcFor(BUILT_IN_CALIBRATION.perseverance)

function writeLabelledSol(sol: number, revised = false): void {
  const records = origin.solRecords(sol).slice(0, revised ? 59 : 60)
  records.forEach((r, j) => {
    const sclk = parseImageId('perseverance', splitProductVersion(r.imageid as string).id).sclk!
    r.date_taken_utc = new Date(clock(sclk)! + 1000 * ((sol * 7) % 23) + 40 * j + (revised ? 5000 : 0)).toISOString().replace(/\.\d+Z$/, 'Z')
    if (j % 4 === 3) delete r.date_taken_mars
  })
  const dir = join(labelled, 'perseverance', `sol-${String(sol).padStart(5, '0')}`)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'page-000.json'), JSON.stringify({ images: records, per_page: '100', total_results: records.length, type: 'mars2020', page: 0, mission: 'mars2020', total_images: records.length }))
}

async function mergeLabelled() {
  const m = await mergeUpdate({ out: labelledIndex, pageStore: labelled, sources: [labelledSources] })
  if (!m.merged) throw new Error(`merge refused: ${m.why}`)
  return m
}

async function cleanLabelled(name: string): Promise<string> {
  const out = join(work, name)
  await run(['index-builder/cli.ts', '--out', out, '--page-store', labelled], labelledSources)
  return out
}

test('clock-labelled pages: a new sol moves the clock fit under the sols before it; the merge reads those again, and the index equals a clean full build', async () => {
  mkdirSync(labelledSources)
  for (let sol = 0; sol < 8; sol++) writeLabelledSol(sol)
  await run(['index-builder/cli.ts', '--out', labelledIndex, '--page-store', labelled], labelledSources)
  writeLabelledSol(8)
  const m = await mergeLabelled()
  expect(m.sols).toEqual(['perseverance/8'])
  expect(m.reread).toContain('perseverance/7')
  expect(m.reread).not.toContain('perseverance/2')
  await expectSameIndex(await cleanLabelled('labelled-clean-1'), queries(8, 7), labelledIndex)
}, 240_000)

test('clock-labelled pages: a sol in the middle revised (a record withdrawn, times moved) moves the fit between its neighbours only; the merge reads them again, and the index equals a clean full build', async () => {
  writeLabelledSol(4, true)
  const m = await mergeLabelled()
  expect(m.sols).toEqual(['perseverance/4'])
  expect(m.reread).toContain('perseverance/3')
  expect(m.reread).toContain('perseverance/5')
  expect(m.reread).not.toContain('perseverance/0')
  expect(m.reread).not.toContain('perseverance/8')
  await expectSameIndex(await cleanLabelled('labelled-clean-2'), queries(8, 4), labelledIndex)
}, 240_000)

test('a new record whose assigned id a published photo holds, its key sorting first: the merge gives it that id and moves the photo to the next free one, as a full build does, and the index equals a clean full build', async () => {
  const before = await loadStore(index)
  const text = new TextDecoder()
  const nasaAt = (s: Store, r: number) => text.decode(s.photos.nasa_id.data.subarray(s.photos.nasa_id.offsets[r]!, s.photos.nasa_id.offsets[r + 1]!))
  // The key each published photo's id was assigned by: its image id as the feed states it (assign-ids.ts).
  const keyOf = new Map<string, string>()
  for (const sol of readdirSync(join(feeds, 'perseverance'))) {
    for (const page of readdirSync(join(feeds, 'perseverance', sol))) {
      for (const rec of (JSON.parse(readFileSync(join(feeds, 'perseverance', sol, page), 'utf8')) as { images: Array<{ imageid: string }> }).images) keyOf.set(splitProductVersion(rec.imageid).id, rec.imageid)
    }
  }
  const holder = new Map<number, { row: number; key: string }>()
  for (let r = 0; r < before.photos.length; r++) holder.set(before.photos.id[r]!, { row: r, key: keyOf.get(nasaAt(before, r))! })
  // A real record moved to a sol of its own, the last characters of its image id varied until its
  // hash lands on the id of a photo whose key sorts after it (about one try in a million; the search is the same on every run).
  const sol = origin.latest + 20
  // The record whose image id sorts first: most published keys sort after it.
  const first = [...perseveranceRecords()].sort((a, b) => ((a.imageid as string) < (b.imageid as string) ? -1 : 1))[0]!
  const rec = moveRecord(first, sol)
  const oldId = rec.imageid as string
  const v = splitProductVersion(oldId)
  const stem = v.id.slice(0, -5)
  const ALPHA = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'
  let found: { imageid: string; id: number } | undefined
  // Four letters or digits, then a letter (the character before a product version is one).
  for (let t = 0; t < 26 * 36 ** 4 && !found; t++) {
    let tail = ''
    for (let x = t % 36 ** 4, i = 0; i < 4; i++, x = Math.floor(x / 36)) tail += ALPHA[x % 36]
    tail += ALPHA[Math.floor(t / 36 ** 4)]
    const imageid = `${stem}${tail}${oldId.slice(v.id.length)}`
    const h = holder.get(assignedIdFor(imageid))
    if (h && h.key > imageid && !keyOf.has(splitProductVersion(imageid).id)) found = { imageid, id: assignedIdFor(imageid) }
  }
  expect(found).toBeDefined()
  const moved = holder.get(found!.id)!
  const movedNasaId = nasaAt(before, moved.row)
  const crafted = JSON.parse(JSON.stringify(rec).replaceAll(oldId, found!.imageid)) as Record<string, unknown>
  const dir = join(feeds, 'perseverance', `sol-${String(sol).padStart(5, '0')}`)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'page-000.json'), JSON.stringify({ images: [crafted], per_page: '100', total_results: 1, type: 'mars2020', page: 0, mission: 'mars2020', total_images: 1 }))
  const m = await mergeUpdate({ out: index, pageStore: feeds, sources: [empty] })
  if (!m.merged) throw new Error(`merge refused: ${m.why}`)
  expect(m.sols).toEqual([`perseverance/${sol}`])
  const merged = await expectSameIndex(await cleanBuild('clean-moved-id'), queries(sol, 3))
  // The published photo gave its id up to the new record and holds another one now.
  const rowOf = (s: Store, nasaId: string) => Array.from({ length: s.photos.length }, (_, r) => r).find((r) => nasaAt(s, r) === nasaId)!
  expect(merged.photos.id[rowOf(merged, splitProductVersion(found!.imageid).id)]).toBe(found!.id)
  expect(merged.photos.id[rowOf(merged, movedNasaId)]).not.toBe(found!.id)
}, 240_000)
