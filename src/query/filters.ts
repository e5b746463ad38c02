import type { PhotoColumns, Utf8Column } from '../store/schema'
import type { FusedTerm } from './fused-scan'

/**
 * The photo filters, each written once as a column scan: `refine` keeps, in place and in
 * order, the rows of `sel[0..len)` that pass and returns how many remain; `refineRange` is the
 * same test over a stretch of the table in row order (rows from..to-1, no row list to read),
 * writing the survivors to `out`. Each class keeps its one test in both loops, side by side:
 * a mode switch inside one loop costs the JIT about half its speed (measured). List, cursor,
 * batch and stats all run these; the access paths (sources.ts) only decide which rows reach
 * them.
 *
 * The loops write every row and advance the output by the test's 0/1 (no data-dependent
 * branch: a mispredicted branch per row costs more than the store).
 *
 * Absent values never pass a bound: integer columns hold -1 and every lower bound is >= 0,
 * float columns hold NaN (every comparison false), strings hold "".
 */
export interface Filter {
  refine(sel: Int32Array, len: number): number
  refineRange(from: number, to: number, out: Int32Array): number
}

/** The typed filter plan of a photo query (parsed and validated, see photo-params.ts). */
export interface PhotoFilters {
  /** Needle for the case-insensitive substring match, already lower-cased. */
  nasaId?: string
  /** Rover codes (index into ROVERS). */
  rovers?: number[]
  /** Camera names, upper-case. */
  cameras?: string[]
  /** Inclusive integer ranges; lo > hi means "nothing matches". */
  sol?: IntRange
  earthDate?: IntRange
  site?: IntRange
  drive?: IntRange
  width?: IntRange
  height?: IntRange
  /** Union of inclusive intervals of mars_time_ms (time of day in ms). */
  marsTime?: IntRange[]
  /** Canonical sample types, lower-cased for the case-insensitive match. */
  sampleTypes?: string[]
  /** width/height, inclusive. */
  aspectRatio?: FloatRange
  mastElevation?: FloatRange
  mastAzimuth?: FloatRange
}

export interface IntRange { lo: number; hi: number }
export interface FloatRange { lo: number; hi: number }

export type FilterName = keyof PhotoFilters

// The filter classes below repeat one loop shape on purpose: one class per column type keeps each
// call site monomorphic (an Int32Array and a Float32Array behind one field make the JIT fall back to
// generic element access), and `refine` (over a selection) vs `refineRange` (over a contiguous row
// range, no selection array read) is the difference between a gather and a streaming scan.
export class IntRangeFilter implements Filter {
  constructor(readonly col: Int32Array, readonly lo: number, readonly hi: number) {}
  fused(): FusedTerm {
    return { shape: 'int', args: [this.col, this.lo, this.hi], code: ([c, lo, hi]) => `${c}[r] >= ${lo} && ${c}[r] <= ${hi}` }
  }
  refine(sel: Int32Array, len: number): number {
    const { col, lo, hi } = this
    let m = 0
    for (let i = 0; i < len; i++) {
      const r = sel[i]
      const v = col[r]
      sel[m] = r
      m += v >= lo && v <= hi ? 1 : 0
    }
    return m
  }
  refineRange(from: number, to: number, out: Int32Array): number {
    const { col, lo, hi } = this
    let m = 0
    for (let r = from; r < to; r++) {
      const v = col[r]
      out[m] = r
      m += v >= lo && v <= hi ? 1 : 0
    }
    return m
  }
}

export class IntervalsFilter implements Filter {
  readonly los: Int32Array
  readonly his: Int32Array
  constructor(readonly col: Int32Array, ranges: IntRange[]) {
    this.los = Int32Array.from(ranges.map((r) => r.lo))
    this.his = Int32Array.from(ranges.map((r) => r.hi))
  }
  fused(): FusedTerm {
    const k = this.los.length
    const args: unknown[] = [this.col]
    for (let j = 0; j < k; j++) args.push(this.los[j], this.his[j])
    return {
      shape: `intervals${k}`,
      args,
      code: ([c, ...b]) => (k === 0 ? 'false' : Array.from({ length: k }, (_, j) => `(${c}[r] >= ${b[2 * j]} && ${c}[r] <= ${b[2 * j + 1]})`).join(' || ')),
    }
  }
  refine(sel: Int32Array, len: number): number {
    const { col, los, his } = this
    const k = los.length
    let m = 0
    for (let i = 0; i < len; i++) {
      const r = sel[i]
      const v = col[r]
      let ok = 0
      for (let j = 0; j < k; j++) ok |= v >= los[j] && v <= his[j] ? 1 : 0
      sel[m] = r
      m += ok
    }
    return m
  }
  refineRange(from: number, to: number, out: Int32Array): number {
    const { col, los, his } = this
    const k = los.length
    let m = 0
    for (let r = from; r < to; r++) {
      const v = col[r]
      let ok = 0
      for (let j = 0; j < k; j++) ok |= v >= los[j] && v <= his[j] ? 1 : 0
      out[m] = r
      m += ok
    }
    return m
  }
}

export class FloatRangeFilter implements Filter {
  constructor(readonly col: Float32Array | Float64Array, readonly lo: number, readonly hi: number) {}
  fused(): FusedTerm {
    // The array type is part of the shape: one compiled loop per element type stays monomorphic.
    return { shape: this.col instanceof Float32Array ? 'f32' : 'f64', args: [this.col, this.lo, this.hi], code: ([c, lo, hi]) => `${c}[r] >= ${lo} && ${c}[r] <= ${hi}` }
  }
  refine(sel: Int32Array, len: number): number {
    const { col, lo, hi } = this
    let m = 0
    for (let i = 0; i < len; i++) {
      const r = sel[i]
      const v = col[r]
      sel[m] = r
      m += v >= lo && v <= hi ? 1 : 0
    }
    return m
  }
  refineRange(from: number, to: number, out: Int32Array): number {
    const { col, lo, hi } = this
    let m = 0
    for (let r = from; r < to; r++) {
      const v = col[r]
      out[m] = r
      m += v >= lo && v <= hi ? 1 : 0
    }
    return m
  }
}

/** Keeps rows whose dictionary (or rover) code is allowed. */
export class CodeSetFilter implements Filter {
  constructor(readonly codes: ArrayLike<number>, readonly allowed: Uint8Array) {}
  fused(): FusedTerm {
    return { shape: `codes-${this.codes.constructor.name}`, args: [this.codes, this.allowed], code: ([c, ok]) => `${ok}[${c}[r]] !== 0` }
  }
  refine(sel: Int32Array, len: number): number {
    const { codes, allowed } = this
    let m = 0
    for (let i = 0; i < len; i++) {
      const r = sel[i]
      sel[m] = r
      m += allowed[codes[r]]
    }
    return m
  }
  refineRange(from: number, to: number, out: Int32Array): number {
    const { codes, allowed } = this
    let m = 0
    for (let r = from; r < to; r++) {
      out[m] = r
      m += allowed[codes[r]]
    }
    return m
  }
}

/** width / height within [lo, hi]; rows without both dimensions never pass. */
export class AspectRatioFilter implements Filter {
  /** `ratio`: the precomputed fround(width / height) column (access paths, NaN without both), when the index has it. */
  constructor(readonly width: Int32Array, readonly height: Int32Array, readonly lo: number, readonly hi: number, readonly ratio?: Float32Array) {}
  fused(): FusedTerm {
    // 4 bytes a row instead of two columns and a division. fround is monotone, so with
    // L = fround(lo), H = fround(hi): L < f < H implies lo <= width/height <= hi, f < L or f > H
    // excludes the row, and only f equal to L or H needs the exact test.
    if (this.ratio) {
      return {
        shape: 'aspect-column',
        args: [this.ratio, Math.fround(this.lo), Math.fround(this.hi), this.width, this.height, this.lo, this.hi],
        code: ([q, L, H, w, h, lo, hi]) => `${q}[r] >= ${L} && ${q}[r] <= ${H} && ((${q}[r] !== ${L} && ${q}[r] !== ${H}) || (${w}[r] / ${h}[r] >= ${lo} && ${w}[r] / ${h}[r] <= ${hi}))`,
      }
    }
    return {
      shape: 'aspect',
      args: [this.width, this.height, this.lo, this.hi],
      code: ([w, h, lo, hi]) => `${w}[r] >= 0 && ${h}[r] > 0 && ${w}[r] / ${h}[r] >= ${lo} && ${w}[r] / ${h}[r] <= ${hi}`,
    }
  }
  refine(sel: Int32Array, len: number): number {
    const { width, height, lo, hi } = this
    let m = 0
    for (let i = 0; i < len; i++) {
      const r = sel[i]
      const w = width[r]
      const h = height[r]
      const q = w / h
      sel[m] = r
      m += w >= 0 && h > 0 && q >= lo && q <= hi ? 1 : 0
    }
    return m
  }
  refineRange(from: number, to: number, out: Int32Array): number {
    const { width, height, lo, hi } = this
    let m = 0
    for (let r = from; r < to; r++) {
      const w = width[r]
      const h = height[r]
      const q = w / h
      out[m] = r
      m += w >= 0 && h > 0 && q >= lo && q <= hi ? 1 : 0
    }
    return m
  }
}

/** Case-insensitive substring of nasa_id, tested on the pre-folded bytes (access paths). */
export class SubstringFilter implements Filter {
  constructor(readonly folded: Utf8Column, readonly needle: Uint8Array) {}
  refine(sel: Int32Array, len: number): number {
    let m = 0
    for (let i = 0; i < len; i++) {
      const r = sel[i]
      if (this.holds(r)) sel[m++] = r
    }
    return m
  }
  refineRange(from: number, to: number, out: Int32Array): number {
    let m = 0
    for (let r = from; r < to; r++) if (this.holds(r)) out[m++] = r
    return m
  }
  holds(r: number): boolean {
    const { data, offsets } = this.folded
    const nd = this.needle
    const k = nd.length
    const first = nd[0]
    const end = offsets[r + 1] - k
    for (let a = offsets[r]; a <= end; a++) {
      if (data[a] !== first) continue
      let j = 1
      while (j < k && data[a + j] === nd[j]) j++
      if (j === k) return true
    }
    return false
  }
}

/** Keeps nothing (a filter whose bounds exclude every value). */
export class NoneFilter implements Filter {
  fused(): FusedTerm {
    return { shape: 'none', args: [], code: () => 'false' }
  }
  refine(): number {
    return 0
  }
  refineRange(): number {
    return 0
  }
}

/** The compiled filters of a plan, by name, or `empty` when a bound excludes everything up front. */
export interface CompiledFilters {
  byName: Map<FilterName, Filter>
  empty: boolean
}

export function compileFilters(p: PhotoColumns, folded: Utf8Column, f: PhotoFilters, aspectRatio?: Float32Array): CompiledFilters {
  const byName = new Map<FilterName, Filter>()
  let empty = false
  const int = (name: FilterName, col: Int32Array, r: IntRange | undefined, floor = 0) => {
    if (!r) return
    const lo = Math.max(r.lo, floor)
    if (lo > r.hi) empty = true
    byName.set(name, new IntRangeFilter(col, lo, r.hi))
  }
  const float = (name: FilterName, col: Float32Array | Float64Array, r: FloatRange | undefined) => {
    if (!r) return
    if (!(r.lo <= r.hi)) empty = true
    byName.set(name, new FloatRangeFilter(col, r.lo, r.hi))
  }
  if (f.nasaId !== undefined) {
    const needle = new TextEncoder().encode(f.nasaId)
    byName.set('nasaId', needle.length === 0 ? new NoneFilter() : new SubstringFilter(folded, needle))
  }
  if (f.rovers) {
    const allowed = new Uint8Array(256)
    for (const c of f.rovers) allowed[c] = 1
    byName.set('rovers', new CodeSetFilter(p.rover, allowed))
  }
  if (f.cameras) {
    const allowed = dictMask(p.camera.dict, new Set(f.cameras), (s) => s)
    if (!allowed.includes(1)) empty = true
    byName.set('cameras', new CodeSetFilter(p.camera.codes, allowed))
  }
  int('sol', p.sol, f.sol)
  int('earthDate', p.earth_date, f.earthDate)
  int('site', p.site, f.site)
  int('drive', p.drive, f.drive)
  int('width', p.width, f.width)
  int('height', p.height, f.height)
  if (f.marsTime) {
    const ranges = f.marsTime.filter((r) => r.lo <= r.hi).map((r) => ({ lo: Math.max(0, r.lo), hi: r.hi }))
    if (ranges.length === 0) empty = true
    byName.set('marsTime', new IntervalsFilter(p.mars_time_ms, ranges))
  }
  if (f.sampleTypes) {
    const allowed = dictMask(p.sample_type.dict, new Set(f.sampleTypes), (s) => s.toLowerCase())
    if (!allowed.includes(1)) empty = true
    byName.set('sampleTypes', new CodeSetFilter(p.sample_type.codes, allowed))
  }
  if (f.aspectRatio) {
    if (!(f.aspectRatio.lo <= f.aspectRatio.hi)) empty = true
    byName.set('aspectRatio', new AspectRatioFilter(p.width, p.height, f.aspectRatio.lo, f.aspectRatio.hi, aspectRatio))
  }
  float('mastElevation', p.mast_elevation, f.mastElevation)
  float('mastAzimuth', p.mast_azimuth, f.mastAzimuth)
  return { byName, empty }
}

/** 1 for each dictionary code whose (normalised) value is wanted; "" (absent) never is. */
function dictMask(dict: string[], wanted: Set<string>, norm: (s: string) => string): Uint8Array {
  const mask = new Uint8Array(Math.max(dict.length, 1))
  dict.forEach((v, i) => { if (v !== '' && wanted.has(norm(v))) mask[i] = 1 })
  return mask
}
