import type { Store } from '../../store/store'
import { perSnapshot } from '../../store/per-snapshot'
import { fragment, type ByteSink } from '../bytes/byte-sink'

/**
 * The relationships every photo that has them carries without `include` (decisions.md:
 * references, not embedded resources): `"stereo":{"id":<partner id>,"type":"photo"}` and
 * `"sequence":{"id":"<rover>-<sol>-<SEQUENCE>","size":<photos of it>}`. Sizes are counted once
 * per snapshot; a sequence's member is encoded on first use.
 */
export interface RelatedMembers {
  /** Photos per sequence code; 0 for the code of "" (no sequence). */
  sizes: Int32Array
  /** Writes `},"relationships":{stereo?,sequence?` and returns true, or returns false (nothing written) when the row has neither. */
  open(sink: ByteSink, row: number): boolean
}

const OPEN = fragment('},"relationships":{')
const STEREO = fragment('"stereo":{"id":')
const PHOTO_TYPE = fragment(',"type":"photo"}')
/** Bytes of OPEN: the include tail (photo-fragments.ts relationshipsTail) starts with them. */
export const RELATIONSHIPS_OPEN_BYTES = OPEN.length

export const relatedMembers: (store: Store) => RelatedMembers = perSnapshot((store) => {
  const p = store.photos
  const { codes, dict } = p.sequence
  const sizes = new Int32Array(dict.length)
  for (let r = 0; r < p.length; r++) sizes[codes[r]!]!++
  dict.forEach((v, c) => { if (v === '') sizes[c] = 0 })
  const members: Array<Buffer | undefined> = new Array(dict.length)
  return {
    sizes,
    open(sink, row) {
      const partner = p.stereo_partner[row]!
      const code = codes[row]!
      const size = sizes[code]!
      if (partner < 0 && size === 0) return false
      sink.bytes(OPEN)
      if (partner >= 0) {
        sink.bytes(STEREO)
        sink.int(partner)
        sink.bytes(PHOTO_TYPE)
        if (size > 0) sink.byte(0x2c)
      }
      if (size > 0) sink.bytes((members[code] ??= fragment(`"sequence":${JSON.stringify({ id: dict[code], size })}`)))
      return true
    },
  }
})
