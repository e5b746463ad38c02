/**
 * Photos that belong together, on the real index: the stereo pairs of Perseverance sol 2 found
 * (full with full, thumbnail with thumbnail), stereo=true and the export's stereo_partner_id, a
 * sequence listed in exposure order, "taken near here" counted against a brute-force count over
 * every photo, sort=distance in order across cursor pages, the 400s, and /related.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Store } from '../src/store/store'
import { listPhotosWithPlan } from '../src/query/answer/list-photos'
import { makeTestApp, testStore, type TestApp } from './setup/test-app'
import { plainPhotos, type PlainPhoto } from './support/brute-force'
import { parseCsv } from './support/security-probes'

let t: TestApp
let store: Store
let photos: PlainPhoto[]
/** Each photo's position read straight from the traverse table by (rover, site, drive). */
let where: Map<number, { lat: number; lon: number }>

beforeAll(async () => {
  t = await makeTestApp()
  store = await testStore()
  photos = plainPhotos(store)
  const tr = store.traverses
  const points = new Map<string, { lat: number; lon: number }>()
  for (let i = 0; i < tr.length; i++) points.set(`${tr.rover[i]}/${tr.site[i]}/${tr.drive[i]}`, { lat: tr.lat[i], lon: tr.lon[i] })
  where = new Map()
  photos.forEach((p, row) => {
    const at = p.site !== null && p.drive !== null ? points.get(`${store.photos.rover[row]}/${p.site}/${p.drive}`) : undefined
    if (at) where.set(p.id, at)
  })
})
afterAll(() => t.close())

const get = async (path: string) => {
  const r = await t.request(path)
  return { status: r.status, body: (await r.json()) as any }
}

/** Great-circle metres on the 3,389.5 km sphere, through unit vectors (not the service's haversine). */
function metres(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const v = (p: { lat: number; lon: number }) => {
    const la = (p.lat * Math.PI) / 180
    const lo = (p.lon * Math.PI) / 180
    return [Math.cos(la) * Math.cos(lo), Math.cos(la) * Math.sin(lo), Math.sin(la)]
  }
  const [x, y] = [v(a), v(b)]
  const cross = [x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]]
  return 3_389_500 * Math.atan2(Math.hypot(...cross), x[0] * y[0] + x[1] * y[1] + x[2] * y[2])
}

/** Ids of the photos within `radius` metres of `c`, by a brute-force great circle: nearest first, then id. */
function nearestFirst(c: { lat: number; lon: number }, radius: number): number[] {
  return photos
    .filter((p) => where.has(p.id) && metres(c, where.get(p.id)!) <= radius)
    .map((p) => ({ id: p.id, d: metres(c, where.get(p.id)!) }))
    .sort((a, b) => (Math.abs(a.d - b.d) > 1e-6 ? a.d - b.d : a.id - b.id))
    .map((w) => w.id)
}

async function allPages(query: string): Promise<any[]> {
  const out: any[] = []
  let cursor = ''
  for (;;) {
    const { status, body } = await get(`/api/v2/photos?${query}&per_page=100${cursor ? `&cursor=${cursor}` : ''}`)
    expect(status).toBe(200)
    out.push(...body.data)
    cursor = body.pagination.cursor?.next
    if (!cursor) return out
  }
}

describe('stereo pairs', () => {
  test('Perseverance sol 2: NLR_0002_0667130878_778ECM_N and FLR_0002_0667129426_513ECM_N pair with their NRR_/FRR_ products of the same kind', async () => {
    for (const left of ['NLR_0002_0667130878_778ECM_N', 'FLR_0002_0667129426_513ECM_N']) {
      const { body } = await get(`/api/v2/photos?nasa_id=${left}&rovers=perseverance`)
      expect(body.data.length).toBe(1)
      const photo = body.data[0]
      const partner = (await get(`/api/v2/photos/${photo.relationships.stereo.id}`)).body.data
      expect(partner.attributes.nasa_id).toBe(photo.attributes.nasa_id.replace(/^(.)L/, '$1R'))
      expect(partner.attributes.sample_type).toBe(photo.attributes.sample_type)
      expect(partner.relationships.stereo).toEqual({ id: photo.id, type: 'photo' })
      // The thumbnail of the same exposure pairs with the right eye's thumbnail.
      const thumb = (await get(`/api/v2/photos?nasa_id=${left.slice(0, -1)}T&rovers=perseverance`)).body.data[0]
      const thumbPartner = (await get(`/api/v2/photos/${thumb.relationships.stereo.id}`)).body.data
      expect(thumbPartner.attributes.nasa_id).toBe(thumb.attributes.nasa_id.replace(/^(.)L/, '$1R'))
    }
  })

  test('product versions of one exposure pair with their own version first (v01 with v01, v02 with v02), and an eye whose version has no other eye pairs across versions or stays alone', async () => {
    // Every Perseverance stereo product: its eye letters, clock and version (from its image file name).
    const all = (await allPages('rovers=perseverance&fields=nasa_id,images,date_taken_utc')).filter((p) => /^[NFRZ][LR]/.test(p.attributes.nasa_id))
    const version = (p: any) => Number(/J(\d\d)(?:_\d+)?\.\w+$/.exec(Object.values(p.attributes.images)[0] as string)?.[1] ?? 1)
    const byId = new Map(all.map((p) => [p.id, p]))
    const other = (p: any) => p.attributes.nasa_id.replace(/^(.)([LR])/, (_: string, rig: string, eye: string) => rig + (eye === 'L' ? 'R' : 'L'))
    const sameExposure = new Map<string, any[]>()
    for (const p of all) sameExposure.set(p.attributes.nasa_id, [...(sameExposure.get(p.attributes.nasa_id) ?? []), p])
    let crossVersion = 0
    let sameVersion = 0
    for (const p of all) {
      const partner = p.relationships?.stereo ? byId.get(p.relationships.stereo.id) : undefined
      // The other eye's product of the same letters and version, exposed within the tolerance (the served UTC is the clock's).
      const at = Date.parse(p.attributes.date_taken_utc)
      const twins = (sameExposure.get(other(p)) ?? []).filter((q) => version(q) === version(p) && Math.abs(Date.parse(q.attributes.date_taken_utc) - at) <= 2000)
      if (partner && version(partner) === version(p)) sameVersion++
      else if (partner) crossVersion++
      // A twin of the same version exists: it is the partner, or it is paired with a photo of its own version.
      for (const twin of twins) {
        if (partner?.id === twin.id) continue
        const its = twin.relationships?.stereo ? byId.get(twin.relationships.stereo.id) : undefined
        expect({ photo: p.id, twin: twin.id, twinPaired: its !== undefined && version(its) === version(twin) }).toEqual({ photo: p.id, twin: twin.id, twinPaired: true })
      }
    }
    expect(sameVersion).toBeGreaterThan(1000)
    expect(crossVersion).toBeLessThan(sameVersion / 10)
    // The example of the real index: FLR/FRR_0000_0666958220 exist as left v01, v02 and right v01, v02, v03.
    const eyes = all.filter((p) => /^F[LR]R_0000_0666958220_664ECM_N/.test(p.attributes.nasa_id))
    expect(eyes.map(version).sort()).toEqual([1, 1, 2, 2, 3])
    const pairs = eyes.filter((p) => p.attributes.nasa_id[1] === 'L').map((p) => [version(p), version(byId.get(p.relationships.stereo.id))])
    expect(pairs.sort()).toEqual([[1, 1], [2, 2]])
  })

  test('stereo=true keeps exactly the photos carrying relationships.stereo, each partner pointing back; stereo=false the rest', async () => {
    const paired = await allPages('stereo=true&fields=nasa_id')
    expect(paired.length).toBeGreaterThan(1000)
    const ids = new Set(paired.map((p) => p.id))
    for (const p of paired) {
      expect(p.relationships.stereo.type).toBe('photo')
      expect(ids.has(p.relationships.stereo.id)).toBe(true)
    }
    const byId = new Map(paired.map((p) => [p.id, p]))
    for (const p of paired) expect(byId.get(p.relationships.stereo.id).relationships.stereo.id).toBe(p.id)
    const unpaired = (await get('/api/v2/photos?stereo=false&per_page=100')).body
    expect(unpaired.meta.total_count + paired.length).toBe(photos.length)
    for (const p of unpaired.data) expect(p.relationships?.stereo).toBeUndefined()
  })

  test('stereo=true and sequence=… are answered from their row lists (the plan says so): counted without a scan, the page a slice', () => {
    const stereo = listPhotosWithPlan(store, new URLSearchParams('stereo=true&per_page=5'), 'https://mars-api.example')
    expect(stereo.outcome.plan).toBe('stereo-rows:slice')
    expect(JSON.parse(stereo.text).meta.total_count).toBe(store.photos.stereo_partner.filter((v) => v >= 0).length)
    const bySequence = listPhotosWithPlan(store, new URLSearchParams('sequence=perseverance-2-AUT_04096&sort=-date_taken_utc'), 'https://mars-api.example')
    expect(bySequence.outcome.plan).toBe('sequence-rows:slice')
    expect(JSON.parse(bySequence.text).meta.total_count).toBe(241)
  })

  test('the CSV export carries stereo_partner_id: the partner where JSON names one, empty otherwise', async () => {
    const r = await t.request('/api/v2/photos/export?rovers=perseverance&sol=2&format=csv')
    expect(r.status).toBe(200)
    const [cols, ...lines] = parseCsv(await r.text()).filter((row) => row.length > 1)
    const at = cols!.indexOf('stereo_partner_id')
    const idAt = cols!.indexOf('id')
    expect(at).toBeGreaterThan(0)
    const json = await allPages('rovers=perseverance&sol=2&fields=sol')
    const want = new Map(json.map((p) => [String(p.id), p.relationships?.stereo ? String(p.relationships.stereo.id) : '']))
    expect(lines.length).toBe(json.length)
    let partners = 0
    for (const cells of lines) {
      expect(cells[at]).toBe(want.get(cells[idAt]!)!)
      if (cells[at]) partners++
    }
    expect(partners).toBeGreaterThan(100)
  })
})

describe('sequences', () => {
  test('sequence=perseverance-2-AUT_04096 lists every photo whose id encodes it, in exposure order, with its size', async () => {
    const listed = await allPages('sequence=Perseverance-0002-aut_04096&fields=nasa_id,date_taken_utc')
    const want = photos.filter((p) => p.rover === 'perseverance' && p.sol === 2 && /^[A-Z0-9]{3}_\d{4}_\d{10}_\d{3}[A-Z]{3}_[A-Z]\d{7}AUT_04096/.test(p.nasa_id))
    expect(want.length).toBeGreaterThan(100)
    expect(listed.map((p) => p.id).sort()).toEqual(want.map((p) => p.id).sort())
    for (let i = 1; i < listed.length; i++) expect(Date.parse(listed[i].attributes.date_taken_utc)).toBeGreaterThanOrEqual(Date.parse(listed[i - 1].attributes.date_taken_utc))
    for (const p of listed) expect(p.relationships.sequence).toEqual({ id: 'perseverance-2-AUT_04096', size: want.length })
  })

  test('a Curiosity sequence stated by its PDS labels (trav…) is the one its ids encode (TRAV…)', async () => {
    const { body } = await get('/api/v2/photos?rovers=curiosity&nasa_id=TRAV00110&per_page=100&fields=nasa_id,sol')
    expect(body.data.length).toBeGreaterThan(0)
    for (const p of body.data) expect(p.relationships.sequence.id).toBe(`curiosity-${p.attributes.sol}-TRAV00110`)
  })

  test('every Curiosity engineering-camera id names its sequence in the 9 characters after site and drive, the AUT_04096 and SSS_15831 forms with an underscore included', async () => {
    const groups = new Map<string, number[]>()
    for (const p of photos) {
      const m = p.rover === 'curiosity' ? /^[NFR][LR][AB]_\d{9}[A-Z]{3}_[A-Z]\d{7}([A-Z]{3}[A-Z_]\d{5})/.exec(p.nasa_id) : null
      if (!m) continue
      const id = `curiosity-${p.sol}-${m[1]}`
      groups.set(id, [...(groups.get(id) ?? []), p.id])
    }
    const underscored = [...groups.keys()].filter((k) => k.slice(k.lastIndexOf('-') + 1).includes('_'))
    expect(underscored).toContain('curiosity-0-AUT_04096')
    expect(underscored).toContain('curiosity-559-SSS_15831')
    const some = [...groups.keys()].filter((_, i) => i % 40 === 0)
    for (const id of [...underscored, ...some]) {
      const listed = await allPages(`sequence=${id}&fields=sol`)
      expect(listed.map((p) => p.id).sort()).toEqual([...groups.get(id)!].sort())
      for (const p of listed) expect(p.relationships.sequence).toEqual({ id, size: groups.get(id)!.length })
    }
  })
})

describe('taken near here', () => {
  test('near-here counts equal a brute-force count over every photo, for lat/lon and near_photo centres', async () => {
    const centres = [...where.entries()].filter((_, i) => i % 997 === 0).slice(0, 6)
    expect(centres.length).toBeGreaterThan(3)
    for (const [id, c] of centres) {
      for (const radius of [1, 50, 800, 5000]) {
        const want = photos.filter((p) => where.has(p.id) && metres(c, where.get(p.id)!) <= radius).length
        const byPosition = (await get(`/api/v2/photos?lat=${c.lat}&lon=${c.lon}&radius_m=${radius}&per_page=1`)).body
        expect(byPosition.meta.total_count).toBe(want)
        const byPhoto = (await get(`/api/v2/photos?near_photo=${id}&radius_m=${radius}&per_page=1`)).body
        expect(byPhoto.meta.total_count).toBe(want)
      }
    }
  })

  test('sort=distance: nearest first, then id, the same rows across cursor pages as a brute-force sort', async () => {
    const [id, c] = [...where.entries()].find(([pid]) => photos.find((p) => p.id === pid)!.rover === 'curiosity')!
    const radius = 1500
    const want = nearestFirst(c, radius)
    expect(want.length).toBeGreaterThan(20)
    const got: number[] = []
    let cursor = ''
    for (;;) {
      const { status, body } = await get(`/api/v2/photos?near_photo=${id}&radius_m=${radius}&sort=distance&per_page=7&fields=sol${cursor ? `&cursor=${cursor}` : ''}`)
      expect(status).toBe(200)
      got.push(...body.data.map((p: any) => p.id))
      cursor = body.pagination.cursor?.next
      if (!cursor) break
    }
    expect(got).toEqual(want)
    const paged = (await get(`/api/v2/photos?near_photo=${id}&radius_m=${radius}&sort=distance&per_page=7&page=2&fields=sol`)).body
    expect(paged.data.map((p: any) => p.id)).toEqual(got.slice(7, 14))
  })

  test('the export takes sort=distance: every photo of the circle in the brute-force order, in CSV and NDJSON, and max_rows keeps the nearest', async () => {
    const [id, c] = [...where.entries()].find(([pid]) => photos.find((p) => p.id === pid)!.rover === 'perseverance')!
    const radius = 3000
    const want = nearestFirst(c, radius).map(String)
    expect(want.length).toBeGreaterThan(20)
    const csv = await t.request(`/api/v2/photos/export?near_photo=${id}&radius_m=${radius}&sort=distance&format=csv`)
    expect(csv.status).toBe(200)
    const [cols, ...lines] = parseCsv(await csv.text()).filter((row) => row.length > 1)
    expect(lines.map((cells) => cells[cols!.indexOf('id')])).toEqual(want)
    const nd = await t.request(`/api/v2/photos/export?near_photo=${id}&radius_m=${radius}&sort=distance&format=ndjson&max_rows=10`)
    expect(nd.status).toBe(200)
    const ids = (await nd.text()).trim().split('\n').map((line) => String(JSON.parse(line).id))
    expect(ids).toEqual(want.slice(0, 10))
  })

  test('a radius query reads only the position cells around its centre (the plan says so), and still counts every photo in the circle', async () => {
    const [id, c] = [...where.entries()][0]!
    const { text, outcome } = listPhotosWithPlan(store, new URLSearchParams(`near_photo=${id}&radius_m=200&per_page=5`), 'https://mars-api.example')
    expect(outcome.plan).toStartWith('position-cells')
    const want = photos.filter((p) => where.has(p.id) && metres(c, where.get(p.id)!) <= 200).length
    expect(JSON.parse(text).meta.total_count).toBe(want)
  })

  test('exclude_sol leaves out exactly the photos of that sol, alone and beside a circle', async () => {
    const [id, c] = [...where.entries()][0]!
    const sol = photos.find((p) => p.id === id)!.sol!
    const all = (await get(`/api/v2/photos?exclude_sol=${sol}&per_page=1`)).body.meta.total_count
    expect(all).toBe(photos.filter((p) => p.sol !== sol).length)
    const near = (await get(`/api/v2/photos?near_photo=${id}&radius_m=800&exclude_sol=${sol}&per_page=1`)).body.meta.total_count
    expect(near).toBe(photos.filter((p) => p.sol !== sol && where.has(p.id) && metres(c, where.get(p.id)!) <= 800).length)
    expect((await get('/api/v2/photos?exclude_sol=-1')).body.errors[0].parameter).toBe('exclude_sol')
  })

  test('each inconsistent or out-of-range centre is a 400 naming its parameter', async () => {
    const noPlace = photos.find((p) => !where.has(p.id))!.id
    const cases: Array<[string, string]> = [
      ['radius_m=50', 'radius_m'],
      ['sort=distance', 'sort'],
      ['lat=0&lon=10&radius_m=50&sort=-distance', 'sort'],
      ['lat=0&lon=10&radius_m=50&sort=distance,sol', 'sort'],
      ['lat=91&lon=10&radius_m=50', 'lat'],
      ['lat=-90.5&lon=10&radius_m=50', 'lat'],
      ['lat=0&lon=360.5&radius_m=50', 'lon'],
      ['lat=0&lon=-1&radius_m=50', 'lon'],
      ['lat=0&lon=10&radius_m=0', 'radius_m'],
      ['lat=0&lon=10&radius_m=5001', 'radius_m'],
      ['lat=0&lon=10', 'radius_m'],
      ['lat=0&radius_m=50', 'lon'],
      ['lon=10&radius_m=50', 'lat'],
      ['near_photo=99&radius_m=50', 'near_photo'],
      [`near_photo=${noPlace}&radius_m=50`, 'near_photo'],
      [`near_photo=${[...where.keys()][0]}&lat=0&lon=10&radius_m=50`, 'near_photo'],
    ]
    // The export parses the same way: distance without a centre is the same 400.
    cases.push(['radius_m=50&sort=distance&format=csv', 'radius_m'], ['sort=distance&format=csv', 'sort'])
    for (const [query, parameter] of cases) {
      const path = query.includes('format=') ? '/api/v2/photos/export' : '/api/v2/photos'
      const { status, body } = await get(`${path}?${query}`)
      expect({ query, status }).toEqual({ query, status: 400 })
      expect(body.errors.map((e: any) => e.parameter)).toContain(parameter)
    }
  })
})

describe('GET /api/v2/photos/{id}/related', () => {
  test('a photo with a partner, a sequence and neighbours: each part equals the list that answers it', async () => {
    const id = 1274797
    const { status, body } = await get(`/api/v2/photos/${id}/related?fields=nasa_id,sol`)
    expect(status).toBe(200)
    expect(body.data.id).toBe(id)
    expect(body.related.stereo.id).toBe(body.data.relationships.stereo.id)
    expect(body.related.stereo.attributes.nasa_id).toBe(body.data.attributes.nasa_id.replace(/^ZL/, 'ZR'))
    const seq = body.data.relationships.sequence
    expect(body.related.sequence.id).toBe(seq.id)
    expect(body.related.sequence.size).toBe(seq.size)
    const first = (await get(`/api/v2/photos?sequence=${seq.id}&fields=nasa_id,sol&per_page=25`)).body.data
    expect(body.related.sequence.photos).toEqual(first)
    const c = where.get(id)!
    const sol = body.data.attributes.sol
    const near = photos.filter((p) => p.sol !== sol && where.has(p.id) && metres(c, where.get(p.id)!) <= 50)
    expect(near.length).toBeGreaterThan(3)
    expect(body.related.nearby.total).toBe(near.length)
    expect(body.related.nearby.photos.length).toBe(Math.min(10, near.length))
    const ds = body.related.nearby.photos.map((n: any) => n.distance_m)
    for (let i = 1; i < ds.length; i++) expect(ds[i]).toBeGreaterThanOrEqual(ds[i - 1])
    for (const n of body.related.nearby.photos) expect(n.photo.attributes.sol).not.toBe(sol)
  })

  test('the nearby link lists exactly the photos counted in total, the nearest first as in the answer', async () => {
    const id = 1274797
    const { body } = await get(`/api/v2/photos/${id}/related?fields=sol&radius_m=300`)
    const nearby = body.related.nearby
    expect(nearby.total).toBeGreaterThan(10)
    const link = new URL(nearby.links.photos)
    const first = (await get(`${link.pathname}${link.search}&fields=sol`)).body
    expect(first.meta.total_count).toBe(nearby.total)
    const listed = await allPages(`${link.search.slice(1)}&fields=sol`)
    expect(listed.length).toBe(nearby.total)
    expect(listed.slice(0, 10).map((p: any) => p.id)).toEqual(nearby.photos.map((n: any) => n.photo.id))
    expect(listed.every((p: any) => p.attributes.sol !== body.data.attributes.sol)).toBe(true)
  })

  test('a photo without a position has nearby null; an unknown id is 404, a bad one 400', async () => {
    const lone = photos.find((p) => !where.has(p.id))!
    expect((await get(`/api/v2/photos/${lone.id}/related`)).body.related.nearby).toBeNull()
    expect((await get('/api/v2/photos/99/related')).status).toBe(404)
    const bad = await get('/api/v2/photos/abc/related')
    expect(bad.status).toBe(400)
    expect(bad.body.errors[0].parameter).toBe('id')
    expect((await get('/api/v2/photos/1274797/related?radius_m=9000')).body.errors[0].parameter).toBe('radius_m')
  })
})
