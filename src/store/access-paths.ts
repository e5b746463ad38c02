import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { tableFromIPC, type Table } from 'apache-arrow'
import { IdDirectory } from './id-directory'
import { FILES, type PhotoColumns, type Utf8Column } from './schema'

/**
 * Precomputed access paths over the photo table (FILES.accessPaths), written offline by
 * index-builder/encode/access-paths.ts and only mapped here: no sort, no scan at load.
 *
 * Every column has one entry per photo row, so the file is one Arrow record batch:
 *  - `perm_<field>`: the rows sorted by that sortable field ascending, absent values last,
 *    then by photo id ascending. `perm_id` doubles as the id -> row lookup (id-directory.ts).
 *  - `rank_id`: per row, its position in `perm_id` (the id tie-breaker of packed sort keys).
 *  - `rank_<field>`: per row, the dense rank of its value among the distinct present values
 *    (0 .. distinct-1), `distinct` for an absent value. Equal values share a rank, so a rank
 *    orders rows exactly like the value does and can be packed into one numeric sort key.
 *  - `by_rover_sol`: rows sorted by (rover, sol, row) — a (rover, sol range) is one slice,
 *    and a single (rover, sol) slice is already in the default order.
 *  - `by_rover_camera`: rows sorted by (rover, camera code, row) — per-(rover, camera) row
 *    lists, each in the default order.
 *  - `by_rover_camera_date` (format 5): rows sorted by (rover, camera code, earth_date, row),
 *    absent dates last within the group — a (rover, camera, date range) is one slice, and a
 *    single (rover, camera, date) slice is already in the default order.
 *  - `by_rover_site_drive` (format 4): rows sorted by (rover, site, drive, row), absent site or
 *    drive last within the rover — a (rover, site, drive range) is one slice (location filters).
 *  - `aspect_ratio` (format 4, Float32): Math.fround(width / height) per row, NaN unless
 *    width >= 0 and height > 0 — the aspect-ratio filter reads 4 bytes a row instead of dividing
 *    two columns (rows whose float32 equals a rounded bound are re-checked exactly).
 *  - `nasa_id_folded`: nasa_id lower-cased (String#toLowerCase), for the case-insensitive
 *    substring filter: one byte search over the whole column instead of a per-row decode.
 *  - `nasa_grams` (FixedSizeBinary(8), 8 bytes per row): for each block of NASA_GRAM_BLOCK rows
 *    (in row order), a bitset of 64 bits per row of the hashed byte trigrams of their folded
 *    ids. A substring search reads only the blocks whose bitset holds every trigram of the
 *    needle (a block without one of them cannot hold a match).
 * Schema metadata `access_paths` (JSON): format, rows, distinct counts.
 */
export const SORT_FIELDS = [
  'id', 'sol', 'earth_date', 'date_taken_utc', 'date_taken_mars', 'camera', 'rover', 'nasa_id',
  'site', 'drive', 'width', 'height', 'mast_azimuth', 'mast_elevation',
  'sun_elevation',
] as const
/**
 * Sortable times whose paths are not in the file: `added_at` comes from the arrival ledger (not
 * part of the content), `date_received` sits beside it; both are made per snapshot on first use
 * (src/ledger/arrival-sorts.ts) and read through `perm`, `rank` and `meta.distinct` like the rest.
 */
export const ARRIVAL_SORT_FIELDS = ['added_at', 'date_received'] as const
/** Every field a request may sort by (the `sort` parameter). */
export const PUBLIC_SORT_FIELDS = [...SORT_FIELDS, ...ARRIVAL_SORT_FIELDS] as const
export type SortField = (typeof PUBLIC_SORT_FIELDS)[number]
/** Sortable fields with a rank column (id is its own rank). */
export type RankedField = Exclude<SortField, 'id'>
/** The ranked fields of the file (the arrival times are made at load). */
export const RANKED_FIELDS = SORT_FIELDS.filter((f) => f !== 'id') as RankedField[]

export type RankArray = Uint8Array | Uint16Array | Int32Array

/**
 * 5: by_rover_camera_date. 4: by_rover_site_drive and aspect_ratio. 3: rank_id and nasa_grams.
 * Format 4, 3 and 1 files (without those) still load; format 2 used a weaker trigram hash and
 * is refused.
 */
export const ACCESS_PATHS_FORMAT = 5

/** Rows per trigram block of `nasa_grams` (64 bits per row, so 4096 bits per full block). */
export const NASA_GRAM_BLOCK = 64

/**
 * Bit of a byte trigram in a block bitset of `bits` bits. Shared by the builder and the search.
 * Multiplicative hashing keeps its good bits high, so the range is cut from the top
 * (floor(h * bits / 2^32), exact in a double), not with a modulo of the low bits.
 */
export function gramBit(a: number, b: number, c: number, bits: number): number {
  return Math.floor(((Math.imul((a << 16) | (b << 8) | c, 0x9e3779b1) >>> 0) * bits) / 4294967296)
}

export interface AccessPathsMeta {
  format: number
  rows: number
  /** Distinct present values per ranked field; a rank equal to it means "absent". */
  distinct: Record<RankedField, number>
}

/** The columns of FILES.accessPaths, in memory. */
export interface AccessPathColumns {
  meta: AccessPathsMeta
  perm: Record<SortField, Int32Array>
  rank: Record<RankedField, RankArray>
  /** Position of each row in perm_id; absent in format 1 files (then made on first use). */
  rankId?: Int32Array
  byRoverSol: Int32Array
  byRoverCamera: Int32Array
  /** Rows by (rover, camera, earth_date, row); absent before format 5 (camera + date filters then scan a date range). */
  byRoverCameraDate?: Int32Array
  /** Rows by (rover, site, drive, row); absent before format 4 (location filters then scan perm_site). */
  byRoverSiteDrive?: Int32Array
  /** fround(width / height) (NaN without both); absent before format 4 (the filter then divides). */
  aspectRatio?: Float32Array
  nasaIdFolded: Utf8Column
  /** Trigram bitsets of the row blocks (see nasa_grams above): n * 8 bytes; absent in format 1 files. */
  nasaGrams?: Uint8Array
}

/** Precomputed access paths over the photo table, loaded from FILES.accessPaths. */
export interface AccessPaths extends AccessPathColumns {
  /** Row of a photo id, or -1 (through idDirectory()). */
  rowOfId(id: number): number
  /** The id -> row directory (id-directory.ts), made on first use. */
  idDirectory(): IdDirectory
  /** The sol whose dense rank is k (k < distinct.sol). */
  solOfRank(k: number): number
  /** Position of a row in perm_id: orders rows by id with dense values 0..n-1. */
  idRank(): Int32Array
}

/** Wraps loaded (or freshly computed) columns with the lookups the query engine uses. */
export function accessPathsFrom(cols: AccessPathColumns, photos: PhotoColumns): AccessPaths {
  if (cols.meta.rows !== photos.length) throw new Error(`access paths cover ${cols.meta.rows} rows, the photo table has ${photos.length}`)
  const byId = cols.perm.id
  const ids = photos.id
  let sols: Int32Array | undefined
  let idRank = cols.rankId
  let directory: IdDirectory | undefined
  return {
    ...cols,
    idRank(): Int32Array {
      if (!idRank) {
        idRank = new Int32Array(byId.length)
        for (let i = 0; i < byId.length; i++) idRank[byId[i]] = i
      }
      return idRank
    },
    solOfRank(k: number): number {
      // Made on first use: one galloping search per distinct sol over perm_sol (~d log(n/d) reads).
      sols ??= rankValues(cols.perm.sol, cols.rank.sol, cols.meta.distinct.sol, photos.sol)
      return sols[k]
    },
    idDirectory(): IdDirectory {
      return (directory ??= new IdDirectory(ids, byId))
    },
    rowOfId(id: number): number {
      return (directory ??= new IdDirectory(ids, byId)).rowOf(id)
    },
  }
}

/**
 * Maps FILES.accessPaths from `dir` (computing nothing heavy at start). The file is memory-mapped
 * (Bun.mmap: ~280 MB at 1.9M photos costs a few ms instead of a read of the whole file); the
 * arrays are views on it and never written. A published index folder is never rewritten in place
 * (the builder publishes new version folders), so the mapping stays valid for the snapshot's
 * life. INDEX_MMAP=0 reads the file into memory instead.
 */
export function loadAccessPaths(dir: string, photos: PhotoColumns): AccessPaths {
  const path = join(dir, FILES.accessPaths)
  let bytes: Uint8Array
  if (process.env.INDEX_MMAP !== '0' && typeof Bun !== 'undefined' && typeof Bun.mmap === 'function') bytes = Bun.mmap(path, { shared: false })
  else {
    const b = readFileSync(path)
    bytes = new Uint8Array(b.buffer, b.byteOffset, b.byteLength)
  }
  return accessPathsFrom(accessPathColumnsFromTable(tableFromIPC(bytes)), photos)
}

export function accessPathColumnsFromTable(table: Table): AccessPathColumns {
  const raw = table.schema.metadata.get('access_paths')
  if (!raw) throw new Error(`${FILES.accessPaths}: missing access_paths metadata`)
  const meta = JSON.parse(raw) as AccessPathsMeta
  // Format 1 lacks rank_id and nasa_grams (made on first use / the substring search reads every block).
  if (meta.format !== ACCESS_PATHS_FORMAT && meta.format !== 4 && meta.format !== 3 && meta.format !== 1) throw new Error(`${FILES.accessPaths}: format ${meta.format}, expected ${ACCESS_PATHS_FORMAT}`)
  const n = meta.rows
  const chunk = (name: string) => {
    const child = table.getChild(name)
    if (!child) throw new Error(`${FILES.accessPaths}: missing column ${name}`)
    if (child.data.length !== 1 || child.data[0]!.offset !== 0 || child.data[0]!.length !== n) {
      throw new Error(`${FILES.accessPaths}: column ${name} must be one chunk of ${n} rows at offset 0`)
    }
    return child.data[0]!
  }
  // Arrow pads value buffers to 8 bytes: cut every view to its exact length.
  const values = <T extends Int32Array | Uint16Array | Uint8Array | Float32Array>(name: string, per = 1) => {
    const v = chunk(name).values as T
    return v.subarray(0, n * per) as T
  }
  const perm = {} as Record<SortField, Int32Array>
  for (const f of SORT_FIELDS) perm[f] = values<Int32Array>(`perm_${f}`)
  const rank = {} as Record<RankedField, RankArray>
  for (const f of RANKED_FIELDS) rank[f] = values<RankArray>(`rank_${f}`)
  const folded = chunk('nasa_id_folded')
  const offsets = (folded.valueOffsets as Int32Array).subarray(0, n + 1)
  return {
    meta,
    perm,
    rank,
    byRoverSol: values<Int32Array>('by_rover_sol'),
    byRoverCamera: values<Int32Array>('by_rover_camera'),
    byRoverCameraDate: meta.format >= 5 ? values<Int32Array>('by_rover_camera_date') : undefined,
    byRoverSiteDrive: meta.format >= 4 ? values<Int32Array>('by_rover_site_drive') : undefined,
    aspectRatio: meta.format >= 4 ? values<Float32Array>('aspect_ratio') : undefined,
    nasaIdFolded: { data: (folded.values as Uint8Array).subarray(0, offsets[n]), offsets },
    nasaGrams: meta.format >= 3 ? values<Uint8Array>('nasa_grams', 8) : undefined,
    rankId: meta.format >= 3 ? values<Int32Array>('rank_id') : undefined,
  }
}

/** The value of each dense rank 0..d-1, read from the first row of its group in `perm`. */
function rankValues(perm: Int32Array, rank: RankArray, d: number, values: Int32Array): Int32Array {
  const out = new Int32Array(d)
  let pos = 0
  for (let k = 0; k < d; k++) {
    // Gallop from the previous group's start to the first position with rank >= k.
    let step = 1
    let hi = pos
    while (hi < perm.length && rank[perm[hi]] < k) { pos = hi; hi = pos + step; step *= 2 }
    if (hi > perm.length) hi = perm.length
    let lo = pos
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (rank[perm[mid]] < k) lo = mid + 1
      else hi = mid
    }
    pos = lo
    out[k] = values[perm[pos]]
  }
  return out
}
