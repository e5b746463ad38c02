import type { Store } from '../../store/store'
import type { DictColumn } from '../../store/schema'
import { perSnapshot } from '../../store/per-snapshot'
import type { ByteSink } from '../bytes/byte-sink'

/**
 * The relationships every photo that has them carries without `include` (decisions.md:
 * references, not embedded resources): `"stereo":{"id":<partner id>,"type":"photo"}` and
 * `"sequence":{"id":"<rover>-<sol>-<SEQUENCE>","size":<photos of it>}`.
 *
 * Speed (every photo of a page passes here): a sequence's whole opening,
 * `},"relationships":{"sequence":{..}`, is encoded once, on first use, into one arena per
 * snapshot, found by two numbers per sequence code in flat arrays; a row without a stereo
 * partner copies it in one copy, a row with one copies its part after the opening. The constant
 * texts sit at the start of the same arena, so every piece is a copy through the arena's one
 * DataView (ByteSink#copyFrom: no native call for short texts, no object per sequence).
 */
export class RelatedMembers {
  /** Photos per sequence code; 0 for the code of "" (no sequence). */
  readonly sizes: Int32Array
  readonly #partner: Int32Array
  readonly #codes: DictColumn['codes']
  readonly #dict: readonly string[]
  /** Per code: arena start + 1 of its text; 0 not made yet, -1 no sequence. */
  readonly #at: Int32Array
  readonly #end: Int32Array
  #bytes: Buffer
  #view: DataView
  #used: number

  constructor(partner: Int32Array, sequence: DictColumn, rows: number) {
    const { codes, dict } = sequence
    const sizes = new Int32Array(dict.length)
    for (let r = 0; r < rows; r++) sizes[codes[r]!]!++
    dict.forEach((v, c) => { if (v === '') sizes[c] = 0 })
    this.sizes = sizes
    this.#partner = partner
    this.#codes = codes
    this.#dict = dict
    this.#at = new Int32Array(dict.length)
    this.#end = new Int32Array(dict.length)
    this.#bytes = Buffer.alloc(64 * 1024)
    this.#used = CONSTANTS.copy(this.#bytes, 0)
    this.#view = new DataView(this.#bytes.buffer, this.#bytes.byteOffset, this.#bytes.byteLength)
  }

  /** Writes `},"relationships":{stereo?,sequence?` and returns true, or returns false (nothing written) when the row has neither. */
  open(sink: ByteSink, row: number): boolean {
    const partner = this.#partner[row]!
    const code = this.#codes[row]!
    let a = this.#at[code]!
    if (a === 0) a = this.#make(code)
    if (partner < 0) {
      if (a < 0) return false
      sink.copyFrom(this.#bytes, this.#view, a - 1, this.#end[code]!)
      return true
    }
    sink.copyFrom(this.#bytes, this.#view, OPEN_STEREO_AT, OPEN_STEREO_END)
    sink.int(partner)
    if (a < 0) sink.copyFrom(this.#bytes, this.#view, PHOTO_TYPE_AT, PHOTO_TYPE_END)
    else {
      sink.copyFrom(this.#bytes, this.#view, PHOTO_TYPE_AT, PHOTO_TYPE_END + 1) // with the comma
      sink.copyFrom(this.#bytes, this.#view, a - 1 + OPEN_BYTES, this.#end[code]!)
    }
    return true
  }

  /** Encodes a sequence code's text into the arena; its #at value (-1 when the code is no sequence). */
  #make(code: number): number {
    const size = this.sizes[code]!
    if (size === 0) {
      this.#at[code] = -1
      return -1
    }
    const text = Buffer.from(`${OPEN}"sequence":${JSON.stringify({ id: this.#dict[code], size })}`, 'utf8')
    if (this.#used + text.length > this.#bytes.length) {
      const next = Buffer.alloc(Math.max(2 * this.#bytes.length, this.#used + text.length))
      this.#bytes.copy(next, 0, 0, this.#used)
      this.#bytes = next
      this.#view = new DataView(next.buffer, next.byteOffset, next.byteLength)
    }
    const at = this.#used
    text.copy(this.#bytes, at)
    this.#used += text.length
    this.#at[code] = at + 1
    this.#end[code] = this.#used
    return at + 1
  }
}

const OPEN = '},"relationships":{'
const OPEN_STEREO = OPEN + '"stereo":{"id":'
const PHOTO_TYPE_COMMA = ',"type":"photo"},'
/** The arena's first bytes: the opening with the stereo member's start, then the rest of that member and a comma. */
const CONSTANTS = Buffer.from(OPEN_STEREO + PHOTO_TYPE_COMMA, 'utf8')
const OPEN_STEREO_AT = 0
const OPEN_STEREO_END = OPEN_STEREO.length
const PHOTO_TYPE_AT = OPEN_STEREO_END
const PHOTO_TYPE_END = PHOTO_TYPE_AT + PHOTO_TYPE_COMMA.length - 1
/** Bytes of the opening `},"relationships":{`: the include tail (photo-fragments.ts relationshipsTail) starts with them. */
export const RELATIONSHIPS_OPEN_BYTES = OPEN.length
const OPEN_BYTES = OPEN.length

export const relatedMembers: (store: Store) => RelatedMembers = perSnapshot((store) => new RelatedMembers(store.photos.stereo_partner, store.photos.sequence, store.photos.length))
