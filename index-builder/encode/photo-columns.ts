import type { DictColumn, PhotoColumns, Utf8Column } from '../../src/store/schema'
import { numberOrder, radixSortRows } from './linear-sorts'
import { takenSortColumn } from '../../src/query/order/sort-values'
import { dropColumns } from './release-memory'
import type { PhotoTable } from './raw-file'

/**
 * The one photo column encoder, for every source (records of the real files through
 * photo-table.ts, the synthetic generator directly): takes a photo table in source order and
 * returns the PhotoColumns of photos.arrow, in the default order (schema.ts, decisions.md
 * "Sorting"): the date_taken_utc sort key descending (a photo without a time at the last instant
 * of its earth_date, sort-values.ts takenSortKey), unknown last, then id ascending. Dictionary codes are
 * renumbered in first-seen order of the written rows, and narrowed to the smallest code type
 * that holds the dictionary.
 *
 * Memory: each column is gathered into its new order and the source column freed (the
 * `table` passed in is consumed: its arrays are detached as it goes), so a build holds one
 * column twice at most, never the whole table twice. (An in-place cycle permutation would
 * save that column but follows one dependent random read after another: ~40x slower.)
 */
export function encodePhotoColumns(table: PhotoTable): PhotoTable {
  const n = table.length
  checkIds(table.id, n)
  const taken = takenSortColumn(table.date_taken_utc, table.earth_date, n)
  // A table already in this order (an update's merge: index-builder/merge/) keeps its columns as
  // they are; one pass finds it so, where the sort costs ~1 s at 1.5 million rows.
  const sorted = inDefaultOrder(taken, table.id, n)
  const order = sorted ? identityOrder(n) : defaultOrder(taken, table.id, n)
  const inOrder = sorted || isIdentity(order)
  // Raw JSON in a spill is put in this order when raw.bin is written (encode/raw-file.ts).
  let rawSpill = table.rawSpill
  if (rawSpill) rawSpill.order = order
  const src = table as unknown as Record<string, unknown>
  // Texts kept out of the inline column until it is written (an update's merge) are gathered to be reordered with it.
  if (rawSpill?.inline && !inOrder) {
    src.raw = rawSpill.materialize!()
    rawSpill = undefined
  }
  let textPieces = table.textPieces
  if (textPieces && !inOrder) {
    for (const [name, t] of Object.entries(textPieces)) src[name] = t.materialize!()
    textPieces = undefined
  }
  const take = <T>(name: keyof PhotoColumns): T => {
    const c = src[name] as T
    src[name] = undefined
    return c
  }
  const num = <T extends NumberArray>(name: keyof PhotoColumns): T => {
    const from = take<T>(name)
    if (inOrder && from.length === n) return from
    const out = gather(from, order)
    dropColumns(from)
    return out
  }
  const text = (name: keyof PhotoColumns): Utf8Column => {
    const from = take<Utf8Column>(name)
    if (inOrder && from.offsets.length === n + 1 && from.offsets[0] === 0 && from.data.length === from.offsets[n]) return from
    const out = gatherUtf8(from, order)
    dropColumns(from)
    return out
  }
  const dict = (name: keyof PhotoColumns, max?: number): DictColumn => {
    const from = take<DictColumn>(name)
    const out = gatherDict(from, order, name, max)
    dropColumns(from)
    return out
  }
  return {
    length: n,
    id: num('id'),
    rover: num('rover'),
    camera: dict('camera', 32767),
    nasa_id: text('nasa_id'),
    sol: num('sol'),
    earth_date: num('earth_date'),
    date_taken_utc: num('date_taken_utc'),
    date_taken_mars: text('date_taken_mars'),
    mars_time_ms: num('mars_time_ms'),
    sample_type: dict('sample_type'),
    width: num('width'),
    height: num('height'),
    site: num('site'),
    drive: num('drive'),
    lat: num('lat'),
    lon: num('lon'),
    stereo_partner: num('stereo_partner'),
    sequence: dict('sequence'),
    coord_x: num('coord_x'),
    coord_y: num('coord_y'),
    coord_z: num('coord_z'),
    mast_azimuth: num('mast_azimuth'),
    mast_elevation: num('mast_elevation'),
    sclk: num('sclk'),
    sun_elevation: num('sun_elevation'),
    sun_azimuth: num('sun_azimuth'),
    solar_longitude: num('solar_longitude'),
    date_received: num('date_received'),
    image_dir: dict('image_dir'),
    image_small: text('image_small'),
    image_medium: text('image_medium'),
    image_large: text('image_large'),
    image_full: text('image_full'),
    title: dict('title'),
    caption: dict('caption'),
    credit: dict('credit'),
    raw: text('raw'),
    ...(rawSpill ? { rawSpill } : {}),
    ...(textPieces ? { textPieces } : {}),
    // Which rows an update's merge kept, in the written order.
    ...(table.kept ? { kept: { fresh: inOrder ? table.kept.fresh : gather(table.kept.fresh, order), changedSclk: table.kept.changedSclk } } : {}),
  }
}

type NumberArray = Int32Array | Uint8Array | Float64Array | Float32Array

/**
 * The default row order as a permutation: row k of the written table is input row perm[k].
 * A stable radix sort by the date_taken_utc sort key (takenSortColumn) descending (unknown last) of the rows visited in id
 * order, so equal times keep ascending ids.
 */
export function defaultOrder(takenKey: Float64Array, id: Int32Array, length: number): Int32Array {
  return numberOrder(takenKey, length, radixSortRows(id, length), true)
}

/**
 * Whether the rows are in the default order already: each key at most the one before (descending),
 * unknown (NaN) last, ascending ids among equal keys. Only for keys above 0, where the radix
 * sort's order (linear-sorts.ts sortableKeys) is the numbers' order; else undefined -> sorted.
 */
export function inDefaultOrder(key: Float64Array, id: Int32Array, n: number): boolean {
  for (let r = 0; r < n; r++) {
    const k = key[r]!
    if (k <= 0 || k === Infinity) return false
    if (r === 0) continue
    const p = key[r - 1]!
    if (p !== p) {
      if (k === k || id[r - 1]! > id[r]!) return false
    } else if (k === k && (p < k || (p === k && id[r - 1]! > id[r]!))) return false
  }
  return true
}

function identityOrder(n: number): Int32Array {
  const order = new Int32Array(n)
  for (let k = 0; k < n; k++) order[k] = k
  return order
}

function isIdentity(order: Int32Array): boolean {
  for (let k = 0; k < order.length; k++) if (order[k] !== k) return false
  return true
}

function checkIds(id: Int32Array, n: number): void {
  if (id.length < n) throw new Error(`the photo table has ${n} rows but ${id.length} ids`)
  // A sorted copy (a native sort): equal ids are neighbours. A Set of 1.5 million ids cost
  // ~0.8 s of an update's merge; the copy and sort a fraction of it, 4 bytes a row.
  const sorted = id.slice(0, n).sort()
  if (n > 0 && sorted[0]! < 0) throw new Error(`photo id ${sorted[0]} is not a non-negative int32`)
  for (let r = 1; r < n; r++) if (sorted[r] === sorted[r - 1]) throw new Error(`photo id ${sorted[r]} is given to two images`)
}

function gather<T extends NumberArray>(values: T, order: Int32Array): T {
  const n = order.length
  const out = new (values.constructor as new (n: number) => T)(n)
  for (let k = 0; k < n; k++) out[k] = values[order[k]!]!
  return out
}

function gatherUtf8(col: Utf8Column, order: Int32Array): Utf8Column {
  const n = order.length
  const offsets = new Int32Array(n + 1)
  const from = col.offsets
  for (let k = 0; k < n; k++) {
    const r = order[k]!
    offsets[k + 1] = offsets[k]! + from[r + 1]! - from[r]!
  }
  const data = new Uint8Array(offsets[n]!)
  const src = col.data
  for (let k = 0; k < n; k++) {
    const r = order[k]!
    let p = offsets[k]!
    for (let i = from[r]!, end = from[r + 1]!; i < end; i++) data[p++] = src[i]!
  }
  return { data, offsets }
}

/** Codes renumbered in first-seen order of the ordered rows; unused names dropped. */
function gatherDict(col: DictColumn, order: Int32Array, name: string, max?: number): DictColumn {
  const n = order.length
  const newCode = new Int32Array(col.dict.length).fill(-1)
  const dict: string[] = []
  const codes = new Int32Array(n)
  for (let k = 0; k < n; k++) {
    const old = col.codes[order[k]!]!
    let c = newCode[old]!
    if (c < 0) {
      c = newCode[old] = dict.length
      dict.push(col.dict[old]!)
    }
    codes[k] = c
  }
  if (max !== undefined && dict.length > max) throw new Error(`${dict.length} ${name} names do not fit the ${name} dictionary (at most ${max})`)
  const Codes = max !== undefined && max > 127 && max <= 32767 ? Int16Array : dict.length <= 127 ? Int8Array : dict.length <= 32767 ? Int16Array : Int32Array
  return { codes: Codes.from(codes), dict }
}
