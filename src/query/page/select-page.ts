import { nthElement } from './nth-element'
import type { Order } from '../order/order'

/**
 * Picks the rows at sorted positions [offset, offset + limit) out of sel[0..m) without sorting
 * all of them: a bounded max-heap for shallow pages, quickselect (expected O(m)) for deep ones,
 * then a sort of the page only. Works on packed keys; an order too wide to pack selects on its
 * packed prefix and sorts only the tied rows around the page with the comparator.
 */
let keyScratch = new Float64Array(0)

function keysFor(len: number): Float64Array {
  if (keyScratch.length < len) keyScratch = new Float64Array(Math.max(len, keyScratch.length * 2, 1024))
  return keyScratch
}

const HEAP_MAX = 2048

/**
 * `minKey` (packed orders only) drops every row whose key is below it first: the rows after a
 * cursor position (Order.cursorBound).
 */
export function selectPage(sel: Int32Array, m: number, order: Order, offset: number, limit: number, minKey = -Infinity): Int32Array {
  if (order.packed) {
    const keys = keysFor(m)
    order.fillKeys(sel, m, keys)
    if (minKey > -Infinity) {
      let k = 0
      for (let i = 0; i < m; i++) {
        const x = keys[i]
        keys[k] = x
        k += x >= minKey ? 1 : 0
      }
      m = k
    }
    const end = Math.min(m, offset + limit)
    if (offset >= end) return new Int32Array(0)
    const picked = end <= HEAP_MAX ? heapSmallest(keys, m, end) : quickWindow(keys, m, offset, end)
    const from = end <= HEAP_MAX ? offset : 0
    const out = new Int32Array(end - offset)
    for (let i = 0; i < out.length; i++) out[i] = order.rowOfKey(picked[from + i])
    return out
  }
  // The whole order does not pack: select on its packable prefix, then sort only the rows
  // whose prefix falls between the page's first and last (ties included) with the comparator.
  const end = Math.min(m, offset + limit)
  if (offset >= end) return new Int32Array(0)
  const prefix = keysFor(2 * m)
  for (let i = 0; i < m; i++) prefix[i] = order.prefixKey(sel[i])
  const work = prefix.subarray(m, 2 * m)
  work.set(prefix.subarray(0, m))
  nthElement(work, 0, m - 1, offset)
  const lo = work[offset]
  nthElement(work, offset, m - 1, end - 1)
  const hi = work[end - 1]
  let below = 0
  const candidates: number[] = []
  for (let i = 0; i < m; i++) {
    const k = prefix[i]
    if (k < lo) below++
    else if (k <= hi) candidates.push(sel[i])
  }
  candidates.sort(order.compareRows)
  return Int32Array.from(candidates.slice(offset - below, end - below))
}

/**
 * The k smallest of keys[0..m), sorted ascending. Keys often arrive nearly sorted the wrong way
 * round (rows of perm_earth_date come oldest first, the default order wants the newest): then
 * every key would enter the heap, so the loop runs from the end when the last key is smaller
 * than the first, and most keys fail the `x < heap[0]` test.
 */
function heapSmallest(keys: Float64Array, m: number, k: number): Float64Array {
  const heap = new Float64Array(k) // max-heap
  let size = 0
  const backward = m > 1 && keys[m - 1] < keys[0]
  for (let n = 0; n < m; n++) {
    const x = keys[backward ? m - 1 - n : n]
    if (size < k) {
      let j = size++
      while (j > 0) {
        const parent = (j - 1) >> 1
        if (heap[parent] >= x) break
        heap[j] = heap[parent]
        j = parent
      }
      heap[j] = x
    } else if (x < heap[0]) {
      siftDown(heap, size, x)
    }
  }
  return heap.subarray(0, size).sort()
}

function siftDown(heap: Float64Array, size: number, x: number): void {
  let j = 0
  for (;;) {
    let c = 2 * j + 1
    if (c >= size) break
    if (c + 1 < size && heap[c + 1] > heap[c]) c++
    if (heap[c] <= x) break
    heap[j] = heap[c]
    j = c
  }
  heap[j] = x
}

/** keys[offset..end) of the sorted order, sorted (reorders keys[0..m) in place). */
function quickWindow(keys: Float64Array, m: number, offset: number, end: number): Float64Array {
  const a = keys.subarray(0, m)
  nthElement(a, 0, m - 1, offset)
  if (end - 1 > offset) nthElement(a, offset + 1, m - 1, end - 1)
  return a.subarray(offset, end).sort()
}
