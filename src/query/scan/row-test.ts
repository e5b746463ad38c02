import type { Filter } from './filters'

/**
 * The loops that run filters, generated from their one definition (filters.ts): a RowTest is
 * the conjunction of some filters, and each of its loops is compiled once per combination of
 * filter shapes with `new Function`, then cached. Three loops come from the same generator:
 *  - `scan(from, to, perm, out, m)`: the positions [from, to) of a permutation (the rows
 *    themselves when perm is null), every filter tested per row in one pass (a "fused" scan);
 *  - `refine(sel, len)`: a row list, kept in place and in order;
 *  - `refineRange(from, to, out)`: a stretch of the table in row order, no row list read.
 * The row-list and row-range forms are two compiled functions (a mode switch inside one loop
 * costs the JIT about half its speed, measured), and one function per combination keeps each
 * hot loop monomorphic, where a per-row call through filter objects would be polymorphic.
 *
 * Generated code holds only the filters' static templates: every value it reads (columns,
 * bounds) is an argument, so request data never becomes code, the cache stays small (one entry
 * per combination of filter kinds), and each compiled loop stays hot across requests.
 *
 * The loops write every row and advance the output by the test's 0/1 (no data-dependent
 * branch: a mispredicted branch per row costs more than the store); the filters run in the
 * order given (the planner puts the most selective first) and stop at the first failure.
 */
type Loop = (from: number, to: number, perm: Int32Array | null, out: Int32Array, m: number, args: readonly unknown[]) => number

const compiled = new Map<string, Loop>()
const MAX_LOOPS = 256

export class RowTest {
  readonly #key: string
  readonly #filters: readonly Filter[]
  readonly #args: readonly unknown[]
  #overRows?: Loop
  #overPerm?: Loop

  constructor(filters: readonly Filter[]) {
    this.#filters = filters
    this.#key = filters.map((f) => f.shape).join('|')
    const args: unknown[] = []
    for (const f of filters) for (const a of f.args) args.push(a)
    this.#args = args
  }

  /**
   * Appends to out[m..] the rows of positions [from, to) (the positions themselves when perm is
   * null, else perm[pos]) that pass; returns the new length. out may be perm itself when m <= from.
   */
  scan(from: number, to: number, perm: Int32Array | null, out: Int32Array, m: number): number {
    const loop = perm === null ? (this.#overRows ??= loopFor('R', this.#key, this.#filters)) : (this.#overPerm ??= loopFor('P', this.#key, this.#filters))
    return loop(from, to, perm, out, m, this.#args)
  }

  /** Keeps, in place and in order, the rows of sel[0..len) that pass; returns how many remain. */
  refine(sel: Int32Array, len: number): number {
    return this.scan(0, len, sel, sel, 0)
  }

  /** The rows from..to-1 that pass, written to out from 0; returns how many. */
  refineRange(from: number, to: number, out: Int32Array): number {
    return this.scan(from, to, null, out, 0)
  }
}

function loopFor(mode: 'R' | 'P', key: string, filters: readonly Filter[]): Loop {
  const k = mode + key
  let loop = compiled.get(k)
  if (!loop) {
    loop = compile(filters, mode === 'P')
    if (compiled.size >= MAX_LOOPS) compiled.clear()
    compiled.set(k, loop)
  }
  return loop
}

function compile(filters: readonly Filter[], viaPerm: boolean): Loop {
  const locals: string[] = []
  const tests: string[] = []
  for (const f of filters) {
    const names = f.args.map((_, i) => `a${locals.length + i}`)
    for (const n of names) locals.push(`const ${n} = args[${locals.length}];`)
    tests.push(`(${f.code(names)})`)
  }
  // One && chain into 0/1: JSC compiles it to compares and jumps; combining booleans with `&`
  // (number conversions) measured 2-3 times slower.
  const lone = filters.length === 1 ? filters[0].bit?.(locals.map((_, i) => `a${i}`)) : undefined
  const test = lone ?? (tests.length ? '(' + tests.join(' && ') + ' ? 1 : 0)' : '1')
  const body = `
    ${locals.join('\n    ')}
    for (let i = from; i < to; i++) {
      const r = ${viaPerm ? 'perm[i]' : 'i'};
      out[m] = r;
      m += ${test};
    }
    return m;`
  return new Function('from', 'to', 'perm', 'out', 'm', 'args', body) as Loop
}
