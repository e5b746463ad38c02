/**
 * One documented form of a Perseverance nasa_id (src/catalog/nasa-id-form.ts): the agency image
 * id without the 2-digit product version of the file names, for every Perseverance photo whatever
 * form its record stated; a nasa_id search written in either form finds the same photo; numeric
 * ids stay computed from each record's own stated id, so none changes.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { assignedIdFor } from '../index-builder/normalize/assign-ids'
import { splitProductVersion } from '../src/catalog/nasa-id-form'
import { makeTestApp, testStore, type TestApp } from './setup/test-app'
import { plainPhotos } from './support/brute-force'
import { rssFeedRecords } from './support/incoming-photos'

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
})
afterAll(() => t.close())

async function search(nasaId: string): Promise<any[]> {
  const res = await t.request(`/api/v2/photos?nasa_id=${encodeURIComponent(nasaId)}&field_set=complete`)
  expect(res.status).toBe(200)
  return ((await res.json()) as any).data
}

describe('Perseverance image ids', () => {
  test('every Perseverance photo is served without a product version (7,213 photos, both kinds of source)', async () => {
    const perseverance = plainPhotos(await testStore()).filter((p) => p.rover === 'perseverance')
    expect(perseverance.length).toBe(7213)
    for (const p of perseverance) expect(splitProductVersion(p.nasa_id).version).toBeUndefined()
  })

  test('a feed photo stated as …_0010LUJ01 is served as …_0010LUJ and found by either form; its number is that of the id as stated', async () => {
    const stated = 'EAF_0002_0667110211_374ECV_N0010052EDLC00002_0010LUJ01'
    const withVersion = await search(stated)
    const without = await search('EAF_0002_0667110211_374ECV_N0010052EDLC00002_0010LUJ')
    expect(withVersion.length).toBe(1)
    expect(without.map((p) => p.id)).toEqual(withVersion.map((p) => p.id))
    expect(withVersion[0].attributes.nasa_id).toBe('EAF_0002_0667110211_374ECV_N0010052EDLC00002_0010LUJ')
    expect(withVersion[0].attributes.raw.imageid).toBe(stated)
    expect(withVersion[0].id).toBe(assignedIdFor(stated))
    // Lower case and the version: still the same photo.
    expect((await search(stated.toLowerCase())).map((p) => p.id)).toEqual([withVersion[0].id])
  })

  test('the mru photo NLF_0670_…_095J (file name …_095J01.png) is found by either form', async () => {
    const a = await search('NLF_0670_0726421423_362ECM_N0320604NCAM08111_01_095J01')
    const b = await search('NLF_0670_0726421423_362ECM_N0320604NCAM08111_01_095J')
    expect(a.length).toBe(1)
    expect(b.map((p) => p.id)).toEqual(a.map((p) => p.id))
    expect(a[0].attributes.images.full.endsWith('_095J01.png')).toBe(true)
  })

  test('every feed photo keeps the number of its stated imageid', async () => {
    const byId = new Map(plainPhotos(await testStore()).map((p) => [p.id, p.nasa_id]))
    const records = rssFeedRecords()
    expect(records.length).toBe(1196)
    for (const r of records) expect(byId.get(assignedIdFor(r.imageid))).toBe(splitProductVersion(r.imageid).id)
  })
})
