import type { DictColumn, Utf8Column } from '../../src/store/schema'

const encoder = new TextEncoder()

/**
 * Appends UTF-8 values into one growing byte buffer plus Int32 offsets (the Arrow Utf8 layout),
 * so a 2M-row string column is two typed arrays, not 2M strings. A value is built from parts
 * (`text`, `int`) and closed with `end()`.
 */
export class Utf8Builder {
  #data: Uint8Array
  #offsets: Int32Array
  #length = 0
  #pos = 0

  constructor(rows = 1024, bytesPerRow = 16) {
    this.#offsets = new Int32Array(rows + 1)
    this.#data = new Uint8Array(Math.max(64, Math.ceil(rows * bytesPerRow) + 256))
  }

  get length(): number {
    return this.#length
  }

  #room(n: number): void {
    if (this.#pos + n <= this.#data.length) return
    // 1.5x, not 2x: a column of several hundred MB would otherwise waste up to half of its buffer.
    let size = Math.ceil(this.#data.length * 1.5)
    while (size < this.#pos + n) size = Math.ceil(size * 1.5)
    const next = new Uint8Array(size)
    next.set(this.#data.subarray(0, this.#pos))
    this.#data = next
  }

  /** Appends text to the open value. */
  text(s: string): this {
    const n = s.length
    this.#room(n * 3)
    const d = this.#data
    let p = this.#pos
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i)
      if (c >= 0x80) {
        p += encoder.encodeInto(s.slice(i), d.subarray(p)).written
        this.#pos = p
        return this
      }
      d[p++] = c
    }
    this.#pos = p
    return this
  }

  /** Appends pre-encoded bytes to the open value. */
  bytes(b: Uint8Array): this {
    this.#room(b.length)
    this.#data.set(b, this.#pos)
    this.#pos += b.length
    return this
  }

  /** Appends a non-negative integer, zero-padded to `width` digits. */
  int(n: number, width = 1): this {
    this.#room(20 + width)
    const d = this.#data
    let digits = 1
    for (let v = n; v >= 10; v = Math.floor(v / 10)) digits++
    const w = Math.max(width, digits)
    let p = this.#pos + w - 1
    let v = n
    for (let k = 0; k < w; k++) {
      d[p--] = 48 + (v % 10)
      v = Math.floor(v / 10)
    }
    this.#pos += w
    return this
  }

  /** Closes the open value (an empty value is the absent string ""). */
  end(): void {
    if (this.#length + 1 >= this.#offsets.length) {
      const next = new Int32Array(this.#offsets.length * 2)
      next.set(this.#offsets)
      this.#offsets = next
    }
    if (this.#pos > 0x7fffffff) throw new Error('Utf8 column over 2 GiB')
    this.#offsets[++this.#length] = this.#pos
  }

  /** The bytes of the last closed value (a view: copy it before appending more). */
  lastValue(): Uint8Array {
    return this.#data.subarray(this.#offsets[this.#length - 1], this.#offsets[this.#length])
  }

  /** Appends one whole value. */
  push(s: string | undefined): void {
    if (s) this.text(s)
    this.end()
  }

  finish(): Utf8Column {
    return { data: this.#data.subarray(0, this.#pos), offsets: this.#offsets.subarray(0, this.#length + 1) }
  }
}

/** A Utf8 column holding `values` in order. */
export function utf8Column(values: readonly (string | undefined)[]): Utf8Column {
  // Sized for ASCII values plus the room text() asks for the longest, so a big dictionary (an
  // update's 260,000 captions, 67 MB) is not copied at each growth step.
  let chars = 0
  let longest = 0
  for (const v of values) {
    const n = v ? v.length : 0
    chars += n
    if (n > longest) longest = n
  }
  const b = new Utf8Builder(values.length, values.length > 0 ? (chars + 3 * longest) / values.length : 0)
  for (const v of values) b.push(v)
  return b.finish()
}

/** Assigns dictionary codes in first-seen order; "" is a value like any other (absent). */
export class DictBuilder {
  readonly dict: string[] = []
  #codes = new Map<string, number>()

  code(value: string): number {
    let c = this.#codes.get(value)
    if (c === undefined) {
      c = this.dict.length
      this.dict.push(value)
      this.#codes.set(value, c)
    }
    return c
  }

  get size(): number {
    return this.dict.length
  }
}

/** A DictColumn from codes, with the narrowest code array that holds the dictionary. */
export function dictColumn(codes: ArrayLike<number>, dict: string[]): DictColumn {
  const n = dict.length
  const Codes = n <= 127 ? Int8Array : n <= 32767 ? Int16Array : Int32Array
  return { codes: codes instanceof Codes ? codes : Codes.from(codes), dict }
}
