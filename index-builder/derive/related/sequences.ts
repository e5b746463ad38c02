import { ROVER_SLUGS } from '../../../src/catalog/rovers'
import type { DictColumn, PhotoColumns } from '../../../src/store/schema'
import { DictBuilder } from '../../encode/utf8-builder'
import { sequenceOfId } from './id-conventions'
import { derivesRow, type KeptRows } from '../kept-rows'

/**
 * Each photo's observation sequence as the public id `<rover>-<sol>-<SEQUENCE>`
 * (`curiosity-3027-TRAV00928`), "" when unknown. The sequence is the one the record states (a PDS
 * label's SEQUENCE_ID, held in `p.sequence` until now), else the one its image id encodes
 * (id-conventions.ts); upper-case either way (labels write `trav00110` for the id's
 * `TRAV00110`). Missions run the same sequence on many sols, so the sol is part of the id: one
 * id is one execution.
 *
 * With `kept` (an update's merge), a published row's code holds its served id already (its sol
 * and stated sequence are unchanged): it is carried over, renumbered in first-seen order as a
 * full build numbers it; a new row's code holds its stated sequence, as in a build.
 */
export function sequenceColumn(p: PhotoColumns, kept?: KeptRows): DictColumn {
  const text = new TextDecoder()
  const dict = new DictBuilder()
  dict.code('')
  const codes = new Int32Array(p.length)
  // Published code -> code here, set at its first row.
  const carried = new Int32Array(kept ? p.sequence.dict.length : 0).fill(-1)
  for (let r = 0; r < p.length; r++) {
    if (!derivesRow(kept, r)) {
      const c = p.sequence.codes[r]!
      if (carried[c] === -1) carried[c] = dict.code(p.sequence.dict[c]!)
      codes[r] = carried[c]!
      continue
    }
    const sol = p.sol[r]!
    if (sol < 0) continue
    const rover = ROVER_SLUGS[p.rover[r]!]!
    const stated = p.sequence.dict[p.sequence.codes[r]!]!
    const seq = stated !== '' ? stated : sequenceOfId(rover, text.decode(p.nasa_id.data.subarray(p.nasa_id.offsets[r]!, p.nasa_id.offsets[r + 1]!)))
    if (seq) codes[r] = dict.code(`${rover}-${sol}-${seq.toUpperCase()}`)
  }
  return { codes, dict: dict.dict }
}
