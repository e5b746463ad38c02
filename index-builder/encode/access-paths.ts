import { join } from 'node:path'
import { Field, FixedSizeBinary, Float32, Int32, makeData, RecordBatch, Schema, Struct, Table, tableToIPC, Uint16, Uint8, Utf8, type DataType } from 'apache-arrow'
import { ACCESS_PATHS_FORMAT, NASA_GRAM_BLOCK, RANKED_FIELDS, gramBit, SORT_FIELDS, type AccessPathColumns, type RankArray, type RankedField, type SortField } from '../../src/store/access-paths'
import { FILES, type PhotoColumns, type Utf8Column } from '../../src/store/schema'
import { sortValue } from '../../src/query/sort-values'

/**
 * Offline part of the query engine's access paths (layout: src/store/access-paths.ts).
 * Everything that needs a sort over all rows happens here, once per build, so the server only
 * maps the result.
 */

/** Computes the access paths of `photos` (rows already in default order) and writes FILES.accessPaths into `dir`. */
export async function writeAccessPaths(dir: string, photos: PhotoColumns): Promise<void> {
  await Bun.write(join(dir, FILES.accessPaths), encodeAccessPaths(computeAccessPaths(photos)))
}

const LO = 2 ** 22 // packed sort keys: hi * LO + lo, exact while hi < 2^31 and lo < LO

export function computeAccessPaths(photos: PhotoColumns): AccessPathColumns {
  const n = photos.length
  const permId = argsort(n, (r) => photos.id[r], (r) => r)
  const idRank = new Int32Array(n)
  for (let i = 0; i < n; i++) idRank[permId[i]] = i

  const perm = { id: permId } as Record<SortField, Int32Array>
  const rank = {} as Record<RankedField, RankArray>
  const distinct = {} as Record<RankedField, number>
  for (const f of RANKED_FIELDS) {
    const { ranks, count } = denseRanks(photos, f)
    rank[f] = ranks
    distinct[f] = count
    perm[f] = argsort(n, (r) => ranks[r], (r) => idRank[r])
  }
  const solSpan = distinct.sol + 1
  const solRank = rank.sol
  const byRoverSol = argsort(n, (r) => photos.rover[r] * solSpan + solRank[r], (r) => r)
  const folded = foldCase(photos.nasa_id)
  const camSpan = photos.camera.dict.length
  const byRoverCamera = argsort(n, (r) => photos.rover[r] * camSpan + photos.camera.codes[r], (r) => r)
  // Dense ranks put absent (rank = distinct) last, as the value searches of sources.ts expect.
  const siteSpan = distinct.site + 1
  const driveSpan = distinct.drive + 1
  const byRoverSiteDrive = argsort(n, (r) => (photos.rover[r] * siteSpan + rank.site[r]) * driveSpan + rank.drive[r], (r) => r)
  return {
    meta: { format: ACCESS_PATHS_FORMAT, rows: n, distinct },
    perm,
    rank,
    rankId: idRank,
    byRoverSol,
    byRoverCamera,
    byRoverSiteDrive,
    aspectRatio: aspectRatios(photos),
    nasaIdFolded: folded,
    nasaGrams: trigramBlocks(folded),
  }
}

/** width / height per row rounded to float32; NaN unless width >= 0 and height > 0. */
function aspectRatios(photos: PhotoColumns): Float32Array {
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

/** Rows sorted by (hi, lo) ascending; both non-negative integers. */
function argsort(n: number, hi: (r: number) => number, lo: (r: number) => number): Int32Array {
  const out = new Int32Array(n)
  let packable = n <= LO
  if (packable) for (let r = 0; r < n; r++) if (hi(r) < 0 || hi(r) >= 2 ** 31 || lo(r) >= LO) { packable = false; break }
  if (packable) {
    // Sort (hi, lo) packed into one exact double, then find each row again by its lo part.
    const keys = new Float64Array(n)
    const rowOfLo = new Int32Array(n)
    for (let r = 0; r < n; r++) { keys[r] = hi(r) * LO + lo(r); rowOfLo[lo(r)] = r }
    keys.sort()
    for (let i = 0; i < n; i++) out[i] = rowOfLo[keys[i] % LO]
    return out
  }
  for (let r = 0; r < n; r++) out[r] = r
  return out.sort((a, b) => hi(a) - hi(b) || lo(a) - lo(b))
}

/** Dense ranks of the sort values of `field`; absent values get `count`. */
function denseRanks(photos: PhotoColumns, field: RankedField): { ranks: RankArray; count: number } {
  const n = photos.length
  const values: Array<number | string | null> = new Array(n)
  for (let r = 0; r < n; r++) values[r] = sortValue(photos, field, r)
  const present = [...new Set(values.filter((v) => v !== null) as Array<number | string>)]
  if (present.length && typeof present[0] === 'number') (present as number[]).sort((a, b) => a - b)
  else present.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const index = new Map<number | string, number>()
  present.forEach((v, i) => index.set(v, i))
  const count = present.length
  const ranks: RankArray = count < 255 ? new Uint8Array(n) : count < 65535 ? new Uint16Array(n) : new Int32Array(n)
  for (let r = 0; r < n; r++) {
    const v = values[r]
    ranks[r] = v === null ? count : index.get(v)!
  }
  return { ranks, count }
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
  intCol('by_rover_site_drive', c.byRoverSiteDrive!)
  const f32 = new Float32()
  add('aspect_ratio', f32, makeData({ type: f32, length: n, data: c.aspectRatio!, nullCount: 0 }))
  const utf8 = new Utf8()
  add('nasa_id_folded', utf8, makeData({ type: utf8, length: n, valueOffsets: c.nasaIdFolded.offsets, data: c.nasaIdFolded.data, nullCount: 0 }))
  const grams = new FixedSizeBinary(8)
  add('nasa_grams', grams, makeData({ type: grams, length: n, data: c.nasaGrams, nullCount: 0 }))
  const schema = new Schema(fields, new Map([['access_paths', JSON.stringify(c.meta)]]))
  const struct = makeData({ type: new Struct(fields), length: n, children, nullCount: 0 })
  return tableToIPC(new Table(schema, [new RecordBatch(schema, struct)]), 'file')
}
