/** Hoare-style quickselect: afterwards a[k] is in its sorted place, smaller left, larger right. */
export function nthElement(a: Float64Array, lo: number, hi: number, k: number): void {
  while (hi > lo) {
    if (hi - lo < 16) {
      a.subarray(lo, hi + 1).sort()
      return
    }
    const mid = (lo + hi) >>> 1
    // median of three as pivot
    const x = a[lo], y = a[mid], z = a[hi]
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y
    let i = lo
    let j = hi
    while (i <= j) {
      while (a[i] < pivot) i++
      while (a[j] > pivot) j--
      if (i <= j) {
        const t = a[i]; a[i] = a[j]; a[j] = t
        i++; j--
      }
    }
    if (k <= j) hi = j
    else if (k >= i) lo = i
    else return
  }
}
