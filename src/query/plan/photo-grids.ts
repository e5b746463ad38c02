import { perSnapshot } from '../../store/per-snapshot'
import type { RankedField } from '../../store/access-paths'
import type { Store } from '../../store/store'
import { buildValueGrid, type AxisColumn, type ValueGrid } from '../../store/value-grid'
import { aspectRatio, intRange, valueRange, type Filter, type FilterName, type FloatRange, type PhotoFilters } from '../scan/filters'
import { PAIR_HIGH_OUT, PAIR_HIGH_PART, PAIR_LOW_OUT, PAIR_LOW_PART, matchGrid, type BoxQuery, type GridMatch } from './grid-match'

/**
 * The photo table's value grids, made once per snapshot (warmed before it serves):
 *  - dimensions: width × height, which the width, height and aspect-ratio filters all read;
 *  - angles: mast azimuth × mast elevation.
 * A plan with two or more filters over one grid (or the aspect ratio, which no single-column
 * access path answers) is matched against it (grid-match.ts): the planner then knows the count
 * of those filters without a scan, and tests them as one cell lookup per row.
 */
export interface PhotoGrids {
  dimensions: ValueGrid
  angles: ValueGrid
}

export const photoGrids = perSnapshot((store: Store): PhotoGrids => buildPhotoGrids(store))

/** The grids of a store; `buckets` forces the quantile buckets of non-exact axes (value-grid.ts). */
export function buildPhotoGrids(store: Store, buckets?: number): PhotoGrids {
  const axis = (field: RankedField, values: ArrayLike<number>): AxisColumn => ({
    values,
    perm: store.paths.perm[field],
    rank: store.paths.rank[field],
    distinct: store.paths.meta.distinct[field],
  })
  const p = store.photos
  return {
    dimensions: buildValueGrid(axis('width', p.width), axis('height', p.height), buckets),
    angles: buildValueGrid(axis('mast_azimuth', p.mast_azimuth), axis('mast_elevation', p.mast_elevation), buckets),
  }
}

export interface PlanGrid {
  match: GridMatch
  /** The plan's filters the grid stands for. */
  names: Set<FilterName>
}

/**
 * The grids a plan's filters fall in, matched (only when the plan is not empty up front): the
 * store's own, or `grids` built over the same store (at other bucket counts).
 */
export function planGrids(store: Store, f: PhotoFilters, compiled: Map<FilterName, Filter>, grids?: PhotoGrids): PlanGrid[] {
  const out: PlanGrid[] = []
  const pick = (names: FilterName[]) => new Map(names.flatMap((n) => (compiled.has(n) ? [[n, compiled.get(n)!] as const] : [])))
  const dims = pick(['width', 'height', 'aspectRatio'])
  if (dims.size >= 2 || dims.has('aspectRatio')) {
    const q: BoxQuery = {
      x: f.width,
      y: f.height,
      pair: f.aspectRatio && ratioWithin(f.aspectRatio),
      filters: dims,
      over: (w, h) => [
        ...(f.width ? [intRange(w as Int32Array, f.width)] : []),
        ...(f.height ? [intRange(h as Int32Array, f.height)] : []),
        ...(f.aspectRatio ? [aspectRatio(w as Int32Array, h as Int32Array, f.aspectRatio.lo, f.aspectRatio.hi)] : []),
      ],
    }
    out.push({ match: matchGrid((grids ?? photoGrids(store)).dimensions, q, 'grid-dimensions'), names: new Set(dims.keys()) })
  }
  const angles = pick(['mastAzimuth', 'mastElevation'])
  if (angles.size === 2) {
    const az = f.mastAzimuth!
    const el = f.mastElevation!
    const q: BoxQuery = {
      x: az,
      y: el,
      filters: angles,
      over: (x, y) => [valueRange(x as Float32Array, az.lo, az.hi), valueRange(y as Float32Array, el.lo, el.hi)],
    }
    out.push({ match: matchGrid((grids ?? photoGrids(store)).angles, q, 'grid-angles'), names: new Set(angles.keys()) })
  }
  return out
}

/**
 * The aspect-ratio filter over a cell of widths [w0, w1] × heights [h0, h1], as the pair flags
 * of grid-match.ts: a row passes when width >= 0, height > 0 and lo <= width / height <= hi.
 * Division rounds monotonically, so the ratios of a cell's passing rows lie in
 * [least, most] = [max(w0, 0) / h1, w1 / h0] (most infinite when h0 <= 0); along a width
 * bucket's ascending heights both fall, so each flag holds on a prefix or a suffix:
 *  - least > hi (every ratio too wide): out, and so is every lower cell;
 *  - most < lo (every ratio too narrow): out, and so is every higher cell;
 *  - most > hi (or heights of 0, the lowest cells), least < lo: some rows may fail, on that side.
 * Widths below 0 (absent, or a cell reaching them) may fail in every cell of the column: both
 * partial flags; absent heights (NaN, the last bucket) are out above.
 */
function ratioWithin({ lo, hi }: FloatRange) {
  const ALL = PAIR_LOW_OUT | PAIR_HIGH_OUT | PAIR_LOW_PART | PAIR_HIGH_PART
  return (w0: number, w1: number, h0: number, h1: number): number => {
    if (!(w1 >= 0)) return ALL // no row with a width: the column is out
    if (Number.isNaN(h1)) return PAIR_HIGH_OUT | PAIR_HIGH_PART
    if (!(h1 > 0)) return PAIR_LOW_OUT | PAIR_LOW_PART // heights of 0 and below only, the lowest cells
    const least = Math.max(w0, 0) / h1
    const most = h0 > 0 ? w1 / h0 : Infinity
    let flags = w0 >= 0 ? 0 : PAIR_LOW_PART | PAIR_HIGH_PART
    if (least > hi) flags |= PAIR_LOW_OUT
    if (most < lo) flags |= PAIR_HIGH_OUT
    if (most > hi || !(h0 > 0)) flags |= PAIR_LOW_PART // heights of 0 fail even when hi is infinite
    if (least < lo) flags |= PAIR_HIGH_PART
    return flags
  }
}
