import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { makeTestApp, type TestApp } from './setup/test-app'
import { buildIndex } from '../index-builder/build-index'
import { loadStore } from '../src/store/load-store'
import { ROVER_SLUGS } from '../src/catalog/rovers'
import type { Store } from '../src/store/store'
import { FormatRegistry, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { listOf, PanoramaSchema, singleOf } from '../src/resources/resource-schemas'

const json = (r: Response): Promise<any> => r.json()

/** Every answer is checked against the schema the OpenAPI document publishes for it. */
for (const [name, check] of [['date', (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v)], ['uri', (v: string) => /^https?:\/\/\S+$/.test(v)], ['date-time', (v: string) => !Number.isNaN(Date.parse(v))]] as const)
  if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check)
function conforms(schema: TSchema, body: unknown): void {
  expect([...Value.Errors(schema, body)].map((e) => `${e.path}: ${e.message}`)).toEqual([])
}

/**
 * GET /api/v2/panoramas and /panoramas/{id}, exercised on a small synthetic catalogue built here
 * (index-builder, --synthetic --scale 0.01), whose mast sweeps the builder detects. The real
 * panoramas (Perseverance sol 2, Curiosity VO sequences): test/real-panoramas.test.ts.
 * Detection itself on hand-made sequences: test/panorama-detection.test.ts.
 */
const scratch = mkdtempSync(join(tmpdir(), 'panoramas-test-'))
let syn: TestApp
let store: Store
let listed: any[]

async function all(app: TestApp, query: string): Promise<any[]> {
  const out: any[] = []
  for (let page = 1; ; page++) {
    const res = await app.request(`/api/v2/panoramas?per_page=100&page=${page}${query ? '&' + query : ''}`)
    expect(res.status).toBe(200)
    const body = await json(res)
    conforms(listOf(PanoramaSchema), body)
    out.push(...body.data)
    if (!body.links.next) {
      expect(out.length).toBe(body.meta.total_count)
      return out
    }
  }
}

/** The smallest arc holding every azimuth: for each start, the farthest clockwise neighbour. */
function smallestArc(azimuths: number[]): number {
  const norm = azimuths.map((a) => ((a % 360) + 360) % 360)
  return Math.min(...norm.map((s) => Math.max(...norm.map((a) => (a - s + 360) % 360))))
}

beforeAll(async () => {
  await buildIndex({ out: scratch, synthetic: { seed: 4, scale: 0.01 } })
  store = await loadStore(scratch)
  syn = await makeTestApp({ store })
  listed = await all(syn, '')
}, 120_000)
afterAll(async () => {
  await syn.close()
  rmSync(scratch, { recursive: true, force: true })
})

describe('GET /api/v2/panoramas on the synthetic catalogue', () => {
  test('lists every detected panorama, of every rover and from the first sols on (no default 500-sol window)', () => {
    expect(listed.length).toBe(store.panoramas.length)
    expect(listed.length).toBeGreaterThan(100)
    const rovers = new Set(listed.map((p) => p.attributes.rover))
    expect(rovers.has('curiosity') && rovers.has('perseverance')).toBe(true)
    const maxSol = Math.max(...listed.filter((p) => p.attributes.rover === 'curiosity').map((p) => p.attributes.sol))
    expect(listed.some((p) => p.attributes.rover === 'curiosity' && p.attributes.sol < maxSol - 500)).toBe(true)
  })

  test('is ordered by rover, sol, n with n counting 1, 2, 3... within each (rover, sol), and ids pano_{slug}_{sol}_{n}', () => {
    let prev: any
    for (const p of listed) {
      const [, slug, sol, n] = /^pano_([a-z]+)_(\d+)_(\d+)$/.exec(p.id)!
      expect([slug, Number(sol)]).toEqual([p.attributes.rover, p.attributes.sol])
      const code = ROVER_SLUGS.indexOf(p.attributes.rover)
      const same = prev && prev.code === code && prev.sol === p.attributes.sol
      expect(Number(n)).toBe(same ? prev.n + 1 : 1)
      if (prev && !same) expect(code > prev.code || (code === prev.code && p.attributes.sol > prev.sol)).toBe(true)
      prev = { code, sol: p.attributes.sol, n: Number(n) }
    }
  })

  test('every listed id resolves by id to the same record, as {data, links.self}', async () => {
    for (const p of listed) {
      const res = await syn.request(`/api/v2/panoramas/${p.id}`)
      expect(res.status).toBe(200)
      const body = await json(res)
      conforms(singleOf(PanoramaSchema), body)
      expect(body).toEqual({ data: p, links: { self: `http://localhost/api/v2/panoramas/${p.id}` } })
    }
  })

  test('each panorama`s photos are one camera at one place on one sol, in clock order within 300 s steps and 15° of the first elevation, covering what the record says', () => {
    const p = store.photos
    const rowOf = new Map<number, number>()
    for (let row = 0; row < p.length; row++) rowOf.set(p.id[row]!, row)
    for (const pano of listed) {
      const a = pano.attributes
      const rows = a.photo_ids.map((id: number) => rowOf.get(id)!)
      expect(rows.length).toBe(a.total_photos)
      expect(a.total_photos).toBeGreaterThanOrEqual(3)
      for (const row of rows) {
        expect(ROVER_SLUGS[p.rover[row]!]).toBe(a.rover)
        expect(p.sol[row]).toBe(a.sol)
        expect(p.camera.dict[p.camera.codes[row]!]).toBe(a.camera)
        expect([p.site[row], p.drive[row]]).toEqual([a.location.site, a.location.drive])
        expect(Math.abs(p.mast_elevation[row]! - p.mast_elevation[rows[0]]!)).toBeLessThanOrEqual(15.0001)
      }
      for (let i = 1; i < rows.length; i++) {
        const gap = p.sclk[rows[i]]! - p.sclk[rows[i - 1]]!
        expect(gap >= 0 && gap <= 300.0001).toBe(true)
      }
      const az = rows.map((row: number) => p.mast_azimuth[row]!)
      expect(a.coverage_degrees).toBeCloseTo(smallestArc(az), 2)
      expect(a.coverage_degrees).toBeGreaterThanOrEqual(30 - 1e-3)
      const halfEven = (v: number) => (Math.abs(v % 1) === 0.5 && Math.round(v) % 2 !== 0 ? Math.round(v) - 1 : Math.round(v))
      const positions = new Set(az.map((v: number) => ((halfEven(v) % 360) + 360) % 360))
      expect(a.unique_positions).toBe(positions.size)
      expect(a.avg_elevation).toBeCloseTo(rows.reduce((s: number, row: number) => s + p.mast_elevation[row]!, 0) / rows.length, 2)
      expect(['full', 'wide', 'half', 'partial']).toContain(a.quality)
    }
  })

  test('rovers, sol_min, sol_max and min_photos narrow the full list in order', async () => {
    const sols = listed.map((p) => p.attributes.sol).sort((x, y) => x - y)
    const mid = sols[Math.floor(sols.length / 2)]
    const sizes = listed.map((p) => p.attributes.total_photos).sort((x, y) => x - y)
    const big = sizes[Math.floor(sizes.length * 0.8)]
    const cases: Array<[string, (p: any) => boolean]> = [
      ['rovers=PERSEVERANCE', (p) => p.attributes.rover === 'perseverance'],
      ['rovers=spirit,curiosity', (p) => p.attributes.rover === 'spirit' || p.attributes.rover === 'curiosity'],
      [`sol_min=${mid}`, (p) => p.attributes.sol >= mid],
      [`sol_max=${mid}`, (p) => p.attributes.sol <= mid],
      [`sol_min=${mid}&sol_max=${mid}`, (p) => p.attributes.sol === mid],
      [`min_photos=${big}`, (p) => p.attributes.total_photos >= big],
      [`rovers=curiosity&sol_min=${mid}&min_photos=${big}`, (p) => p.attributes.rover === 'curiosity' && p.attributes.sol >= mid && p.attributes.total_photos >= big],
    ]
    for (const [query, keep] of cases) {
      const want = listed.filter(keep)
      expect(want.length).toBeGreaterThan(0)
      expect({ query, got: await all(syn, query) }).toEqual({ query, got: want })
    }
    const none = await json(await syn.request('/api/v2/panoramas?min_photos=2147483647'))
    expect([none.meta.total_count, none.data.length]).toEqual([0, 0])
  })

  test('links.photos is an absolute photo query whose answer holds every photo of the panorama', async () => {
    const pano = listed.find((p) => p.attributes.rover === 'perseverance')
    expect(pano.links.photos.startsWith('http://localhost/api/v2/photos?')).toBe(true)
    const res = await syn.request(pano.links.photos.replace('http://localhost', '') + '&per_page=100')
    expect(res.status).toBe(200)
    const ids = new Set((await json(res)).data.map((p: any) => p.id))
    for (const id of pano.attributes.photo_ids) expect(ids.has(id)).toBe(true)
  })
})

describe('GET /api/v2/panoramas errors', () => {
  test('invalid parameters are one 400 naming each of them', async () => {
    const res = await syn.request('/api/v2/panoramas?rovers=voyager&sol_min=1.5&min_photos=lots&per_page=0')
    expect(res.status).toBe(400)
    const body = await json(res)
    expect(body.type).toBe('/errors/validation-error')
    expect(body.errors.map((e: any) => e.parameter).sort()).toEqual(['min_photos', 'per_page', 'rovers', 'sol_min'])
    const range = await json(await syn.request('/api/v2/panoramas?sol_min=10&sol_max=9'))
    expect(range.errors.map((e: any) => e.parameter)).toEqual(['sol_min'])
  })

  test('a malformed or unknown panorama id is 404', async () => {
    const first = listed[0]
    const { rover, sol } = first.attributes
    const count = listed.filter((p) => p.attributes.rover === rover && p.attributes.sol === sol).length
    for (const id of [`pano_${rover}_${sol}_0`, `pano_${rover}_${sol}_${count + 1}`, `pano_${rover}_${sol}`, `pano_pluto_${sol}_1`, `${rover}_${sol}_1`, `pano_${rover}_0${sol}_1`, 'pano_curiosity_99999999999_1', '%']) {
      const res = await syn.request(`/api/v2/panoramas/${id}`)
      expect({ id, status: res.status }).toEqual({ id, status: 404 })
      expect((await json(res)).type).toBe('/errors/not-found')
    }
    expect((await syn.request(`/api/v2/panoramas/${first.id.toUpperCase()}`)).status).toBe(200)
  })
})
