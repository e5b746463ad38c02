import type { ByteSink } from './byte-sink'

/**
 * A bounded memo of short byte texts keyed on a few numbers: direct-mapped slots (a new entry
 * takes its slot over from whatever was there), each holding up to `width` bytes and `arity`
 * key numbers compared with `===`. Photo JSON keeps in one the texts that are costly to write
 * and repeat across rows: numbers (float32-text.ts), a photo's location member and its four
 * dictionary members (photo-json.ts). The caller hashes its key to a slot, tests the keys
 * (`is`), and either copies the slot's text out (`copyOut`: one copy instead of the writes
 * that made it) or writes the text and keeps it (`keep`).
 *
 * Keys start as NaN, which equals nothing, so an empty slot never answers. A key must decide
 * the text exactly; -0 and 0 are the same key, so a text may depend on a number's value only
 * as far as those two write the same. Memory is fixed at construction: slots × (arity × 8 +
 * 2 + width) bytes.
 */
export class ByteMemo {
  readonly keys: Float64Array
  /** Bytes held per slot (0: an empty text, which is a text too once the keys match). */
  readonly lens: Uint16Array
  readonly bytes: Buffer
  readonly view: DataView
  readonly mask: number
  readonly shift: number

  constructor(readonly slotBits: number, readonly arity: number, readonly width: number) {
    const slots = 1 << slotBits
    this.keys = new Float64Array(slots * arity).fill(NaN)
    this.lens = new Uint16Array(slots)
    this.bytes = Buffer.alloc(slots * width)
    this.view = new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength)
    this.mask = slots - 1
    this.shift = 32 - slotBits
  }

  /** The slot of a 32-bit hash (its high bits, which a multiplicative hash mixes best). */
  slot(hash: number): number {
    return hash >>> this.shift
  }

  /** Copies slot s's text to the sink. */
  copyOut(sink: ByteSink, s: number): void {
    const a = s * this.width
    sink.copyFrom(this.bytes, this.view, a, a + this.lens[s])
  }

  /**
   * Keeps bytes src[a..e) as slot s's text (keys set by the caller after this); false when the
   * text is too long for a slot (the slot is emptied: its old keys no longer match its bytes).
   */
  keep(s: number, src: Uint8Array, a: number, e: number): boolean {
    const n = e - a
    if (n > this.width) {
      this.keys[s * this.arity] = NaN
      return false
    }
    const b = this.bytes
    let o = s * this.width
    for (let i = a; i < e; i++) b[o++] = src[i]
    this.lens[s] = n
    return true
  }
}

/** Scratch views for hashing a double's bits. */
const f64 = new Float64Array(1)
const f64Bits = new Uint32Array(f64.buffer)

/** A 32-bit multiplicative hash of a double's bits (equal for -0 and 0, which are one key). */
export function hashDouble(x: number, seed: number): number {
  f64[0] = x === 0 ? 0 : x
  return Math.imul(Math.imul(f64Bits[0] ^ seed, 0x85ebca6b) ^ f64Bits[1], 0x9e3779b1)
}

/** Mixes a 32-bit integer into a running hash. */
export function hashInt(h: number, v: number): number {
  return Math.imul(h ^ v, 0x9e3779b1) ^ (h >>> 15)
}
