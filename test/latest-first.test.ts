import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { makeTestApp, testStore, type TestApp } from './setup/test-app'
import { bruteForce, plainPhotos } from './support/brute-force'

/**
 * "Latest first" (decisions.md, Sorting): as a sort key, a photo whose records state no capture
 * time sorts as if taken at the last instant of its earth_date, in both directions; the
 * attribute itself stays absent. On the real index: Curiosity's sol 3728 photos (2023-01-31,
 * MSSS records without a time) open the rover's default order.
 */
let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(() => t.close())

async function list(query: string): Promise<any> {
  const res = await t.request(`/api/v2/photos?${query}`)
  expect(res.status).toBe(200)
  return res.json()
}

describe('the date_taken_utc sort key of photos without a capture time', () => {
  test('the first photo of ?rovers=curiosity is from 2023-01-31 (sol 3728), and it states no date_taken_utc', async () => {
    const d = await list('rovers=curiosity&per_page=5')
    expect(d.data[0].attributes.earth_date).toBe('2023-01-31')
    expect(d.data[0].attributes.sol).toBe(3728)
    expect(d.data[0].attributes.date_taken_utc).toBeUndefined()
  })

  test('descending: a timeless photo comes after every photo taken later the same day and before every earlier day', async () => {
    const all = plainPhotos(await testStore())
    const timeless = all.filter((p) => p.date_taken_utc === null && p.earth_date !== null)
    expect(timeless.length).toBeGreaterThan(1000)
    const d = await list('per_page=100&sort=-date_taken_utc')
    const days = d.data.map((p: any) => p.attributes.earth_date)
    // Dates never increase along the default order, whether the photo states a time or not.
    for (let i = 1; i < days.length; i++) expect(days[i] <= days[i - 1]).toBe(true)
  })

  test('ascending: sort=date_taken_utc puts a timeless photo after the photos of its day that state a time', async () => {
    const all = plainPhotos(await testStore())
    // A day holding both kinds of photo.
    const byDay = new Map<string, { timed: number; timeless: number }>()
    for (const p of all) {
      if (p.earth_date === null) continue
      const c = byDay.get(p.earth_date) ?? { timed: 0, timeless: 0 }
      if (p.date_taken_utc === null) c.timeless++
      else c.timed++
      byDay.set(p.earth_date, c)
    }
    const day = [...byDay].find(([, c]) => c.timed > 0 && c.timeless > 0 && c.timed + c.timeless <= 100)
    expect(day).toBeDefined()
    const [date, c] = day!
    const d = await list(`earth_date=${date}&sort=date_taken_utc&per_page=100`)
    const states = d.data.map((p: any) => p.attributes.date_taken_utc !== undefined)
    expect(states).toEqual([...Array(c.timed).fill(true), ...Array(c.timeless).fill(false)])
    const desc = await list(`earth_date=${date}&sort=-date_taken_utc&per_page=100`)
    expect(desc.data.map((p: any) => p.attributes.date_taken_utc !== undefined)).toEqual([...Array(c.timeless).fill(false), ...Array(c.timed).fill(true)])
  })

  test('a cursor walk of ?rovers=curiosity returns the naive order of the rule, every photo once', async () => {
    const all = plainPhotos(await testStore())
    const want = bruteForce(all, new URLSearchParams('rovers=curiosity')).map((p) => p.id)
    const seen: number[] = []
    let d = await list('rovers=curiosity&per_page=100')
    seen.push(...d.data.map((p: any) => p.id))
    while (d.pagination.cursor?.next) {
      d = await list(`rovers=curiosity&per_page=100&cursor=${d.pagination.cursor.next}`)
      seen.push(...d.data.map((p: any) => p.id))
    }
    expect(seen).toEqual(want)
  })
})
