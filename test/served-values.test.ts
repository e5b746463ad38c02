/**
 * What the real index serves is what its fields say: every mast azimuth in [0, 360) and elevation
 * in [-90, 90] (the synthetic catalogue: synthetic.test.ts), every image URL http(s); JSON answers,
 * errors included, carry `X-Content-Type-Options: nosniff`; stats percentages by largest remainder.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { formatPercentUnits, percentageUnits } from '../src/query/stats/percentages'
import { makeTestApp, testStore, type TestApp } from './setup/test-app'
import { plainPhotos } from './support/brute-force'

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(() => t.close())

describe('values in the real index', () => {
  test('every mast azimuth is in [0, 360) and every elevation in [-90, 90]; thousands of photos have them', async () => {
    const photos = plainPhotos(await testStore())
    const withAngles = photos.filter((p) => p.mast_azimuth !== null)
    expect(withAngles.length).toBeGreaterThan(2000)
    for (const p of withAngles) {
      expect(p.mast_azimuth!).toBeGreaterThanOrEqual(0)
      expect(p.mast_azimuth!).toBeLessThan(360)
      expect(Math.abs(p.mast_elevation!)).toBeLessThanOrEqual(90)
    }
  })

  test('every served image URL is absolute http(s) without whitespace', async () => {
    for (const rover of ['curiosity', 'perseverance', 'opportunity', 'spirit']) {
      const body = (await (await t.request(`/api/v2/photos?rovers=${rover}&per_page=100`)).json()) as any
      for (const p of body.data) for (const url of Object.values(p.attributes.images ?? {})) expect(url as string).toMatch(/^https?:\/\/\S+$/)
    }
  })
})

describe('X-Content-Type-Options', () => {
  test('nosniff on a JSON answer and on a problem document', async () => {
    const ok = await t.request('/api/v2/rovers')
    expect(ok.status).toBe(200)
    expect(ok.headers.get('x-content-type-options')).toBe('nosniff')
    const bad = await t.request('/api/v2/photos?sol=-1')
    expect(bad.status).toBe(400)
    expect(bad.headers.get('x-content-type-options')).toBe('nosniff')
  })
})

describe('percentages by largest remainder', () => {
  test('3,000 groups of one photo and one of a million: the sum is exactly 100, no group shows 0', () => {
    const counts = [1_000_000, ...new Array(3000).fill(1)]
    const u = percentageUnits(counts)
    expect(u.reduce((a, b) => a + b, 0)).toBe(1_000_000)
    expect(Math.min(...u)).toBe(1)
    expect(formatPercentUnits(u[1]!)).toBe('0.0001')
  })

  test('thirds: 33.3334 + 33.3333 + 33.3333, ties to the earlier group; formatting drops trailing zeros', () => {
    expect([...percentageUnits([1, 1, 1])].map(formatPercentUnits)).toEqual(['33.3334', '33.3333', '33.3333'])
    expect([...percentageUnits([1, 1])].map(formatPercentUnits)).toEqual(['50', '50'])
    expect(formatPercentUnits(125_000)).toBe('12.5')
    expect([...percentageUnits([0, 5])]).toEqual([0, 1_000_000])
  })
})
