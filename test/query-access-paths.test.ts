import { beforeAll, describe, expect, test } from 'bun:test'
import { tableFromIPC } from 'apache-arrow'
import { computeAccessPaths, encodeAccessPaths } from '../index-builder/encode/access-paths'
import { sortValue } from '../src/query/order/sort-values'
import { NASA_GRAM_BLOCK, SORT_FIELDS, RANKED_FIELDS, accessPathColumnsFromTable, accessPathsFrom, gramBit } from '../src/store/access-paths'
import type { Store } from '../src/store/store'
import { testStore } from './setup/test-app'
import { compareByField } from './support/field-order'

/**
 * The offline access paths (index-builder/encode/access-paths.ts) of the real test index, as
 * the server maps them: every permutation is in its field's order (absent last, then id),
 * ranks agree with values, the (rover, sol) and (rover, camera) lists are sorted, the id lookup
 * finds every photo, and the trigram blocks hold every trigram of their rows. The engine's
 * binary searches and walks are only correct if these hold.
 */
let store: Store

beforeAll(async () => {
  store = await testStore()
})

const cmpField = (field: (typeof SORT_FIELDS)[number], a: number, b: number) => compareByField(store.photos, field, a, b)

describe('access paths of the real test index', () => {
  test('the photo rows are in the default order: date_taken_utc descending (no time: the last instant of earth_date), unknown last, then id', () => {
    const p = store.photos
    const key = (r: number) => (Number.isNaN(p.date_taken_utc[r]) && p.earth_date[r] >= 0 ? (p.earth_date[r] + 1) * 86_400_000 - 1 : p.date_taken_utc[r])
    for (let r = 1; r < p.length; r++) {
      const a = key(r - 1)
      const b = key(r)
      const ok = Number.isNaN(b) ? Number.isNaN(a) ? p.id[r - 1] < p.id[r] : true : !Number.isNaN(a) && (a > b || (a === b && p.id[r - 1] < p.id[r]))
      if (!ok) throw new Error(`rows ${r - 1} and ${r} are out of order`)
    }
  })

  for (const field of SORT_FIELDS) {
    test(`perm_${field} lists every row once, ascending by ${field} (absent last), ties by id`, () => {
      const perm = store.paths.perm[field]
      expect(perm.length).toBe(store.photos.length)
      expect(new Set(perm).size).toBe(perm.length)
      for (let i = 1; i < perm.length; i++) if (cmpField(field, perm[i - 1], perm[i]) >= 0) throw new Error(`perm_${field} out of order at ${i}`)
    })
  }

  for (const field of RANKED_FIELDS) {
    test(`rank_${field} is the dense rank of the value (absent = distinct count)`, () => {
      const { rank, meta, perm } = store.paths
      const d = meta.distinct[field]
      const p = perm[field]
      let expected = 0
      for (let i = 0; i < p.length; i++) {
        const r = p[i]
        if (i > 0) {
          const prev = sortValue(store.photos, field, p[i - 1])
          const cur = sortValue(store.photos, field, r)
          if (cur !== prev) expected++
        }
        const v = sortValue(store.photos, field, r)
        expect(rank[field][r]).toBe(v === null ? d : expected)
      }
    })
  }

  test('by_rover_sol is sorted by (rover, sol, row) and by_rover_camera by (rover, camera code, row)', () => {
    const p = store.photos
    const a = store.paths.byRoverSol
    const b = store.paths.byRoverCamera
    const solKey = (r: number) => (p.sol[r] < 0 ? Infinity : p.sol[r])
    for (let i = 1; i < a.length; i++) {
      const x = a[i - 1], y = a[i]
      const ok = p.rover[x] < p.rover[y] || (p.rover[x] === p.rover[y] && (solKey(x) < solKey(y) || (solKey(x) === solKey(y) && x < y)))
      if (!ok) throw new Error(`by_rover_sol out of order at ${i}`)
    }
    for (let i = 1; i < b.length; i++) {
      const x = b[i - 1], y = b[i]
      const cx = p.camera.codes[x], cy = p.camera.codes[y]
      const ok = p.rover[x] < p.rover[y] || (p.rover[x] === p.rover[y] && (cx < cy || (cx === cy && x < y)))
      if (!ok) throw new Error(`by_rover_camera out of order at ${i}`)
    }
  })

  test('by_rover_camera_date is sorted by (rover, camera code, earth_date, row), absent dates last within its group', () => {
    const p = store.photos
    const a = store.paths.byRoverCameraDate!
    expect(a.length).toBe(p.length)
    expect(new Set(a).size).toBe(p.length)
    const key = (v: number) => (v < 0 ? Infinity : v)
    for (let i = 1; i < a.length; i++) {
      const x = a[i - 1], y = a[i]
      const cx = p.camera.codes[x], cy = p.camera.codes[y], dx = key(p.earth_date[x]), dy = key(p.earth_date[y])
      const ok = p.rover[x] < p.rover[y] || (p.rover[x] === p.rover[y] && (cx < cy || (cx === cy && (dx < dy || (dx === dy && x < y)))))
      if (!ok) throw new Error(`by_rover_camera_date out of order at ${i}`)
    }
  })

  test('by_rover_site_drive is sorted by (rover, site, drive, row), absent site or drive last within its group', () => {
    const p = store.photos
    const a = store.paths.byRoverSiteDrive!
    expect(a.length).toBe(p.length)
    const key = (v: number) => (v < 0 ? Infinity : v)
    for (let i = 1; i < a.length; i++) {
      const x = a[i - 1], y = a[i]
      const sx = key(p.site[x]), sy = key(p.site[y]), dx = key(p.drive[x]), dy = key(p.drive[y])
      const ok = p.rover[x] < p.rover[y] || (p.rover[x] === p.rover[y] && (sx < sy || (sx === sy && (dx < dy || (dx === dy && x < y)))))
      if (!ok) throw new Error(`by_rover_site_drive out of order at ${i}`)
    }
  })

  test('aspect_ratio is width / height rounded to float32 where both are known (height > 0), else NaN', () => {
    const p = store.photos
    const q = store.paths.aspectRatio!
    expect(q.length).toBe(p.length)
    for (let r = 0; r < p.length; r++) {
      const want = p.width[r] >= 0 && p.height[r] > 0 ? Math.fround(p.width[r] / p.height[r]) : NaN
      if (!Object.is(q[r], want)) throw new Error(`row ${r}: ${q[r]} vs ${want}`)
    }
  })

  test('rowOfId finds every photo and answers -1 for ids that are not there', () => {
    const p = store.photos
    for (let r = 0; r < p.length; r++) expect(store.paths.rowOfId(p.id[r])).toBe(r)
    for (const id of [-1, 0, 2147483647, -2147483648]) if (!p.id.includes(id)) expect(store.paths.rowOfId(id)).toBe(-1)
  })

  test('nasa_id_folded is the lower-cased nasa_id, and every trigram of a row is set in its block', () => {
    const p = store.photos
    const dec = new TextDecoder()
    const { nasaIdFolded: f, nasaGrams } = store.paths
    expect(nasaGrams).toBeDefined()
    for (let r = 0; r < p.length; r++) {
      const id = dec.decode(p.nasa_id.data.subarray(p.nasa_id.offsets[r], p.nasa_id.offsets[r + 1]))
      const folded = f.data.subarray(f.offsets[r], f.offsets[r + 1])
      expect(dec.decode(folded)).toBe(id.toLowerCase())
      const b0 = r - (r % NASA_GRAM_BLOCK)
      const bits = Math.min(NASA_GRAM_BLOCK, p.length - b0) * 64
      for (let i = 0; i + 2 < folded.length; i++) {
        const bit = gramBit(folded[i], folded[i + 1], folded[i + 2], bits)
        if ((nasaGrams![b0 * 8 + (bit >>> 3)] & (1 << (bit & 7))) === 0) throw new Error(`row ${r}: trigram ${i} missing from its block`)
      }
    }
  })

  test('encoding and mapping back gives the same arrays, with no Arrow padding past the last row', () => {
    // An odd row count so every value buffer needs padding.
    const p = store.photos
    const n = p.length - (p.length % 2 === 0 ? 1 : 2)
    const cut = Object.fromEntries(
      Object.entries(p).map(([k, v]) => {
        if (k === 'length') return [k, n]
        if (ArrayBuffer.isView(v)) return [k, (v as Int32Array).subarray(0, n)]
        if ('dict' in (v as object)) return [k, { dict: (v as { dict: string[] }).dict, codes: (v as { codes: Int32Array }).codes.subarray(0, n) }]
        const u = v as { data: Uint8Array; offsets: Int32Array }
        return [k, { data: u.data.subarray(0, u.offsets[n]), offsets: u.offsets.subarray(0, n + 1) }]
      }),
    ) as unknown as typeof p
    const computed = computeAccessPaths(cut)
    const mapped = accessPathColumnsFromTable(tableFromIPC(encodeAccessPaths(computed)))
    expect(mapped.meta).toEqual(computed.meta)
    for (const f of SORT_FIELDS) expect(Array.from(mapped.perm[f])).toEqual(Array.from(computed.perm[f]))
    for (const f of RANKED_FIELDS) expect(Array.from(mapped.rank[f])).toEqual(Array.from(computed.rank[f]))
    expect(Array.from(mapped.byRoverSol)).toEqual(Array.from(computed.byRoverSol))
    expect(Array.from(mapped.byRoverCamera)).toEqual(Array.from(computed.byRoverCamera))
    expect(Array.from(mapped.byRoverCameraDate!)).toEqual(Array.from(computed.byRoverCameraDate!))
    expect(Array.from(mapped.byRoverSiteDrive!)).toEqual(Array.from(computed.byRoverSiteDrive!))
    expect(Array.from(mapped.aspectRatio!)).toEqual(Array.from(computed.aspectRatio!))
    expect(Array.from(mapped.nasaIdFolded.offsets)).toEqual(Array.from(computed.nasaIdFolded.offsets))
    expect(mapped.nasaIdFolded.data.length).toBe(computed.nasaIdFolded.data.length)
    expect(mapped.nasaGrams!.length).toBe(n * 8)
    expect(() => accessPathsFrom(mapped, p)).toThrow(/rows/)
  })
})
