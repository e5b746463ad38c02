import { findCamera } from '../../catalog/cameras'
import { ROVERS } from '../../catalog/rovers'
import type { Store } from '../../store/store'
import type { DictColumn, PhotoColumns, Utf8Column } from '../../store/schema'
import { perSnapshot } from '../../store/per-snapshot'
import { ByteMemo } from '../bytes/byte-memo'
import { bufferOf, fragment, type ByteSink } from '../bytes/byte-sink'
import { ImagePrefixes } from './image-prefixes'
import { plainJson } from '../bytes/json-string'
import { relatedMembers, type RelatedMembers } from './related-members'

/**
 * The pre-encoded pieces of photo JSON, per store snapshot (photo-json.ts copies them): member
 * names (each with and without its leading comma), every dictionary value as a ready member
 * (`"title":"..."`, empty when absent) and a memo of the four joined, the end of a photo with
 * its relationships per rover and camera, image folders joined to their member name
 * (`"large":"https://.../`, image-prefixes.ts), and Buffer and DataView views over the Utf8
 * columns' bytes. Dictionaries are encoded whole (a few thousand values at most); image folders
 * and cameras, which can be many more, on first use.
 */
export interface PhotoFragments {
  p: PhotoColumns
  keys: typeof KEYS
  perseverance: number
  /**
   * The end of a photo from its attributes' closing brace on, with the relationships of
   * `include` (rover, camera or both): `},"relationships":{"rover":{..},"camera":{..}}}`. One
   * text per rover, camera and include (a few dozen), made on first use, so a row copies its
   * tail at once.
   */
  relationshipsTail(rover: number, code: number, withRover: boolean, withCamera: boolean): Buffer
  sampleType: Buffer[]
  title: Buffer[]
  caption: Buffer[]
  credit: Buffer[]
  /**
   * sample_type, title, caption and credit members joined, by their four codes (photo-json.ts
   * writeDictMembers): 4096 slots of up to 512 bytes (2 MB per snapshot). Codes are the
   * snapshot's, so the memo is too.
   */
  dictMembers: ByteMemo
  /** `"<size>":"<image_dir escaped>` by size index (IMAGE_SIZES order) and image_dir code. */
  imagePrefixes: ImagePrefixes
  nasaId: ColumnBytes
  dateTakenMars: ColumnBytes
  imageSmall: ColumnBytes
  imageMedium: ColumnBytes
  imageLarge: ColumnBytes
  imageFull: ColumnBytes
  raw: Buffer
  /** relationships.stereo and relationships.sequence (related-members.ts). */
  related: RelatedMembers
}

/**
 * A Utf8 column's bytes, and which blocks of rows hold only plain printable ASCII values
 * (0x20..0x7e except '"' and '\\': their JSON text is their bytes), learnt per block of
 * BLOCK_ROWS rows on first use: a block's test reads its ~16 KB once instead of every value's
 * bytes on every answer.
 */
export class ColumnBytes {
  readonly data: Buffer
  /** A DataView of the same bytes (ByteSink#copyFrom). */
  readonly view: DataView
  readonly offsets: Int32Array
  /** Per block: 0 not tested yet, 1 every value plain, 2 some value is not. */
  readonly #blocks: Uint8Array

  constructor(col: Utf8Column) {
    this.data = bufferOf(col.data)
    this.view = new DataView(this.data.buffer, this.data.byteOffset, this.data.byteLength)
    this.offsets = col.offsets
    this.#blocks = new Uint8Array(Math.ceil((col.offsets.length - 1) / BLOCK_ROWS))
  }

  /** True when the value of `row` is known to be plain (false: it may still be). */
  plain(row: number): boolean {
    const k = row >> BLOCK_SHIFT
    const s = this.#blocks[k]
    return s === 1 || (s === 0 && this.#test(k))
  }

  #test(k: number): boolean {
    const rows = this.offsets.length - 1
    const a = this.offsets[k << BLOCK_SHIFT]
    const e = this.offsets[Math.min(rows, (k + 1) << BLOCK_SHIFT)]
    const plain = plainJson(this.data, a, e)
    this.#blocks[k] = plain ? 1 : 2
    return plain
  }
}

const BLOCK_SHIFT = 8
const BLOCK_ROWS = 1 << BLOCK_SHIFT

/** [without, with] a leading comma. */
const member = (text: string): [Buffer, Buffer] => [fragment(text), fragment(',' + text)]

const KEY_TEXTS = {
  open: fragment('{"id":'),
  typeAttributes: fragment(',"type":"photo","attributes":{'),
  typeAttributesNasaId: fragment(',"type":"photo","attributes":{"nasa_id":"'),
  nasa_id: fragment('"nasa_id":"'),
  date_taken_mars: fragment('"date_taken_mars":"'),
  sol: member('"sol":'),
  earth_date: member('"earth_date":"'),
  date_taken_utc: member('"date_taken_utc":"'),
  dimensions: member('"dimensions":{'),
  width: fragment('"width":'),
  height: fragment('"height":'),
  location: member('"location":{'),
  site: fragment('"site":'),
  drive: member('"drive":'),
  coordinates: member('"coordinates":{"x":'),
  y: fragment(',"y":'),
  z: fragment(',"z":'),
  telemetry: member('"telemetry":{'),
  telemetryAzimuth: member('"telemetry":{"mast_azimuth":'),
  mast_azimuth: fragment('"mast_azimuth":'),
  mast_elevation: fragment('"mast_elevation":'),
  sun: member('"sun":{"elevation":'),
  sunAzimuth: fragment(',"azimuth":'),
  solar_longitude: member('"solar_longitude":'),
  raw: fragment('"raw":'),
  date_received: member('"date_received":"'),
  added_at: member('"added_at":"'),
}

/**
 * The member names above, as views into one pool with one DataView, so photo-json.ts copies
 * them with ByteSink#copyFrom (key()) instead of a byte loop.
 */
function pooled<T extends Record<string, Buffer | [Buffer, Buffer]>>(texts: T): { keys: T; pool: Buffer; view: DataView } {
  const all = Object.values(texts).flat()
  const pool = Buffer.from(new ArrayBuffer(all.reduce((n, b) => n + b.length, 0)))
  let at = 0
  const place = (b: Buffer): Buffer => {
    b.copy(pool, at)
    at += b.length
    return pool.subarray(at - b.length, at)
  }
  const keys = Object.fromEntries(Object.entries(texts).map(([k, v]) => [k, Array.isArray(v) ? [place(v[0]), place(v[1])] : place(v)])) as T
  return { keys, pool, view: new DataView(pool.buffer) }
}

const { keys: KEYS, pool: KEY_POOL, view: KEY_VIEW } = pooled(KEY_TEXTS)

/** Copies a member name of KEYS (a view into KEY_POOL, whose offsets start at 0). */
export function key(sink: ByteSink, k: Buffer): void {
  sink.copyFrom(KEY_POOL, KEY_VIEW, k.byteOffset, k.byteOffset + k.length)
}

const EMPTY = Buffer.alloc(0)

/** A dictionary column's values as ready members `"name":"value"` (empty when absent), by code. */
function dictMembers(col: DictColumn, name: string): Buffer[] {
  return col.dict.map((raw) => (raw ? fragment('"' + name + '":' + JSON.stringify(raw)) : EMPTY))
}

export const photoFragments: (store: Store) => PhotoFragments = perSnapshot((store) => {
  const p = store.photos
  const tails = new Map<number, Buffer>()
  const dirs = p.image_dir.dict
  return {
    p,
    keys: KEYS,
    perseverance: ROVERS.findIndex((r) => r.slug === 'perseverance'),
    relationshipsTail(rover, code, withRover, withCamera) {
      const key = (rover * 65536 + code) * 4 + (withRover ? 2 : 0) + (withCamera ? 1 : 0)
      let t = tails.get(key)
      if (t === undefined) {
        const facts = ROVERS[rover]
        const members: string[] = []
        if (withRover) members.push('"rover":' + JSON.stringify(facts ? { id: facts.slug, type: 'rover', attributes: { name: facts.name, status: facts.status } } : {}))
        if (withCamera) {
          const name = p.camera.dict[code] ?? ''
          const cam = facts ? findCamera(facts.slug, name) : undefined
          members.push('"camera":' + JSON.stringify(cam ? { id: name, type: 'camera', attributes: { full_name: cam.full_name } } : { id: name, type: 'camera' }))
        }
        t = fragment('},"relationships":{' + members.join(',') + '}}')
        tails.set(key, t)
      }
      return t
    },
    sampleType: dictMembers(p.sample_type, 'sample_type'),
    title: dictMembers(p.title, 'title'),
    caption: dictMembers(p.caption, 'caption'),
    credit: dictMembers(p.credit, 'credit'),
    dictMembers: new ByteMemo(12, 4, 512),
    imagePrefixes: new ImagePrefixes(dirs),
    nasaId: new ColumnBytes(p.nasa_id),
    dateTakenMars: new ColumnBytes(p.date_taken_mars),
    imageSmall: new ColumnBytes(p.image_small),
    imageMedium: new ColumnBytes(p.image_medium),
    imageLarge: new ColumnBytes(p.image_large),
    imageFull: new ColumnBytes(p.image_full),
    raw: bufferOf(p.raw.data),
    related: relatedMembers(store),
  }
})
