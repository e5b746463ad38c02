import { join } from 'node:path'
import { Field, FixedSizeBinary, Float32, Int32, makeData, RecordBatch, Schema, Struct, Table, tableToIPC, Uint16, Uint8, Utf8, type DataType } from 'apache-arrow'
import { ACCESS_PATHS_FORMAT, NASA_GRAM_BLOCK, RANKED_FIELDS, gramBit, SORT_FIELDS, type AccessPathColumns, type RankArray, type RankedField, type SortField } from '../../src/store/access-paths'
import { FILES, type PhotoColumns, type Utf8Column } from '../../src/store/schema'
import { sortValue, takenSortColumn } from '../../src/query/order/sort-values'
import { ROVER_SLUGS } from '../../src/catalog/rovers'
import { countingSort, numberOrder, radixSortRows, ranksAlong, SortScratch, utf8OrderIsStringOrder, utf8Ranks, type NumberColumn } from './linear-sorts'
import { releaseMemory } from './release-memory'
import { writeArrowFile } from './write-arrow-file'
import type { StagingWrites } from './staging-writes'

/**
 * Offline part of the query engine's access paths (layout: src/store/access-paths.ts).
 * Everything that needs a sort over all rows happens here, once per build, so the server only
 * maps the result.
 */

/** The photo columns the access paths are computed from (the rest can be released before). */
export type AccessPathInput = Pick<PhotoColumns, 'length' | 'id' | 'rover' | 'camera' | 'nasa_id' | 'sol' | 'earth_date' | 'date_taken_utc' | 'mars_time_ms' | 'site' | 'drive' | 'width' | 'height' | 'mast_azimuth' | 'mast_elevation' | 'sun_elevation'>

/** Computes the access paths of `photos` (rows already in default order) and writes FILES.accessPaths into `dir`. */
export async function writeAccessPaths(dir: string, photos: AccessPathInput, digests?: StagingWrites): Promise<void> {
  await writeArrowFile(join(dir, FILES.accessPaths), accessPathsTable(computeAccessPaths(photos)), [], digests)
}

/**
 * Every sort here is a counting or radix sort (linear-sorts.ts): a sort by (rank, id) is a
 * stable counting sort by rank of the rows visited in id order; a sort by (key, row) one of the
 * rows in row order. The order is the one sortValue (src/query/order/sort-values.ts) defines; the
 * tests compare it with a comparison sort on sortValue.
 */
export function computeAccessPaths(photos: AccessPathInput): AccessPathColumns {
  const n = photos.length
  const permId = radixSortRows(photos.id, n)
  const idRank = new Int32Array(n)
  for (let i = 0; i < n; i++) idRank[permId[i]] = i

  const perm = { id: permId } as Record<SortField, Int32Array>
  const rank = {} as Record<RankedField, RankArray>
  const distinct = {} as Record<RankedField, number>
  const scratch = new SortScratch(n)
  for (const f of RANKED_FIELDS) {
    const numbers = numberColumn(photos, f)
    if (numbers) {
      perm[f] = numberOrder(numbers, n, permId, false, scratch)
      const { ranks, count } = ranksAlong(perm[f], numbers, n, scratch.ranks)
      distinct[f] = count
      rank[f] = narrowRanks(ranks, count)
    } else {
      const { ranks, count } = textRanks(photos, f)
      distinct[f] = count
      perm[f] = countingSort(ranks, count + 1, n, permId)
      rank[f] = narrowRanks(ranks, count)
    }
    releaseMemory(4 * n)
  }
  const solSpan = distinct.sol + 1
  const key = new Int32Array(n)
  for (let r = 0; r < n; r++) key[r] = photos.rover[r] * solSpan + rank.sol[r]
  const byRoverSol = countingSort(key, 256 * solSpan, n)
  const folded = foldCase(photos.nasa_id)
  const camSpan = Math.max(1, photos.camera.dict.length)
  for (let r = 0; r < n; r++) key[r] = photos.rover[r] * camSpan + photos.camera.codes[r]
  const byRoverCamera = countingSort(key, 256 * camSpan, n)
  // The same (rover, camera) groups, each by earth_date (absent last) then row: the rows by date
  // rank in row order, then stably by (rover, camera). Both go into the radix scratch, which no
  // sort uses after this point, so the new path adds no array to the build's peak.
  const byDate = countingSort(rank.earth_date, distinct.earth_date + 1, n, undefined, scratch.ping, scratch.counts)
  const byRoverCameraDate = countingSort(key, 256 * camSpan, n, byDate, scratch.pong)
  // Dense ranks put absent (rank = distinct) last, as the value searches of sources.ts expect.
  // Sorted by drive first, then stably by (rover, site): least significant key first.
  const siteSpan = distinct.site + 1
  const byDrive = countingSort(rank.drive, distinct.drive + 1, n)
  for (let r = 0; r < n; r++) key[r] = photos.rover[r] * siteSpan + rank.site[r]
  const byRoverSiteDrive = countingSort(key, 256 * siteSpan, n, byDrive)
  return {
    meta: { format: ACCESS_PATHS_FORMAT, rows: n, distinct },
    perm,
    rank,
    rankId: idRank,
    byRoverSol,
    byRoverCamera,
    byRoverCameraDate,
    byRoverSiteDrive,
    aspectRatio: aspectRatios(photos),
    nasaIdFolded: folded,
    nasaGrams: trigramBlocks(folded),
  }
}

/** width / height per row rounded to float32; NaN unless width >= 0 and height > 0. */
function aspectRatios(photos: AccessPathInput): Float32Array {
  const out = new Float32Array(photos.length)
  for (let r = 0; r < photos.length; r++) {
    const w = photos.width[r]
    const h = photos.height[r]
    out[r] = w >= 0 && h > 0 ? w / h : NaN
  }
  return out
}

/** The trigram bitset of every block of NASA_GRAM_BLOCK rows: 64 bits per row of the block. */
function trigramBlocks(col: Utf8Column): Uint8Array {
  const n = col.offsets.length - 1
  const out = new Uint8Array(n * 8)
  for (let b0 = 0; b0 < n; b0 += NASA_GRAM_BLOCK) {
    const rows = Math.min(NASA_GRAM_BLOCK, n - b0)
    const bits = rows * 64
    const base = b0 * 8
    for (let r = b0; r < b0 + rows; r++) {
      for (let i = col.offsets[r]; i + 2 < col.offsets[r + 1]; i++) {
        const bit = gramBit(col.data[i], col.data[i + 1], col.data[i + 2], bits)
        out[base + (bit >>> 3)] |= 1 << (bit & 7)
      }
    }
  }
  return out
}

/** The numeric column a field sorts by (sortValue: negative ints and NaN are absent), or undefined for a text field. */
function numberColumn(p: AccessPathInput, field: RankedField): NumberColumn | undefined {
  switch (field) {
    case 'sol': return p.sol
    case 'earth_date': return p.earth_date
    case 'date_taken_utc': return takenSortColumn(p.date_taken_utc, p.earth_date, p.length)
    case 'date_taken_mars': return p.mars_time_ms
    case 'site': return p.site
    case 'drive': return p.drive
    case 'width': return p.width
    case 'height': return p.height
    case 'mast_azimuth': return p.mast_azimuth
    case 'mast_elevation': return p.mast_elevation
    case 'sun_elevation': return p.sun_elevation
    default: return undefined
  }
}

/** Dense ranks of the sort values of a text field (camera, rover, nasa_id): absent values get `count`. */
function textRanks(p: AccessPathInput, field: RankedField): { ranks: Int32Array; count: number } {
  const n = p.length
  if (field === 'camera') return dictRanks(p.camera.codes, p.camera.dict, n)
  if (field === 'rover') return dictRanks(p.rover, ROVER_SLUGS, n)
  return utf8OrderIsStringOrder(p.nasa_id) ? utf8Ranks(p.nasa_id, n) : stringRanks(p, field)
}

/** Dense ranks of a dictionary column's values ("" or a code outside the dictionary is absent): the used names sorted. */
function dictRanks(codes: ArrayLike<number>, dict: readonly string[], n: number): { ranks: Int32Array; count: number } {
  const used = new Uint8Array(dict.length)
  for (let r = 0; r < n; r++) if (codes[r] < dict.length) used[codes[r]] = 1
  const names = [...new Set(dict.filter((name, c) => used[c] && name !== ''))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const index = new Map(names.map((name, i) => [name, i]))
  const rankOf = new Int32Array(dict.length + 1).fill(names.length)
  dict.forEach((name, c) => { if (name !== '') rankOf[c] = index.get(name) ?? names.length })
  const ranks = new Int32Array(n)
  for (let r = 0; r < n; r++) ranks[r] = rankOf[Math.min(codes[r], dict.length)]
  return { ranks, count: names.length }
}

/** Dense ranks through JS strings: for a column whose byte order is not its string order. */
function stringRanks(photos: AccessPathInput, field: RankedField): { ranks: Int32Array; count: number } {
  const n = photos.length
  const values: Array<number | string | null> = new Array(n)
  for (let r = 0; r < n; r++) values[r] = sortValue(photos as PhotoColumns, field, r)
  const present = [...new Set(values.filter((v) => v !== null) as string[])]
  present.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const index = new Map<number | string, number>()
  present.forEach((v, i) => index.set(v, i))
  const count = present.length
  const ranks = new Int32Array(n)
  for (let r = 0; r < n; r++) {
    const v = values[r]
    ranks[r] = v === null ? count : index.get(v)!
  }
  return { ranks, count }
}

/** The narrowest rank array that holds 0..count (the format's choice: Uint8 below 255, Uint16 below 65535). */
function narrowRanks(ranks: Int32Array, count: number): RankArray {
  if (count >= 65535) return ranks.slice()
  return count < 255 ? Uint8Array.from(ranks) : Uint16Array.from(ranks)
}

/** String#toLowerCase of every value, as a new Utf8 column (ASCII fast path on bytes). */
function foldCase(col: Utf8Column): Utf8Column {
  let ascii = true
  for (let i = 0; i < col.data.length; i++) if (col.data[i] >= 0x80) { ascii = false; break }
  if (ascii) {
    const data = new Uint8Array(col.data.length)
    for (let i = 0; i < data.length; i++) { const b = col.data[i]; data[i] = b >= 0x41 && b <= 0x5a ? b + 32 : b }
    return { data, offsets: col.offsets.slice() }
  }
  const enc = new TextEncoder()
  const dec = new TextDecoder()
  const n = col.offsets.length - 1
  const parts: Uint8Array[] = []
  const offsets = new Int32Array(n + 1)
  let total = 0
  for (let r = 0; r < n; r++) {
    const b = enc.encode(dec.decode(col.data.subarray(col.offsets[r], col.offsets[r + 1])).toLowerCase())
    parts.push(b)
    total += b.length
    offsets[r + 1] = total
  }
  const data = new Uint8Array(total)
  for (let r = 0; r < n; r++) data.set(parts[r], offsets[r])
  return { data, offsets }
}

/** Arrow IPC file bytes: one record batch, one column per array. */
export function encodeAccessPaths(c: AccessPathColumns): Uint8Array {
  return tableToIPC(accessPathsTable(c), 'file')
}

/** The access paths as one Arrow record batch (zero-copy views of the arrays). */
export function accessPathsTable(c: AccessPathColumns): Table {
  const n = c.meta.rows
  const fields: Field[] = []
  const children: ReturnType<typeof makeData>[] = []
  const add = (name: string, type: DataType, data: ReturnType<typeof makeData>) => { fields.push(new Field(name, type, false)); children.push(data) }
  const intCol = (name: string, values: Int32Array | Uint16Array | Uint8Array) => {
    const type = values instanceof Int32Array ? new Int32() : values instanceof Uint16Array ? new Uint16() : new Uint8()
    add(name, type, makeData({ type: type as Int32, length: n, data: values as Int32Array, nullCount: 0 }))
  }
  for (const f of SORT_FIELDS) intCol(`perm_${f}`, c.perm[f])
  for (const f of RANKED_FIELDS) intCol(`rank_${f}`, c.rank[f])
  intCol('rank_id', c.rankId!)
  intCol('by_rover_sol', c.byRoverSol)
  intCol('by_rover_camera', c.byRoverCamera)
  intCol('by_rover_camera_date', c.byRoverCameraDate!)
  intCol('by_rover_site_drive', c.byRoverSiteDrive!)
  const f32 = new Float32()
  add('aspect_ratio', f32, makeData({ type: f32, length: n, data: c.aspectRatio!, nullCount: 0 }))
  const utf8 = new Utf8()
  add('nasa_id_folded', utf8, makeData({ type: utf8, length: n, valueOffsets: c.nasaIdFolded.offsets, data: c.nasaIdFolded.data, nullCount: 0 }))
  const grams = new FixedSizeBinary(8)
  add('nasa_grams', grams, makeData({ type: grams, length: n, data: c.nasaGrams, nullCount: 0 }))
  const schema = new Schema(fields, new Map([['access_paths', JSON.stringify(c.meta)]]))
  const struct = makeData({ type: new Struct(fields), length: n, children, nullCount: 0 })
  return new Table(schema, [new RecordBatch(schema, struct)])
}
