/**
 * A reusable output buffer that export writers render rows into as bytes: no string and no
 * object per row. The stream hands `view()` to the response sink (which copies what it cannot
 * send at once, so the buffer is reused for the next chunk right after) and calls `reset()`.
 * The buffer grows (by doubling) until one chunk fits, then stays: a full export allocates it
 * once.
 */
export class ByteOut {
  /** [0, cap): the output; [cap, cap + atlas size): the attached fragment pools (attach). */
  buf: Buffer
  pos = 0
  cap: number
  #atlasSize = 0
  readonly #attached = new Map<Buffer, number>()

  constructor(capacity = 1 << 20) {
    this.cap = capacity
    this.buf = Buffer.allocUnsafeSlow(capacity)
  }

  /** Room for `n` more bytes. */
  ensure(n: number): void {
    if (this.pos + n > this.cap) this.#grow(n, 0)
  }

  /** A bigger buffer: the output grown to hold `n` more bytes, the atlas to hold `atlasMore` more. */
  #grow(n: number, atlasMore: number): void {
    let cap = this.cap
    while (cap < this.pos + n) cap *= 2
    let atlas = this.buf.length - this.cap
    if (this.#atlasSize + atlasMore > atlas) atlas = Math.max(2 * atlas, this.#atlasSize + atlasMore)
    const next = Buffer.allocUnsafeSlow(cap + atlas)
    this.buf.copy(next, 0, 0, this.pos)
    this.buf.copy(next, cap, this.cap, this.cap + this.#atlasSize)
    this.buf = next
    this.cap = cap
  }

  /**
   * Copies a pool of pre-encoded fragments into this buffer's atlas once, and returns where it
   * starts there: frag() then copies a fragment with copyWithin, a native copy inside one buffer
   * that costs a fraction of a copy between two (the fragments are most of a row's bytes).
   */
  attach(pool: Buffer): number {
    let at = this.#attached.get(pool)
    if (at !== undefined) return at
    at = this.#atlasSize
    if (at + pool.length > this.buf.length - this.cap) this.#grow(0, pool.length)
    pool.copy(this.buf, this.cap + at)
    this.#atlasSize += pool.length
    this.#attached.set(pool, at)
    return at
  }

  /** Copies the atlas bytes [a, b) (offsets from attach) to the output. */
  frag(a: number, b: number): void {
    const len = b - a
    if (this.pos + len > this.cap) this.#grow(len, 0)
    const buf = this.buf
    if (len < 16) {
      // A native call costs more than a few byte moves.
      let p = this.pos
      for (let i = this.cap + a, e = this.cap + b; i < e; i++) buf[p++] = buf[i]!
      this.pos = p
      return
    }
    buf.copyWithin(this.pos, this.cap + a, this.cap + b)
    this.pos += len
  }

  /** Runs of the buffer's own bytes and views handed over as they are, in order (own runs are copied out at drain). */
  #pieces: Uint8Array[] = []
  #own: boolean[] = []
  #mark = 0

  /**
   * Appends `view` to the output. A large view of memory that never changes (`stable`: a slice
   * of the snapshot's own columns) is handed to the sink as it is; anything else is copied into
   * the buffer (a view of memory that is reused, or small enough that one write of the whole
   * costs less than a piece of its own).
   */
  external(view: Uint8Array, stable: boolean): void {
    if (!stable || view.byteLength < EXTERNAL_MIN) {
      this.ensure(view.byteLength)
      this.buf.set(view, this.pos)
      this.pos += view.byteLength
      return
    }
    if (this.pos > this.#mark) {
      this.#pieces.push(this.buf.subarray(this.#mark, this.pos))
      this.#own.push(true)
    }
    this.#pieces.push(view)
    this.#own.push(false)
    this.#mark = this.pos
  }

  /**
   * Everything written since the last drain, in order, to `write`; then the buffer is reused.
   * With `copy`, the buffer's own bytes go out as a copy: a sink may keep the very bytes it is
   * given (Bun's direct stream does when the body is read whole with Response#text), and the
   * next chunk overwrites the buffer. Returns the last write's result.
   */
  drain<R>(write: (bytes: Uint8Array) => R, copy = true): R | undefined {
    let r: R | undefined
    for (let i = 0; i < this.#pieces.length; i++) r = write(this.#own[i] && copy ? copyOf(this.#pieces[i]!) : this.#pieces[i]!)
    if (this.pos > this.#mark) {
      const own = this.buf.subarray(this.#mark, this.pos)
      r = write(copy ? copyOf(own) : own)
    }
    this.#pieces.length = 0
    this.#own.length = 0
    this.#mark = 0
    this.pos = 0
    return r
  }

  /** Forgets what was written (and not drained). */
  reset(): void {
    this.#pieces.length = 0
    this.#own.length = 0
    this.#mark = 0
    this.pos = 0
  }

  /** Bytes waiting to be drained. */
  get size(): number {
    let s = this.pos - this.#mark
    for (const p of this.#pieces) s += p.byteLength
    return s
  }

  /** A little-endian int32 (Arrow IPC framing). */
  int32le(v: number): void {
    this.ensure(4)
    this.buf.writeInt32LE(v, this.pos)
    this.pos += 4
  }

  /** `n` zero bytes (Arrow IPC padding). */
  zeros(n: number): void {
    this.ensure(n)
    this.buf.fill(0, this.pos, this.pos + n)
    this.pos += n
  }

  byte(b: number): void {
    if (this.pos >= this.cap) this.#grow(1, 0)
    this.buf[this.pos++] = b
  }

  /**
   * Copies src[a..b). Short runs by a loop (a native call costs more than a few bytes), longer
   * ones natively (Buffer#copy takes offsets: no view object per call).
   */
  copy(src: Buffer, a: number, b: number): void {
    const len = b - a
    if (this.pos + len > this.cap) this.#grow(len, 0)
    if (len < 24) {
      const buf = this.buf
      let p = this.pos
      for (let i = a; i < b; i++) buf[p++] = src[i]!
      this.pos = p
    } else {
      src.copy(this.buf, this.pos, a, b)
      this.pos += len
    }
  }

  /** Copies all of `src` (a pre-encoded fragment). */
  bytes(src: Buffer): void {
    this.copy(src, 0, src.length)
  }

  /** A JS string known to be ASCII or any text (encoded as UTF-8): only off the per-row path. */
  text(s: string): void {
    this.ensure(s.length * 3)
    this.pos += this.buf.write(s, this.pos, 'utf8')
  }

  /** Decimal digits of an integer (|n| < 2^53). */
  int(n: number): void {
    if (this.pos + 17 > this.cap) this.#grow(17, 0)
    const buf = this.buf
    if (n < 0) {
      buf[this.pos++] = 0x2d
      n = -n
    }
    if (n < 10) {
      buf[this.pos++] = 0x30 + n
      return
    }
    if (n < 2147483648) {
      // int32 arithmetic: the ids, sols and sizes of every row.
      const digits = n < 100 ? 2 : n < 1000 ? 3 : n < 10000 ? 4 : n < 100000 ? 5 : n < 1000000 ? 6 : n < 10000000 ? 7 : n < 100000000 ? 8 : n < 1000000000 ? 9 : 10
      let p = this.pos + digits
      this.pos = p
      let m = n | 0
      while (m >= 10) {
        const q = (m / 10) | 0
        buf[--p] = 0x30 + m - q * 10
        m = q
      }
      buf[--p] = 0x30 + m
      return
    }
    let digits = 1
    for (let m = n; m >= 10; m = Math.floor(m / 10)) digits++
    let p = this.pos + digits
    this.pos = p
    while (n >= 10) {
      const q = Math.floor(n / 10)
      buf[--p] = 0x30 + (n - q * 10)
      n = q
    }
    buf[--p] = 0x30 + n
  }

  /** `n` as exactly `width` digits with leading zeros (0 <= n < 10^width < 2^31). */
  padded(n: number, width: number): void {
    if (this.pos + width > this.cap) this.#grow(width, 0)
    const buf = this.buf
    let p = this.pos + width
    this.pos = p
    for (let i = 0; i < width; i++) {
      const q = (n / 10) | 0
      buf[--p] = 0x30 + (n - q * 10)
      n = q
    }
  }
}

/** Views at least this large are written as they are rather than copied (ByteOut#external). */
const EXTERNAL_MIN = 32 * 1024

/** A copy in memory of its own (Buffer#slice would be a view). */
function copyOf(view: Uint8Array): Uint8Array {
  const c = new Uint8Array(view.byteLength)
  c.set(view)
  copied += view.byteLength
  if (copied >= GC_EVERY_BYTES) {
    copied = 0
    Bun.gc(false)
  }
  return c
}

/**
 * Every this many bytes of chunk copies, a young-generation collection is asked for: a copy is
 * garbage as soon as the sink has taken it, but the collector paces itself by the JS heap, not
 * by these buffers, and a fast client would otherwise see the RSS grow by the size of the export.
 */
const GC_EVERY_BYTES = 16 * 2 ** 20
let copied = 0

/** Pre-encodes an ASCII/UTF-8 constant once (module load or per export), never per row. */
export function enc(s: string): Buffer {
  return Buffer.from(s, 'utf8')
}

/** A Buffer over the same memory as a column's bytes (for ByteOut#copy), made once per array. */
const buffers = new WeakMap<Uint8Array, Buffer>()
export function bufferOf(data: Uint8Array): Buffer {
  let b = buffers.get(data)
  if (!b) buffers.set(data, (b = Buffer.from(data.buffer, data.byteOffset, data.byteLength)))
  return b
}
