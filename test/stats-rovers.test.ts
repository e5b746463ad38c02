import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { buildIndex } from '../index-builder/build-index'
import { loadStore } from '../src/store/load-store'
import type { Store } from '../src/store/store'
import { photoStats } from '../src/query/stats/photo-stats'
import { roverStats } from '../src/query/stats/rover-stats'
import { plainPhotos, type PlainPhoto } from './support/brute-force'
import { makeTestApp, testStore } from './setup/test-app'

/**
 * The statistics take their rovers from the catalogue loaded in the store (store.rovers, the
 * rover column's dictionary), not from a fixed count: an index holding one rover's photos
 * answers with that rover alone, and a store whose catalogue lists a fifth rover counts it in
 * its own group, by the cube and by the row scan alike, and in the per-rover figures.
 */
const RAW = resolve(import.meta.dir, '../../shared/data/raw')
const SPIRIT = join(RAW, 'elbi3__Mars-Rover-Photo-Journal/spiritSol1.json.gz')
const scratch = mkdtempSync(join(tmpdir(), 'stats-rovers-test-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

interface Group { key: string; count: number; avg_per_sol?: number; earth_date?: string }
const groups = (text: string): Group[] => JSON.parse(text).data.groups

describe('an index built from one rover\'s records', () => {
  let spiritOnly: Store
  beforeAll(async () => {
    await buildIndex({ out: join(scratch, 'spirit'), sources: [SPIRIT] })
    spiritOnly = await loadStore(join(scratch, 'spirit'))
  })

  test('GET /photos/stats groups by rover and camera over Spirit alone: no group for the rovers without photos', async () => {
    const t = await makeTestApp({ store: spiritOnly })
    try {
      const all = plainPhotos(spiritOnly)
      expect(new Set(all.map((p) => p.rover))).toEqual(new Set(['spirit']))
      const byRover = await (await t.request('/api/v2/photos/stats?group_by=rover')).json() as any
      expect(byRover.data.groups.map((g: Group) => [g.key, g.count])).toEqual([['spirit', all.length]])
      const byCamera = await (await t.request('/api/v2/photos/stats?group_by=camera')).json() as any
      const cameras = new Set(all.map((p) => p.camera))
      expect(byCamera.data.groups.map((g: Group) => g.key).sort()).toEqual([...cameras].sort())
    } finally {
      await t.close()
    }
  })
})

describe('a store whose catalogue lists a fifth rover', () => {
  const NEW = 'zhurong'
  let real: Store
  let fifth: Store
  let renamed: PlainPhoto[]
  beforeAll(async () => {
    real = await testStore()
    // Spirit's photos (code 3, the last) relabelled as code 4 under a new slug: the rows keep
    // their (rover, sol) order, so the access paths and the cube stay valid for this store.
    const spirit = real.rovers.indexOf('spirit')
    expect(spirit).toBe(real.rovers.length - 1)
    const rover = Uint8Array.from(real.photos.rover, (c) => (c === spirit ? real.rovers.length : c))
    fifth = { ...real, rovers: [...real.rovers, NEW], photos: { ...real.photos, rover } }
    renamed = plainPhotos(real).map((p) => (p.rover === 'spirit' ? { ...p, rover: NEW } : p))
  })

  for (const f of ['', 'sol_max=30', 'nasa_id=n', 'cameras=NAVCAM']) {
    test(`group_by=rover${f ? '&' + f : ''}: the new rover has its own group with its count and avg_per_sol, from the cube and the row scan alike`, () => {
      const params = new URLSearchParams(`group_by=rover&${f}`)
      const text = photoStats(fifth, params, 'http://x')
      expect(photoStats(fifth, params, 'http://x', true)).toBe(text)
      const want = renamed.filter((p) => (f === 'sol_max=30' ? p.sol !== null && p.sol <= 30 : f === 'nasa_id=n' ? p.nasa_id.toLowerCase().includes('n') : f === 'cameras=NAVCAM' ? p.camera === 'NAVCAM' : true))
      const got = groups(text)
      expect(got.reduce((a, g) => a + g.count, 0)).toBe(want.length)
      for (const slug of [...real.rovers.filter((r) => r !== 'spirit'), NEW]) {
        const mine = want.filter((p) => p.rover === slug)
        const g = got.find((x) => x.key === slug)
        if (mine.length === 0) expect(g).toBeUndefined()
        else expect([g?.count, g?.avg_per_sol]).toEqual([mine.length, Math.round((mine.length / new Set(mine.map((p) => p.sol)).size) * 10) / 10])
      }
      expect(got.some((g) => g.key === 'spirit')).toBe(false)
    })
  }

  test('the per-rover figures (rover and camera resources, v1 manifests) list five rovers, the new one with Spirit\'s figures', () => {
    const before = roverStats(real)
    const after = roverStats(fifth)
    expect(after.rovers.length).toBe(5)
    expect(after.rovers[4]).toEqual(before.rovers[3]!)
    expect(after.cameras[4]).toEqual(before.cameras[3]!)
    expect(after.rovers[3]).toEqual({ total: 0, maxSol: -1, maxDate: NaN })
  })
})
