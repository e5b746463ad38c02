import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { computeAccessPaths } from '../index-builder/encode/access-paths'
import { listPhotos } from '../src/query'
import { accessPathsFrom } from '../src/store/access-paths'
import type { DictColumn, PhotoColumns, Utf8Column } from '../src/store/schema'
import type { Store } from '../src/store/store'
import { bruteForce, plainPhotos, sortPhotos, type PlainPhoto } from './support/brute-force'
import { makeTestApp, testStore, type TestApp } from './setup/test-app'

/**
 * Keyset cursors (decisions.md, Sorting and pagination): a cursor walk returns the same photos
 * in the same order as a page walk; a token made for other filters or another sort, or one
 * that does not decode, is a 400 naming `cursor`; and a walk that crosses an index rebuild
 * (a snapshot with photos removed and added swapped in mid-walk) returns every photo present in
 * both indexes exactly once, in order.
 */
let store: Store
let all: PlainPhoto[]

beforeAll(async () => {
  store = await testStore()
  all = plainPhotos(store)
})

const doc = (s: Store, query: string) => JSON.parse(listPhotos(s, new URLSearchParams(query), 'http://localhost'))

function pageWalk(query: string, perPage: number): number[] {
  const ids: number[] = []
  for (let page = 1; ; page++) {
    const d = doc(store, `${query}&per_page=${perPage}&page=${page}`)
    ids.push(...d.data.map((p: { id: number }) => p.id))
    if (!d.links.next) break
  }
  return ids
}

function cursorWalk(s: Store, query: string, perPage: number): { ids: number[]; pages: number } {
  const ids: number[] = []
  let d = doc(s, `${query}&per_page=${perPage}`)
  let pages = 1
  ids.push(...d.data.map((p: { id: number }) => p.id))
  while (d.pagination.cursor?.next) {
    d = doc(s, `${query}&per_page=${perPage}&cursor=${encodeURIComponent(d.pagination.cursor.next)}`)
    ids.push(...d.data.map((p: { id: number }) => p.id))
    pages++
  }
  return { ids, pages }
}

describe('a cursor walk returns exactly the page walk', () => {
  const queries = [
    ['default order, every photo', ''],
    ['sort=sol (ascending walk of a permutation)', 'sort=sol'],
    ['sort=-sol (descending: groups of equal sols, ids ascending inside)', 'sort=-sol'],
    ['sort=-nasa_id', 'sort=-nasa_id'],
    ['sort=camera,-date_taken_mars (two keys)', 'sort=camera,-date_taken_mars'],
    ['sort=-id', 'sort=-id'],
    ['rovers=perseverance&cameras=NAVCAM_LEFT (row lists merged)', 'rovers=perseverance&cameras=NAVCAM_LEFT'],
    ['rovers=curiosity&sort=-site (absent sites last)', 'rovers=curiosity&sort=-site'],
    ['sol_min=1290&sol_max=1300&sort=sol', 'sol_min=1290&sol_max=1300&sort=sol'],
    ['nasa_id=ncam&mars_time_min=M12:00:00', 'nasa_id=ncam&mars_time_min=M12:00:00'],
  ]
  for (const [name, query] of queries) {
    test(`${name}: same ids, same order, equal to the brute force`, () => {
      const perPage = query === '' || query.startsWith('sort=') ? 100 : 37
      const byPage = pageWalk(query, perPage)
      const byCursor = cursorWalk(store, query, perPage)
      expect(byCursor.ids).toEqual(byPage)
      expect(byCursor.ids).toEqual(bruteForce(all, new URLSearchParams(query)).map((p) => p.id))
      expect(byCursor.pages).toBe(Math.max(1, Math.ceil(byPage.length / perPage)))
    })
  }

  test('a cursor taken from page 3 of a page walk continues with page 4', () => {
    const p3 = doc(store, 'rovers=curiosity&sort=-sol&per_page=20&page=3')
    const p4 = doc(store, 'rovers=curiosity&sort=-sol&per_page=20&page=4')
    const viaCursor = doc(store, `rovers=curiosity&sort=-sol&per_page=20&cursor=${p3.pagination.cursor.next}`)
    expect(viaCursor.data.map((p: { id: number }) => p.id)).toEqual(p4.data.map((p: { id: number }) => p.id))
    expect(viaCursor.meta.total_count).toBe(p4.meta.total_count)
  })

  test('with a cursor, page is ignored, links.next carries the next cursor and pagination.page is left out', () => {
    const first = doc(store, 'rovers=spirit&per_page=10')
    const token = first.pagination.cursor.next
    const a = doc(store, `rovers=spirit&per_page=10&cursor=${token}`)
    const b = doc(store, `rovers=spirit&per_page=10&page=7&cursor=${token}`)
    expect(b.data).toEqual(a.data)
    expect(a.pagination.page).toBeUndefined()
    expect(a.pagination.cursor.current).toBe(token)
    const next = new URL(a.links.next)
    expect(next.searchParams.get('cursor')).toBe(a.pagination.cursor.next)
    expect(next.searchParams.get('page')).toBeNull()
    expect(next.searchParams.get('rovers')).toBe('spirit')
    expect(new URL(a.links.first).searchParams.get('cursor')).toBeNull()
  })

  test('the last page has no cursor.next and no links.next', () => {
    const { ids } = cursorWalk(store, 'rovers=spirit', 10)
    expect(ids.length).toBe(77)
    const last = doc(store, 'rovers=spirit&per_page=100')
    expect(last.pagination.cursor).toBeUndefined()
    expect(last.links.next).toBeUndefined()
  })
})

describe('a cursor that does not fit is refused with 400 naming cursor', () => {
  const token = () => doc(store, 'rovers=curiosity&sort=sol&per_page=5').pagination.cursor.next as string
  const refused = (query: string) => {
    try {
      listPhotos(store, new URLSearchParams(query), 'http://localhost')
    } catch (e) {
      const body = (e as { body(): { status: number; errors: Array<{ parameter: string }> } }).body()
      return body
    }
    throw new Error(`accepted: ${query}`)
  }
  test('made for other filters', () => {
    const b = refused(`rovers=spirit&sort=sol&cursor=${token()}`)
    expect(b.status).toBe(400)
    expect(b.errors.map((e) => e.parameter)).toEqual(['cursor'])
  })
  test('made for another sort (same keys count and a different direction)', () => {
    expect(refused(`rovers=curiosity&sort=-sol&cursor=${token()}`).status).toBe(400)
    expect(refused(`rovers=curiosity&sort=camera&cursor=${token()}`).status).toBe(400)
    expect(refused(`rovers=curiosity&cursor=${token()}`).status).toBe(400)
  })
  test('garbage, truncated, tampered, empty-array and oversized tokens', () => {
    const t = token()
    const tampered = Buffer.from(JSON.stringify([1, 'x', [1], 5])).toString('base64url')
    const wrongTypes = Buffer.from(JSON.stringify([1, JSON.parse(Buffer.from(t, 'base64url').toString())[1], ['a'], 5])).toString('base64url')
    for (const bad of ['xyz', '!!!', t.slice(0, 10), tampered, wrongTypes, Buffer.from('[]').toString('base64url'), 'A'.repeat(5000), '%C3%A9']) {
      const b = refused(`rovers=curiosity&sort=sol&cursor=${encodeURIComponent(bad)}`)
      expect(b.status).toBe(400)
      expect(b.errors.map((e) => e.parameter)).toContain('cursor')
    }
  })
  test('per_page and output parameters may change along a walk (they are not part of the fingerprint)', () => {
    const d = doc(store, `rovers=curiosity&sort=sol&per_page=3&fields=sol&include=rover&cursor=${token()}`)
    expect(d.data.length).toBe(3)
  })
})

// ---- a walk across an index rebuild -----------------------------------------------------------

/** Gathers rows of a photo table (with new ids / capture times for added copies) into a new table in default order. */
function derivedPhotos(p: PhotoColumns, picks: Array<{ row: number; id: number; utc: number }>): PhotoColumns {
  // decisions.md: a photo without a capture time sorts at the last instant of its earth_date.
  const key = (k: { row: number; utc: number }) => (Number.isNaN(k.utc) && p.earth_date[k.row] >= 0 ? (p.earth_date[k.row] + 1) * 86_400_000 - 1 : k.utc)
  picks.sort((a, b) => {
    const ka = key(a), kb = key(b)
    const an = Number.isNaN(ka), bn = Number.isNaN(kb)
    if (an !== bn) return an ? 1 : -1
    if (!an && ka !== kb) return kb - ka
    return a.id - b.id
  })
  const out: Record<string, unknown> = { length: picks.length }
  for (const [name, col] of Object.entries(p)) {
    if (name === 'length') continue
    if (ArrayBuffer.isView(col)) {
      const src = col as Int32Array
      const dst = new (src.constructor as Int32ArrayConstructor)(picks.length)
      picks.forEach((k, i) => { dst[i] = src[k.row] })
      out[name] = dst
    } else if ('dict' in (col as object)) {
      const d = col as DictColumn
      const codes = new (d.codes.constructor as Int32ArrayConstructor)(picks.length)
      picks.forEach((k, i) => { codes[i] = d.codes[k.row] })
      out[name] = { codes, dict: d.dict }
    } else {
      const u = col as Utf8Column
      const offsets = new Int32Array(picks.length + 1)
      picks.forEach((k, i) => { offsets[i + 1] = offsets[i] + u.offsets[k.row + 1] - u.offsets[k.row] })
      const data = new Uint8Array(offsets[picks.length])
      picks.forEach((k, i) => data.set(u.data.subarray(u.offsets[k.row], u.offsets[k.row + 1]), offsets[i]))
      out[name] = { data, offsets }
    }
  }
  const photos = out as unknown as PhotoColumns
  picks.forEach((k, i) => { photos.id[i] = k.id; photos.date_taken_utc[i] = k.utc })
  return photos
}

/** A rebuilt snapshot: every 5th photo removed, and copies of every 7th photo added under new ids, 90 minutes later. */
function rebuilt(base: Store): Store {
  const p = base.photos
  let nextId = Math.max(...p.id) + 1
  const picks: Array<{ row: number; id: number; utc: number }> = []
  for (let r = 0; r < p.length; r++) {
    if (r % 5 !== 0) picks.push({ row: r, id: p.id[r], utc: p.date_taken_utc[r] })
    if (r % 7 === 0) picks.push({ row: r, id: nextId++, utc: p.date_taken_utc[r] + 90 * 60_000 })
  }
  const photos = derivedPhotos(p, picks)
  const paths = accessPathsFrom(computeAccessPaths(photos), photos)
  return { ...base, photos, paths, version: base.version + '-rebuilt', manifest: { ...base.manifest, version: base.version + '-rebuilt' } }
}

describe('a cursor walk across an index rebuild', () => {
  let t: TestApp
  let next: Store
  beforeAll(async () => {
    next = rebuilt(store)
    t = await makeTestApp({ store })
  })
  afterAll(() => t.close())

  async function get(url: string) {
    const res = await t.request(url.replace('http://localhost', ''))
    expect(res.status).toBe(200)
    return res.json() as any
  }

  for (const query of ['', 'sort=sol', 'sort=-sol', 'rovers=perseverance&sort=-date_taken_mars', 'sort=nasa_id']) {
    test(`returns every photo present in both indexes exactly once, in order (${query || 'default order'})`, async () => {
      t.deps.stores.swap(store)
      const seen: number[] = []
      let d = await get(`/api/v2/photos?${query}&per_page=100`)
      seen.push(...d.data.map((p: { id: number }) => p.id))
      // The first page is in page mode: continue with its cursor, then follow links.next (cursor mode).
      d = await get(`/api/v2/photos?${query}&per_page=100&cursor=${d.pagination.cursor.next}`)
      seen.push(...d.data.map((p: { id: number }) => p.id))
      for (let page = 3; d.links.next; page++) {
        expect(new URL(d.links.next).searchParams.get('cursor')).toBe(d.pagination.cursor.next)
        if (page === 30) t.deps.stores.swap(next) // the index is rebuilt between two requests of the walk
        d = await get(d.links.next)
        seen.push(...d.data.map((p: { id: number }) => p.id))
      }
      expect(new Set(seen).size).toBe(seen.length)
      const matchesBefore = new Set(bruteForce(all, new URLSearchParams(query)).map((p) => p.id))
      const inBoth = new Set(bruteForce(plainPhotos(next), new URLSearchParams(query)).map((p) => p.id).filter((id) => matchesBefore.has(id)))
      const got = new Set(seen)
      const lost = [...inBoth].filter((id) => !got.has(id))
      expect(lost).toEqual([])
      // In order: the walk is sorted under the requested order, reading each photo's values
      // from whichever index holds it (photos in both have the same values).
      const byId = new Map<number, PlainPhoto>()
      for (const ph of all) byId.set(ph.id, ph)
      for (const ph of plainPhotos(next)) if (!byId.has(ph.id)) byId.set(ph.id, ph)
      const walked = seen.map((id) => byId.get(id)!)
      expect(sortPhotos(walked, new URLSearchParams(query).get('sort') ?? '-date_taken_utc').map((ph) => ph.id)).toEqual(seen)
      expect(seen.length).toBeGreaterThan(inBoth.size)
    })
  }
})
