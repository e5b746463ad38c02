/**
 * The default row order of photos.arrow (schema.ts, decisions.md "Sorting"): date_taken_utc
 * descending with unknown times last, then id ascending. Returns the permutation: row k of the
 * written table is input row perm[k].
 */
export function defaultOrder(dateTakenUtc: Float64Array, id: Int32Array, length: number): Int32Array {
  const rows = new Array<number>(length)
  for (let i = 0; i < length; i++) rows[i] = i
  rows.sort((a, b) => {
    const x = dateTakenUtc[a]!
    const y = dateTakenUtc[b]!
    const xKnown = x === x
    const yKnown = y === y
    if (xKnown && yKnown) {
      if (x !== y) return y - x
    } else if (xKnown !== yKnown) {
      return xKnown ? -1 : 1
    }
    return id[a]! - id[b]!
  })
  return Int32Array.from(rows)
}
