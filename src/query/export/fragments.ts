import type { ByteOut } from './byte-out'

/**
 * Pre-encoded bytes of a dictionary's values in one output form (a JSON member, a CSV field, a
 * JSON string's inside), by code, in one pool: fragment i is pool[start[i] .. start[i+1]). The
 * last entry is the form of "" (written for a code the dictionary does not hold). Tables live as
 * long as the dictionary array (the snapshot's): repeated exports of a snapshot encode nothing
 * again. An export attaches the pool to its output buffer once (bind) and copies fragments from
 * there (ByteOut#frag).
 */
export class Fragments {
  readonly pool: Buffer
  readonly start: Int32Array
  /** Bytes of the longest fragment. */
  readonly widest: number

  constructor(values: readonly string[], encode: (value: string) => string) {
    const texts = values.map((v) => encode(v))
    texts.push(encode(''))
    this.start = new Int32Array(texts.length + 1)
    let size = 0
    for (let i = 0; i < texts.length; i++) {
      this.start[i] = size
      size += Buffer.byteLength(texts[i]!, 'utf8')
    }
    this.start[texts.length] = size
    let widest = 0
    for (let i = 0; i < texts.length; i++) widest = Math.max(widest, this.start[i + 1]! - this.start[i]!)
    this.widest = widest
    this.pool = Buffer.allocUnsafeSlow(size)
    for (let i = 0; i < texts.length; i++) this.pool.write(texts[i]!, this.start[i]!, 'utf8')
  }

  /** The table as written into `out` (its pool attached there). */
  bind(out: ByteOut): BoundFragments {
    return new BoundFragments(this, out.attach(this.pool))
  }
}

export class BoundFragments {
  readonly #start: Int32Array
  readonly #last: number
  readonly widest: number
  constructor(readonly table: Fragments, readonly base: number) {
    this.#start = table.start
    this.#last = table.start.length - 2
    this.widest = table.widest
  }

  /** Writes the fragment of `code` into the output it is bound to. */
  write(out: ByteOut, code: number): void {
    const i = code >= 0 && code < this.#last ? code : this.#last
    out.frag(this.base + this.#start[i]!, this.base + this.#start[i + 1]!)
  }

  /** Byte length of the fragment of `code` (0 for an empty one). */
  size(code: number): number {
    const i = code >= 0 && code < this.#last ? code : this.#last
    return this.#start[i + 1]! - this.#start[i]!
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
