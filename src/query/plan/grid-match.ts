import type { ValueGrid, GridAxis } from '../../store/value-grid'
import type { Filter, FilterName } from '../scan/filters'
import { RowTest } from '../scan/row-test'
import type { Source } from './sources'

/**
 * A box query over a value grid (value-grid.ts): which cells lie wholly inside the box, which
 * outside, which across its edge. From that, without reading the rows of the inside cells:
 *  - the exact number of rows in the box: inside cells by their counts, the rows of edge cells
 *    tested (on the grid's copies of the values in cell order: memory read in order), only
 *    when asked (a plan narrowed by other filters counts its few rows instead);
 *  - one row test equal to the box's filters: the row's cell class, and the filters themselves
 *    only for rows of edge cells (one 2-byte read a row for most rows, whatever the filters);
 *  - on an exact grid (every bucket one value, so no cell is across an edge), a source: the
 *    rows of the inside cells, cell by cell (each in row order), satisfying the box's filters by
 *    construction.
 */
export const OUT = 0
export const IN = 1
export const EDGE = 2
export type CellClass = typeof OUT | typeof IN | typeof EDGE

/** No row of the cell passes the pair test (nor of any cell below it in y, in its x bucket). */
export const PAIR_LOW_OUT = 1
/** No row of the cell passes (nor of any cell above it). */
export const PAIR_HIGH_OUT = 2
/** Some rows of the cell may fail (so may some of every cell below it). */
export const PAIR_LOW_PART = 4
/** Some rows of the cell may fail (so may some of every cell above it). */
export const PAIR_HIGH_PART = 8

export interface BoxQuery {
  /** Inclusive ranges on the grid's x and y columns (absent values never pass either). */
  x?: { lo: number; hi: number }
  y?: { lo: number; hi: number }
  /**
   * A test over both columns, as facts about the value box of a cell (x in [x0, x1], y in
   * [y0, y1]; NaN bounds for the absent bucket): a sum of the PAIR_* flags below, each of which,
   * over the cells of one x bucket in ascending y, holds on a prefix (the LOW ones) or a suffix
   * (the HIGH ones) of them.
   */
  pair?: (x0: number, x1: number, y0: number, y1: number) => number
  /** The filters the box stands for, by name (over the table's columns). */
  filters: Map<FilterName, Filter>
  /** The same filters over other arrays of the two columns' values (the grid's copies in cell order). */
  over(x: ArrayLike<number>, y: ArrayLike<number>): Filter[]
}

export interface GridMatch {
  /** Rows passing every filter of the box (tests the rows of edge cells on first call). */
  count(): number
  /** Rows of the cells wholly inside plus half those of edge cells: a guess of the count, for free. */
  estimate: number
  /** Rows `count()` tests (those of edge cells, read in order). */
  edgeRows: number
  /** One row test equal to the box's filters. */
  filter: Filter
  /** The matching rows, when the grid is exact. */
  source?: Source
}

/** Rows of edge cells are tested this many at a time into one reused buffer (only their number is kept). */
const CHUNK = 16_384
const scratch = new Int32Array(CHUNK)

/**
 * The cells are visited as runs: a bucket column's cells (one x bucket, ascending y buckets)
 * are consecutive in the cell order, so a run of cells of one class there is one range of the
 * cell order, and its rows one range of `start`. A column has at most three runs under the y
 * range (its edge bucket, its inside buckets, its other edge bucket) and at most three under a
 * pair test (edge, inside, edge: the pair's flags are monotone along the column, so binary
 * searches find where each run starts). A box then costs a few steps per x bucket it reaches,
 * not a step per cell: the buckets can grow with the rows without the classifying eating what
 * fewer rows along the edges gain.
 */
export function matchGrid(grid: ValueGrid, q: BoxQuery, label: string): GridMatch {
  const [x0, x1, xClass] = axisClasses(grid.x, q.x)
  const [y0, y1, yClass] = axisClasses(grid.y, q.y)
  const { start, stride } = grid
  // Flat [from, to) ranges of the cell order, adjacent ranges of one class merged.
  const inCells: number[] = []
  const edgeCells: number[] = []
  const add = (from: number, to: number, k: CellClass) => {
    if (k === OUT || from >= to) return
    const runs = k === IN ? inCells : edgeCells
    if (runs.length > 0 && runs[runs.length - 1] === from) runs[runs.length - 1] = to
    else runs.push(from, to)
  }
  const yRuns = runsOf(yClass, y0)
  const ya = grid.y
  for (let bx = x0; bx < x1; bx++) {
    const cx = xClass[bx - x0] as CellClass
    if (cx === OUT) continue
    const base = bx * stride
    if (!q.pair) {
      for (let i = 0; i < yRuns.length; i += 3) add(base + yRuns[i], base + yRuns[i + 1], both(cx, yRuns[i + 2] as CellClass))
      continue
    }
    const pair = q.pair
    const vx0 = bx < grid.x.buckets ? grid.x.min[bx] : NaN
    const vx1 = bx < grid.x.buckets ? grid.x.max[bx] : NaN
    const flags = (by: number) => (by < ya.buckets ? pair(vx0, vx1, ya.min[by], ya.max[by]) : pair(vx0, vx1, NaN, NaN))
    // The pair's runs in [y0, y1): out below a, edge [a, b), inside [b, c), edge [c, d), out from d.
    const a = firstWhere(y0, y1, (by) => (flags(by) & PAIR_LOW_OUT) === 0)
    const d = firstWhere(a, y1, (by) => (flags(by) & PAIR_HIGH_OUT) !== 0)
    const b = firstWhere(a, d, (by) => (flags(by) & PAIR_LOW_PART) === 0)
    const c = firstWhere(b, d, (by) => (flags(by) & PAIR_HIGH_PART) !== 0)
    for (let i = 0; i < yRuns.length; i += 3) {
      const k = both(cx, yRuns[i + 2] as CellClass)
      const r0 = yRuns[i]
      const r1 = yRuns[i + 1]
      add(base + Math.max(r0, a), base + Math.min(r1, b), both(k, EDGE))
      add(base + Math.max(r0, b), base + Math.min(r1, c), k)
      add(base + Math.max(r0, c), base + Math.min(r1, d), both(k, EDGE))
    }
  }
  let inside = 0
  for (let i = 0; i < inCells.length; i += 2) inside += start[inCells[i + 1]] - start[inCells[i]]
  const edges: number[] = []
  let edgeRows = 0
  for (let i = 0; i < edgeCells.length; i += 2) {
    const s = start[edgeCells[i]]
    const e = start[edgeCells[i + 1]]
    if (s === e) continue
    if (edges.length > 0 && edges[edges.length - 1] === s) edges[edges.length - 1] = e
    else edges.push(s, e)
    edgeRows += e - s
  }
  let exactCount = edges.length === 0 ? inside : -1
  const count = () => {
    if (exactCount < 0) exactCount = inside + countEdges(grid, q, edges)
    return exactCount
  }
  const estimate = inside + edgeRows / 2
  // The class of every cell, for the row test: made only when a plan runs the test.
  let cls: Uint8Array | undefined
  const classes = () => {
    if (!cls) {
      cls = new Uint8Array(grid.cells)
      for (let i = 0; i < inCells.length; i += 2) cls.fill(IN, inCells[i], inCells[i + 1])
      for (let i = 0; i < edgeCells.length; i += 2) cls.fill(EDGE, edgeCells[i], edgeCells[i + 1])
    }
    return cls
  }
  let filter: Filter | undefined
  if (edges.length > 0 || !grid.exact) {
    return { count, estimate, edgeRows, get filter() { return (filter ??= edgeFilter(classes(), grid.cell, [...q.filters.values()])) } }
  }
  // An exact grid's cells list their rows ascending: one slice per cell keeps each slice in the default order.
  const slices: number[] = []
  for (let i = 0; i < inCells.length; i += 2) {
    for (let c = inCells[i]; c < inCells[i + 1]; c++) if (start[c] < start[c + 1]) slices.push(start[c], start[c + 1])
  }
  const source: Source = { perm: grid.rows!, slices, size: inside, covers: new Set(q.filters.keys()), rowOrdered: true, scattered: true, label }
  return { count, estimate, edgeRows, get filter() { return (filter ??= cellFilter(classes(), grid.cell)) }, source }
}

/** The first b in [lo, hi) where `holds` (false before, true from there on), else hi. */
function firstWhere(lo: number, hi: number, holds: (b: number) => boolean): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (holds(mid)) hi = mid
    else lo = mid + 1
  }
  return lo
}

/** Runs of one class in an axis's classes: flat [from, to, class] triples, from `b0` on. */
function runsOf(classes: Uint8Array, b0: number): number[] {
  const runs: number[] = []
  for (let i = 0; i < classes.length; i++) {
    if (runs.length > 0 && runs[runs.length - 1] === classes[i] && runs[runs.length - 2] === b0 + i) runs[runs.length - 2] = b0 + i + 1
    else runs.push(b0 + i, b0 + i + 1, classes[i])
  }
  return runs
}

/** Rows of the edge cells (flat [start, end) ranges of the cell order) that pass the box's filters. */
function countEdges(grid: ValueGrid, q: BoxQuery, edges: number[]): number {
  // The grid's values in cell order when it keeps them; else (an exact grid, whose cells a box
  // never crosses) the table's columns through its row list.
  const test = new RowTest(grid.xs ? q.over(grid.xs, grid.ys!) : [...q.filters.values()])
  const perm = grid.xs ? null : grid.rows!
  let count = 0
  for (let i = 0; i < edges.length; i += 2) {
    for (let a = edges[i]; a < edges[i + 1]; a += CHUNK) count += test.scan(a, Math.min(edges[i + 1], a + CHUNK), perm, scratch, 0)
  }
  return count
}

/** Class of a cell under two conditions. */
function both(a: CellClass, b: CellClass): CellClass {
  return a === OUT || b === OUT ? OUT : a === EDGE || b === EDGE ? EDGE : IN
}

/**
 * The buckets [b0, b1) a range can reach on one axis and the class of each: all of them (the
 * absent bucket included) when the axis has no range, else the present buckets overlapping it.
 */
function axisClasses(axis: GridAxis, r: { lo: number; hi: number } | undefined): [number, number, Uint8Array] {
  if (!r) return [0, axis.buckets + 1, new Uint8Array(axis.buckets + 1).fill(IN)]
  // Buckets are ascending and disjoint: binary search the first whose max reaches lo, and the end of those whose min is <= hi.
  let b0 = 0
  let hi = axis.buckets
  while (b0 < hi) {
    const mid = (b0 + hi) >>> 1
    if (axis.max[mid] < r.lo) b0 = mid + 1
    else hi = mid
  }
  let b1 = b0
  hi = axis.buckets
  while (b1 < hi) {
    const mid = (b1 + hi) >>> 1
    if (axis.min[mid] <= r.hi) b1 = mid + 1
    else hi = mid
  }
  const out = new Uint8Array(Math.max(0, b1 - b0))
  for (let b = b0; b < b1; b++) out[b - b0] = r.lo <= axis.min[b] && axis.max[b] <= r.hi ? IN : EDGE
  return [b0, Math.max(b0, b1), out]
}

/** The row's cell is inside (exact grids: no edge cell). */
function cellFilter(cls: Uint8Array, cell: Uint16Array): Filter {
  return { shape: 'grid-cell', args: [cls, cell], code: ([k, c]) => `${k}[${c}[r]] === ${IN}`, bit: ([k, c]) => `${k}[${c}[r]]` }
}

/** The row's cell is inside, or across the edge and the row passes the filters themselves. */
function edgeFilter(cls: Uint8Array, cell: Uint16Array, inner: Filter[]): Filter {
  const args: unknown[] = [cls, cell]
  for (const f of inner) args.push(...f.args)
  return {
    shape: `grid-edge(${inner.map((f) => f.shape).join('|')})`,
    args,
    code: ([k, c, ...rest]) => {
      const tests: string[] = []
      let i = 0
      for (const f of inner) {
        tests.push(`(${f.code(rest.slice(i, i + f.args.length))})`)
        i += f.args.length
      }
      return `${k}[${c}[r]] === ${IN} || (${k}[${c}[r]] === ${EDGE} && ${tests.join(' && ')})`
    },
  }
}
