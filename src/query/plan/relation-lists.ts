import { perSnapshot } from '../../store/per-snapshot'
import type { Store } from '../../store/store'

/**
 * The rows of the relation filters, made once per snapshot: the photos with a stereo partner,
 * and the photos of each observation sequence, each list ascending by row (the table's order is
 * the default order). `stereo=true` and `sequence=…` are then one slice that satisfies the
 * filter by construction: its size is the count and its first rows the default page, instead of
 * a test of every photo.
 */
export interface RelationLists {
  /** Rows whose stereo_partner is a photo id (>= 0), ascending. */
  stereo: Int32Array
  /** Rows by (sequence code, row): sequence code c is bySequence[starts[c] .. starts[c + 1]). */
  bySequence: Int32Array
  sequenceStarts: Int32Array
  /** Dictionary code of each served sequence id ("" has none). */
  sequenceCode: Map<string, number>
}

export const relationLists = perSnapshot((store: Store): RelationLists => {
  const p = store.photos
  const n = p.length
  let partnered = 0
  for (let r = 0; r < n; r++) if (p.stereo_partner[r]! >= 0) partnered++
  const stereo = new Int32Array(partnered)
  for (let r = 0, k = 0; r < n; r++) if (p.stereo_partner[r]! >= 0) stereo[k++] = r

  // A counting sort by code keeps each code's rows ascending.
  const { codes, dict } = p.sequence
  const starts = new Int32Array(dict.length + 1)
  for (let r = 0; r < n; r++) starts[codes[r]! + 1]++
  for (let c = 0; c < dict.length; c++) starts[c + 1] += starts[c]!
  const next = starts.slice(0, dict.length)
  const bySequence = new Int32Array(n)
  for (let r = 0; r < n; r++) bySequence[next[codes[r]!]!++] = r
  const sequenceCode = new Map<string, number>()
  dict.forEach((id, c) => { if (id !== '') sequenceCode.set(id, c) })
  return { stereo, bySequence, sequenceStarts: starts, sequenceCode }
})
