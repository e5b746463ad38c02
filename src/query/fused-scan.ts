import type { Filter } from './filters'

/**
 * One pass over a stretch of rows testing every filter per row (a "fused" scan), for the
 * scans that touch most of the table (dimension, angle, time-of-day bounds without an index
 * narrowing them).
 *
 * Why generated code: the filter-by-filter refinement (filters.ts) writes a selection per
 * filter and reads it back, and a generic per-row loop over filter objects would make one
 * polymorphic call per row and filter. Instead each filter describes its test as a small
 * expression template (FusedTerm), and the loop for a combination of templates is compiled
 * once with `new Function` and cached by the combination's shape: every value the code reads
 * (columns, bounds) is an argument, so the code text never holds request data, the cache
 * stays small (one entry per combination of filter kinds), and each compiled loop stays hot
 * and monomorphic across requests.
 *
 * The loop writes every row to `out` and advances by the test's 0/1, like the refine loops;
 * the terms run most selective first (the planner orders them) and stop at the first failure.
 */
export interface FusedTerm {
  /** Shape of the code (equal shapes compile to equal code). */
  shape: string
  /** What the code reads, passed in as arguments (columns, bounds). */
  args: unknown[]
  /** A boolean JS expression for row `r`, over the given argument names. */
  code(a: string[]): string
}

/** Filters that can join a fused scan. */
export interface Fusable extends Filter {
  fused(): FusedTerm | undefined
}

type Loop = (from: number, to: number, perm: Int32Array | null, out: Int32Array, m: number, ...args: unknown[]) => number

const compiled = new Map<string, Loop>()
const MAX_LOOPS = 256

/** The fused terms of `filters`, or undefined when one of them cannot be fused. */
export function fusedTerms(filters: Filter[]): FusedTerm[] | undefined {
  const terms: FusedTerm[] = []
  for (const f of filters) {
    const t = (f as Partial<Fusable>).fused?.()
    if (!t) return undefined
    terms.push(t)
  }
  return terms
}

/**
 * Appends to out[m..] the rows of positions [from, to) (rows themselves when perm is null,
 * else perm[pos]) that pass every term; returns the new length.
 */
export function fusedScan(terms: FusedTerm[], from: number, to: number, perm: Int32Array | null, out: Int32Array, m: number): number {
  const key = (perm === null ? 'R' : 'P') + terms.map((t) => t.shape).join('|')
  let loop = compiled.get(key)
  if (!loop) {
    loop = compile(terms, perm !== null)
    if (compiled.size >= MAX_LOOPS) compiled.clear()
    compiled.set(key, loop)
  }
  const args: unknown[] = []
  for (const t of terms) for (const a of t.args) args.push(a)
  return loop(from, to, perm, out, m, ...args)
}

function compile(terms: FusedTerm[], viaPerm: boolean): Loop {
  const params: string[] = []
  const tests: string[] = []
  for (const t of terms) {
    const names = t.args.map((_, i) => `a${params.length + i}`)
    params.push(...names)
    tests.push(`(${t.code(names)})`)
  }
  // One && chain into 0/1: JSC compiles it to compares and jumps; combining booleans with `&`
  // (number conversions) measured 2-3 times slower.
  const test = tests.length ? '(' + tests.join(' && ') + ' ? 1 : 0)' : '1'
  const body = `
    for (let i = from; i < to; i++) {
      const r = ${viaPerm ? 'perm[i]' : 'i'};
      out[m] = r;
      m += ${test};
    }
    return m;`
  return new Function('from', 'to', 'perm', 'out', 'm', ...params, body) as Loop
}
