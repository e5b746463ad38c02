/**
 * v1 dated each sol once (decisions.md, v1 layer): the v1 manifest has one entry per sol, dated
 * with NASA's v1 earth_date of the sol where NASA's manifest states one, else the sol's earliest
 * date, and v1 `photos?earth_date=` answers those sols whole. v2 keeps earth_date as the UTC
 * date of capture, so a sol may span two v2 dates (Curiosity sol 102: 78 photos on 2012-11-18 and
 * 22 on 2012-11-19; NASA dates the sol 2012-11-18).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { makeTestApp, type TestApp } from './setup/test-app'

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(() => t.close())

async function json(path: string): Promise<any> {
  const res = await t.request(path)
  expect(res.status).toBe(200)
  return res.json()
}

describe('one v1 day per sol', () => {
  test('the v1 manifests list every sol once (Curiosity and Perseverance)', async () => {
    for (const rover of ['curiosity', 'perseverance', 'opportunity', 'spirit']) {
      const m = (await json(`/api/v1/manifests/${rover}`)).photo_manifest
      const sols = m.photos.map((p: { sol: number }) => p.sol)
      expect(new Set(sols).size).toBe(sols.length)
      expect(m.photos.reduce((a: number, p: { total_photos: number }) => a + p.total_photos, 0)).toBe(m.total_photos)
    }
  })

  test('Curiosity sol 102: one v1 entry of 100 photos dated 2012-11-18 (NASA\'s date), where v2 has 78 + 22 on two UTC dates', async () => {
    const m = (await json('/api/v1/manifests/curiosity')).photo_manifest
    const day = m.photos.filter((p: { sol: number }) => p.sol === 102)
    expect(day.length).toBe(1)
    expect([day[0].earth_date, day[0].total_photos]).toEqual(['2012-11-18', 100])
    const v2 = await json('/api/v2/photos?rovers=curiosity&sol=102&per_page=100')
    const byDate: Record<string, number> = {}
    for (const p of v2.data) byDate[p.attributes.earth_date] = (byDate[p.attributes.earth_date] ?? 0) + 1
    expect(byDate).toEqual({ '2012-11-18': 78, '2012-11-19': 22 })
  })

  test('v1 photos?earth_date=2012-11-18 answers all 100 photos of sol 102, each dated 2012-11-18; 2012-11-19 answers none of them', async () => {
    const d = (await json('/api/v1/rovers/curiosity/photos?earth_date=2012-11-18')).photos
    expect(d.length).toBe(100)
    expect(new Set(d.map((p: any) => `${p.sol}/${p.earth_date}`))).toEqual(new Set(['102/2012-11-18']))
    const bySol = (await json('/api/v1/rovers/curiosity/photos?sol=102')).photos
    expect(bySol.map((p: any) => p.id)).toEqual(d.map((p: any) => p.id))
    const next = (await json('/api/v1/rovers/curiosity/photos?earth_date=2012-11-19')).photos
    expect(next.filter((p: any) => p.sol === 102)).toEqual([])
  })

  test('Perseverance sol 2: one v1 entry of 1,036 photos dated 2021-02-20 (from the clock, not the feed\'s stated 2021-02-21 … 24)', async () => {
    const m = (await json('/api/v1/manifests/perseverance')).photo_manifest
    const day = m.photos.filter((p: { sol: number }) => p.sol === 2)
    expect(day.map((p: any) => [p.earth_date, p.total_photos])).toEqual([['2021-02-20', 1036]])
    const d = (await json('/api/v1/rovers/perseverance/photos?earth_date=2021-02-20')).photos
    expect(d.length).toBe(1036)
    const v2 = await json('/api/v2/photos?rovers=perseverance&sol=2&date_min=2021-02-21&per_page=1')
    expect(v2.meta.total_count).toBe(0)
  })

  test('sol 2789 (SOURCES.md §2.15): v1 and v2 date every photo 2020-06-10, the v1 manifest\'s date, whatever the file stated', async () => {
    const v1 = (await json('/api/v1/rovers/curiosity/photos?earth_date=2020-06-10')).photos
    expect(v1.length).toBe(276)
    const later = await json('/api/v2/photos?rovers=curiosity&sol=2789&date_min=2020-06-11&per_page=1')
    expect(later.meta.total_count).toBe(0)
    const stated = new Set<string>()
    for (let page = 1; page <= 3; page++) {
      const complete = await json(`/api/v2/photos?rovers=curiosity&sol=2789&field_set=complete&per_page=100&page=${page}`)
      for (const p of complete.data) stated.add(p.attributes.raw.earth_date)
    }
    expect(stated.size).toBe(7) // 2020-06-10 … 2020-06-17 as the file states them, kept in raw
  })
})
