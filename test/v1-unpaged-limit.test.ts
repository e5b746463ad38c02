import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { buildIndex } from '../index-builder/build-index'
import { loadStore } from '../src/store/load-store'
import { makeTestApp, type TestApp } from './setup/test-app'
import { MAX_UNPAGED } from '../src/v1/v1-photos'

/**
 * The one v1 rule no real day reaches (the largest has 3,702 photos): a photos request without
 * `page` over more than 10,000 photos is a 400 asking for `page` (decisions.md, v1 layer). The
 * index is built by the real builder from a v1 answer made of Spirit's real sol-1 photo repeated
 * under 10,001 distinct spacecraft clocks (one day, one camera).
 */
const RAW = join(import.meta.dir, '../../shared/data/raw')
let dir: string
let t: TestApp

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mv-v1-limit-'))
  const real = JSON.parse(gunzipSync(readFileSync(join(RAW, 'elbi3__Mars-Rover-Photo-Journal/spiritSol1.json.gz'))).toString('utf8')).photos[0]
  const photos = Array.from({ length: MAX_UNPAGED + 1 }, (_, i) => ({
    ...real,
    id: 5_000_000 + i,
    // 2F126468064EDN… -> a distinct SCLK per photo, so each is its own NASA image id.
    img_src: real.img_src.replace('2F126468064', `2F${String(126_400_000 + i).padStart(9, '0')}`),
  }))
  writeFileSync(join(dir, 'big-day.json'), JSON.stringify({ photos }))
  const built = await buildIndex({ out: join(dir, 'index'), sources: [join(dir, 'big-day.json')] })
  expect(built.manifest.rows.photos).toBe(MAX_UNPAGED + 1)
  t = await makeTestApp({ store: await loadStore(join(dir, 'index')) })
}, 60_000)

afterAll(async () => {
  await t?.close()
  rmSync(dir, { recursive: true, force: true })
})

test('a day of 10,001 photos without page is a 400 asking for page; with page it answers 25, the last page the remainder', async () => {
  const r = await t.request('/api/v1/rovers/spirit/photos?sol=1')
  expect(r.status).toBe(400)
  const body = (await r.json()) as any
  expect(body.type).toBe('/errors/validation-error')
  expect(body.invalid_params.map((e: any) => e.parameter)).toEqual(['page'])
  expect(body.errors).toMatch(/page/)
  expect(body.invalid_params[0].message).toContain('10001')
  const latest = await t.request('/api/v1/rovers/spirit/latest_photos')
  expect(latest.status).toBe(400)
  const first = (await (await t.request('/api/v1/rovers/spirit/photos?sol=1&page=1')).json()) as any
  expect(first.photos.map((p: any) => p.id)).toEqual(Array.from({ length: 25 }, (_, i) => 5_000_000 + i))
  const last = (await (await t.request(`/api/v1/rovers/spirit/photos?sol=1&page=${Math.ceil((MAX_UNPAGED + 1) / 25)}`)).json()) as any
  expect(last.photos.map((p: any) => p.id)).toEqual([5_000_000 + MAX_UNPAGED])
})
