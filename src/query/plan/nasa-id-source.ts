import { NASA_GRAM_BLOCK, gramBit, type AccessPaths } from '../../store/access-paths'
import { make, type Source } from './sources'

/**
 * The nasa_id substring as a source: native byte searches (memmem speed) over the folded
 * column, restricted to the row blocks whose trigram bitset (nasa_grams) holds every trigram of
 * the needle, each hit mapped back to its row. Rows come out ascending (default order).
 */
export function nasaIdSource(paths: AccessPaths, needle: string): Source {
  const { data, offsets } = paths.nasaIdFolded
  const n = offsets.length - 1
  const hay = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  const nd = Buffer.from(needle, 'utf8')
  const rows: number[] = []
  const search = (rowFrom: number, rowTo: number) => {
    const start = offsets[rowFrom]
    const view = hay.subarray(start, offsets[rowTo])
    let row = rowFrom
    let pos = view.indexOf(nd, 0)
    while (pos >= 0) {
      const abs = start + pos
      row = rowAt(offsets, row, n, abs)
      let next = pos + 1
      if (abs + nd.length <= offsets[row + 1]) {
        rows.push(row)
        next = offsets[row + 1] - start
      }
      if (next >= view.length) break
      pos = view.indexOf(nd, next)
    }
  }
  if (nd.length > 0) {
    const grams = nd.length >= 3 && paths.nasaGrams ? needleGrams(nd) : undefined
    if (!grams) search(0, n)
    else {
      const bitsets = paths.nasaGrams!
      let runFrom = -1
      for (let b0 = 0; b0 < n; b0 += NASA_GRAM_BLOCK) {
        const rowsIn = Math.min(NASA_GRAM_BLOCK, n - b0)
        const bits = rowsIn * 64
        const base = b0 * 8
        let all = true
        for (let g = 0; g < grams.length; g += 3) {
          const bit = gramBit(grams[g], grams[g + 1], grams[g + 2], bits)
          if ((bitsets[base + (bit >>> 3)] & (1 << (bit & 7))) === 0) { all = false; break }
        }
        if (all) { if (runFrom < 0) runFrom = b0 }
        else if (runFrom >= 0) { search(runFrom, b0); runFrom = -1 }
      }
      if (runFrom >= 0) search(runFrom, n)
    }
  }
  const perm = Int32Array.from(rows)
  return make(perm, [0, perm.length], ['nasaId'], true, 'nasa-id-search')
}

/** The distinct byte trigrams of a needle, flat [a, b, c, ...]. */
function needleGrams(nd: Uint8Array): number[] {
  const seen = new Set<number>()
  const out: number[] = []
  for (let i = 0; i + 2 < nd.length; i++) {
    const k = (nd[i] << 16) | (nd[i + 1] << 8) | nd[i + 2]
    if (!seen.has(k)) { seen.add(k); out.push(nd[i], nd[i + 1], nd[i + 2]) }
  }
  return out
}

/** The row holding byte `pos`: the largest r >= from with offsets[r] <= pos (galloping search). */
function rowAt(offsets: Int32Array, from: number, n: number, pos: number): number {
  let lo = from
  let step = 1
  let hi = lo + 1
  while (hi < n && offsets[hi] <= pos) {
    lo = hi
    step *= 2
    hi = lo + step
  }
  if (hi > n) hi = n
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1
    if (offsets[mid] <= pos) lo = mid
    else hi = mid
  }
  return lo
}
