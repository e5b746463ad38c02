import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { computeAccessPaths, type AccessPathInput } from '../index-builder/encode/access-paths'
import { defaultOrder } from '../index-builder/encode/photo-columns'
import { utf8Column } from '../index-builder/encode/utf8-builder'
import { sortValue } from '../src/query/order/sort-values'
import { RANKED_FIELDS, SORT_FIELDS, type SortField } from '../src/store/access-paths'
import type { PhotoColumns } from '../src/store/schema'
import { compareByField } from './support/field-order'

/**
 * The builder's linear sorts (counting, LSD radix over sortable float bits, MSD radix over UTF-8
 * bytes) against a plain comparison sort on sortValue, the one definition of sort order: on
 * random small tables full of ties, absent values, -0 and 0, infinities, denormals, and ids with
 * non-ASCII and astral characters, every permutation, rank, distinct count and per-rover list
 * must come out exactly as the comparison sort gives it.
 */

const INTS = [-1, 0, 1, 2, 3, 7, 255, 256, 4000, 65535, 2147483647]
const FLOATS = [NaN, -0, 0, 1.5, -3, 1e-310, 1e12, -1e12, Infinity, -Infinity, 359.5]
const F32 = [NaN, -0, 0, 359.5, -1.25, 1e-40, 90, -90, Infinity]

interface Table { input: AccessPathInput; n: number }

function tableArb(alphabet: string[]): fc.Arbitrary<Table> {
  const row = fc.record({
    rover: fc.integer({ min: 0, max: 3 }),
    camera: fc.integer({ min: 0, max: 4 }),
    nasa: fc.array(fc.constantFrom(...alphabet), { maxLength: 6 }).map((a) => a.join('')),
    sol: fc.oneof(fc.constantFrom(...INTS), fc.integer({ min: -1, max: 600 })),
    int: fc.constantFrom(...INTS),
    utc: fc.oneof(fc.constantFrom(...FLOATS), fc.double({ noNaN: false })),
    f32: fc.oneof(fc.constantFrom(...F32), fc.float()),
  })
  return fc.tuple(fc.array(row, { maxLength: 400 }), fc.integer()).map(([rows, salt]) => {
    const n = rows.length
    // Unique ids in a scrambled order, spread over the whole int31 range.
    const id = Int32Array.from(rows.map((_, i) => ((i * 2654435761 + salt) >>> 1) & 0x7fffffff))
    const f32 = Float32Array.from(rows.map((r) => r.f32))
    const input: AccessPathInput = {
      length: n,
      id,
      rover: Uint8Array.from(rows.map((r) => r.rover)),
      camera: { codes: Int16Array.from(rows.map((r) => r.camera)), dict: ['NAVCAM', '', 'FHAZ', 'MAST', 'NAVCAM'] },
      nasa_id: utf8Column(rows.map((r) => r.nasa)),
      sol: Int32Array.from(rows.map((r) => r.sol)),
      earth_date: Int32Array.from(rows.map((r) => r.int)),
      date_taken_utc: Float64Array.from(rows.map((r) => r.utc)),
      mars_time_ms: Int32Array.from(rows.map((r) => (r.int >= 0 ? r.int % 86_400_000 : -1))),
      site: Int32Array.from(rows.map((r) => r.sol)),
      drive: Int32Array.from(rows.map((r) => r.int)),
      width: Int32Array.from(rows.map((r) => r.int)),
      height: Int32Array.from(rows.map((r) => r.sol)),
      mast_azimuth: f32,
      mast_elevation: Float32Array.from(f32).reverse(),
      sun_elevation: Float32Array.from(f32).map((v) => -v),
    }
    return { input, n }
  })
}

function referenceOrder(p: PhotoColumns, field: SortField): number[] {
  return Array.from({ length: p.length }, (_, i) => i).sort((a, b) => compareByField(p, field, a, b))
}

function referenceRanks(p: PhotoColumns, field: SortField, order: number[]): { ranks: number[]; count: number } {
  const ranks = new Array<number>(p.length)
  let count = 0
  let prev: number | string | null = null
  const absent: number[] = []
  for (const r of order) {
    const v = sortValue(p, field, r)
    if (v === null) { absent.push(r); continue }
    if (count === 0 || v !== prev) count++
    prev = v
    ranks[r] = count - 1
  }
  for (const r of absent) ranks[r] = count
  return { ranks, count }
}

function sortedBy(n: number, key: (r: number) => number[]): number[] {
  return Array.from({ length: n }, (_, i) => i).sort((a, b) => {
    const ka = key(a)
    const kb = key(b)
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i]! - kb[i]!
    return a - b
  })
}

function checkAgainstComparisonSort({ input, n }: Table): void {
  const p = input as PhotoColumns
  const got = computeAccessPaths(input)
  const rankOf: Record<string, number[]> = {}
  for (const f of SORT_FIELDS) {
    const want = referenceOrder(p, f)
    expect([...got.perm[f]]).toEqual(want)
    if (f === 'id') continue
    const { ranks, count } = referenceRanks(p, f, want)
    expect(got.meta.distinct[f as (typeof RANKED_FIELDS)[number]]).toBe(count)
    expect([...got.rank[f as (typeof RANKED_FIELDS)[number]]]).toEqual(ranks)
    rankOf[f] = ranks
  }
  expect([...got.byRoverSol]).toEqual(sortedBy(n, (r) => [p.rover[r]!, rankOf.sol![r]!]))
  expect([...got.byRoverCamera]).toEqual(sortedBy(n, (r) => [p.rover[r]!, p.camera.codes[r]!]))
  expect([...got.byRoverCameraDate!]).toEqual(sortedBy(n, (r) => [p.rover[r]!, p.camera.codes[r]!, rankOf.earth_date![r]!]))
  expect([...got.byRoverSiteDrive!]).toEqual(sortedBy(n, (r) => [p.rover[r]!, rankOf.site![r]!, rankOf.drive![r]!]))
}

describe('linear sorts of the access paths equal a comparison sort on sortValue', () => {
  test('ASCII and BMP ids (the UTF-8 byte radix sort), numbers with ties, absent values, -0, infinities', () => {
    fc.assert(fc.property(tableArb(['A', 'B', 'a', '_', '0', 'é', 'ｚ', '\uE000']), checkAgainstComparisonSort), { numRuns: 40 })
  })

  test('ids with characters above U+FFFF (JS string order differs from byte order: the string path)', () => {
    fc.assert(fc.property(tableArb(['A', 'a', 'ｚ', '\u{1F600}', '\uFFFD']), checkAgainstComparisonSort), { numRuns: 15 })
  })

  test('the default order is date_taken_utc descending, unknown last, then id ascending', () => {
    fc.assert(
      fc.property(tableArb(['A']), ({ input, n }) => {
        const utc = input.date_taken_utc
        const want = Array.from({ length: n }, (_, i) => i).sort((a, b) => {
          const x = utc[a]!
          const y = utc[b]!
          if (x === x && y === y && x !== y) return x < y ? 1 : -1
          if ((x === x) !== (y === y)) return x === x ? -1 : 1
          return input.id[a]! - input.id[b]!
        })
        expect([...defaultOrder(utc, input.id, n)]).toEqual(want)
      }),
      { numRuns: 40 },
    )
  })
})
