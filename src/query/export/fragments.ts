import type { ByteOut } from './byte-out'

/**
 * Pre-encoded bytes of a dictionary's values in one output form (a JSON member, a CSV field, a
 * JSON string's inside), by code: each value is encoded the first time a row uses it and kept
 * in one pooled buffer, so a row writes its value with one copy. Tables live as long as the
 * dictionary array (the snapshot's): repeated exports of a snapshot encode nothing again.
 */
export class Fragments {
  readonly #start: Int32Array
  readonly #end: Int32Array
  #pool: Buffer
  #used = 0

  constructor(readonly values: readonly string[], readonly encode: (value: string) => string) {
    this.#start = new Int32Array(values.length + 1).fill(-1)
    this.#end = new Int32Array(values.length + 1)
    this.#pool = Buffer.allocUnsafeSlow(Math.min(1 << 16, 64 + values.length * 16))
  }

  /** Writes the fragment of `code` (a code outside the dictionary writes the empty value's). */
  write(out: ByteOut, code: number): void {
    let a = this.#start[code]
    if (a === undefined) return this.write(out, this.values.length)
    if (a < 0) a = this.#fill(code)
    out.copy(this.#pool, a, this.#end[code]!)
  }

  /** Byte length of the fragment of `code` (0 for an empty one). */
  size(code: number): number {
    let a = this.#start[code]
    if (a === undefined) return this.size(this.values.length)
    if (a < 0) a = this.#fill(code)
    return this.#end[code]! - a
  }

  #fill(code: number): number {
    const text = this.encode(this.values[code] ?? '')
    const need = Buffer.byteLength(text, 'utf8')
    if (this.#used + need > this.#pool.length) {
      let cap = this.#pool.length * 2
      while (cap < this.#used + need) cap *= 2
      const next = Buffer.allocUnsafeSlow(cap)
      this.#pool.copy(next, 0, 0, this.#used)
      this.#pool = next
    }
    const a = this.#used
    this.#used += this.#pool.write(text, a, 'utf8')
    this.#start[code] = a
    this.#end[code] = this.#used
    return a
  }
}

const tables = new WeakMap<readonly string[], Map<string, Fragments>>()

/** The fragment table of `values` in the form named `kind` (one per dictionary array and form). */
export function fragmentsOf(values: readonly string[], kind: string, encode: (value: string) => string): Fragments {
  let byKind = tables.get(values)
  if (!byKind) tables.set(values, (byKind = new Map()))
  let t = byKind.get(kind)
  if (!t) byKind.set(kind, (t = new Fragments(values, encode)))
  return t
}
