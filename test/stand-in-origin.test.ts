import { afterAll, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readManifest } from '../index-builder/encode/manifest'
import { PERSEVERANCE } from '../index-builder/fetch/feed-spec'
import { validateFeedPage } from '../index-builder/fetch/validate-feed-page'
import { perseveranceRecords } from './support/feed-replay-server'
import { moveRecord, StandInOrigin } from './support/stand-in-origin'

/**
 * The stand-in origin the ingest bench mirrors (test/support/stand-in-origin.ts): real recorded
 * Perseverance records moved to other sols, with everything that names the sol or the time
 * changed consistently and every validated field kept valid; and, at small scale, the real path
 * end to end: mirror with --all, build from the page store, one new sol upstream, update — the
 * index after the update is the one a clean full build makes from the same pages.
 */
const ROOT = join(import.meta.dir, '..')
const work = mkdtempSync(join(tmpdir(), 'mv-stand-in-'))
const origin = new StandInOrigin({ sols: 12, perSol: 150 })
afterAll(() => {
  origin.stop()
  rmSync(work, { recursive: true, force: true })
})

test('a record moved to another sol names that sol in its id, URLs, title, caption and Mars time, with its clock and UTC times advanced by the sols between', () => {
  const rec = perseveranceRecords().find((r) => r.imageid === 'NRG_0002_0667131011_525ECM_N0010052AUT_04096_00_2I3J01')!
  const moved = moveRecord(rec, 1002)
  const seconds = 1000 * 88_775.244
  expect(moved.sol).toBe(1002)
  expect(moved.imageid).toBe(`NRG_1002_0${667131011 + Math.round(seconds)}_525ECM_N0010052AUT_04096_00_2I3J01`)
  expect((moved.extended as { sclk: string }).sclk).toBe(`${667131011 + Math.round(seconds)}.806`)
  expect(Date.parse(moved.date_taken_utc as string) - Date.parse(rec.date_taken_utc as string)).toBe(Math.round(seconds * 1000))
  expect(Date.parse(moved.date_received as string) - Date.parse(rec.date_received as string)).toBe(Math.round(seconds * 1000))
  expect(moved.date_taken_mars).toBe('Sol-01002M16:01:50.280')
  expect(moved.title).toBe('Mars Perseverance Sol 1002: Right Navigation Camera (Navcam)')
  expect(moved.caption).toContain(`acquired on Dec. 16, 2023 (Sol 1002)`)
  const text = JSON.stringify(moved)
  expect(text).not.toContain(rec.imageid as string)
  expect(text).not.toContain('/sol/00002/')
  expect((moved.image_files as Record<string, string>).full_res).toBe(`https://mars.nasa.gov/mars2020-raw-images/pub/ods/surface/sol/01002/ids/edr/browse/ncam/${moved.imageid}.png`)
})

test('every record of the stand-in feed passes the fetcher\'s validation for its sol, and no image id repeats', () => {
  const big = new StandInOrigin({ sols: 2000, perSol: 750 })
  try {
    const ids = new Set<string>()
    for (const sol of [0, 1, 2, 3, 4, 700, 1500, 1999]) {
      for (let page = 0; page < 8; page++) {
        const images = big.solRecords(sol, page * 100, page * 100 + 100)
        const v = validateFeedPage(JSON.stringify({ images, total_images: 750 }), PERSEVERANCE, sol)
        expect(v.rejected).toEqual([])
        for (const i of v.images) ids.add(i.id)
      }
    }
    expect(ids.size).toBe(8 * 750)
    expect(big.records).toBe(1_500_000)
  } finally {
    big.stop()
  }
}, 60_000)

test('mirror, build from the page store, one new sol upstream, update: the new sol is in the index, and the index equals a clean full build of the same pages', async () => {
  const feeds = join(work, 'feeds')
  const empty = join(work, 'no-sources')
  mkdirSync(empty)
  const env = { ...process.env, BUILD_SOURCE_DIRS: empty }
  const run = async (args: string[]) => {
    const p = Bun.spawn([process.execPath, ...args], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
    expect({ args, code, err: code === 0 ? '' : err }).toEqual({ args, code: 0, err: '' })
    return out
  }
  const mirror = JSON.parse(await run(['index-builder/fetch/cli.ts', '--all', '--rover', 'perseverance', '--feed-dir', feeds, '--base-url', origin.url, '--rate', '1000', '--json']))
  expect(mirror).toMatchObject({ solMin: 0, solMax: 11, images: { new: 12 * 150, rejected: 0 } })
  const index = join(work, 'index')
  await run(['index-builder/cli.ts', '--out', index, '--page-store', feeds])
  expect(readManifest(join(index, 'current'))!.rows.photos).toBe(12 * 150)

  const added = origin.addSol()
  const upd = JSON.parse(await run(['index-builder/fetch/update-cli.ts', '--since-sols', '1', '--rover', 'perseverance', '--feed-dir', feeds, '--index-dir', index, '--base-url', origin.url, '--rate', '1000', '--json']))
  expect(upd.fetch[0]).toMatchObject({ solMin: added, solMax: added, images: { new: 150 } })
  expect(upd.build).toMatchObject({ ran: true, code: 0 })
  const updated = readManifest(join(index, 'current'))!
  expect(updated.rows.photos).toBe(13 * 150)

  const clean = join(work, 'clean')
  await run(['index-builder/cli.ts', '--out', clean, '--page-store', feeds])
  const full = readManifest(join(clean, 'current'))!
  expect(updated.version).toBe(full.version)
  expect(updated.files).toEqual(full.files)
  expect(updated.page_store).toEqual(full.page_store)
}, 240_000)
