import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { makeTestApp, type TestApp } from '../setup/test-app'

/**
 * Every parameter's length is bounded before any pattern runs, and the patterns are linear. A
 * 15,000-digit `aspect_ratio_min` once took ~0.4 s to be refused by a backtracking pattern, with
 * time growing faster than length: eight such requests stalled /health for seconds. Time is not
 * asserted here (the machine is shared); what is asserted is that such a value is refused for its
 * length, before any pattern could read it, and that values of ordinary length still parse.
 */
const DECIMAL = ['aspect_ratio_min', 'aspect_ratio_max', 'mast_elevation_min', 'mast_elevation_max', 'mast_azimuth_min', 'mast_azimuth_max']
const INTEGER = ['sol', 'sol_min', 'sol_max', 'site', 'drive', 'min_width', 'max_height', 'page']
const DATES = ['earth_date', 'date_min', 'date_max']

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(() => t.close())

async function errorsOf(path: string): Promise<Array<{ parameter: string; message: string }>> {
  const r = await t.request(path)
  expect(r.status).toBe(400)
  return ((await r.json()) as { errors: Array<{ parameter: string; message: string }> }).errors
}

describe('over-long scalar values are refused for their length, before any pattern', () => {
  for (const name of [...DECIMAL, ...INTEGER, ...DATES]) {
    test(`${name} with 15,000 digits is a 400 naming ${name} as too long`, async () => {
      const errs = await errorsOf(`/api/v2/photos?${name}=${'1'.repeat(15_000)}x`)
      const mine = errs.find((e) => e.parameter === name)
      expect(mine?.message).toContain('too long')
    })
  }

  test('aspect_ratio with 15,000 digits is refused', async () => {
    const errs = await errorsOf(`/api/v2/photos?aspect_ratio=${'1'.repeat(15_000)}:`)
    expect(errs.some((e) => e.parameter === 'aspect_ratio')).toBe(true)
  })

  test('eight over-long requests at once are all refused, and /health answers among them', async () => {
    const long = '9'.repeat(15_000) + 'x'
    const slow = DECIMAL.concat(DECIMAL.slice(0, 2)).map((n) => t.request(`/api/v2/photos?${n}=${long}`))
    const health = t.anonymous('/health')
    const all = await Promise.all([...slow, health])
    expect(all.slice(0, 8).map((r) => r.status)).toEqual(Array(8).fill(400))
    expect(all[8]!.status).toBe(200)
  })
})

describe('ordinary values still parse', () => {
  test('decimals with sign, fraction, bare fraction and exponent are accepted; near-misses are refused', async () => {
    for (const v of ['1', '1.5', '0.25', '.5', '1.', '2e-1', '+3E0']) expect((await t.request(`/api/v2/photos?aspect_ratio_min=${encodeURIComponent(v)}&per_page=1`)).status).toBe(200)
    expect((await t.request('/api/v2/photos?mast_elevation_min=-0.25&per_page=1')).status).toBe(200)
    for (const v of ['1..5', '1e', 'e1', '--1', '1.5.', '0x10']) {
      const errs = await errorsOf(`/api/v2/photos?aspect_ratio_min=${encodeURIComponent(v)}`)
      expect(errs[0]!.message).toContain('must be a number')
    }
  })
})
