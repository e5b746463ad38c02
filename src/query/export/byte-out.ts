import { ByteSink } from '../bytes/byte-sink'

/**
 * The byte sink (byte-sink.ts) an export renders rows into: no string and no object per row.
 * The stream hands `view()` to the response sink (which copies what it cannot send at once, so
 * the buffer is reused for the next chunk right after) and calls `reset()`. The buffer grows (by
 * doubling) until one chunk fits, then stays: a full export allocates it once. Past the output,
 * the same buffer holds an atlas of attached fragment pools (attach, frag).
 */
export class ByteOut extends ByteSink {
  #atlasSize = 0
  /** Bytes staged past the attached pools (stage), kept across a growth until the next stage or attach. */
  #staged = 0
  readonly #attached = new Map<Buffer, number>()

  constructor(capacity = 1 << 20) {
    super(capacity)
  }

  protected override grow(n: number): void {
    this.#grow(n, 0)
  }

  /** A bigger buffer: the output grown to hold `n` more bytes, the atlas to hold `atlasMore` more. */
  #grow(n: number, atlasMore: number): void {
    let cap = this.cap
    while (cap < this.pos + n) cap *= 2
    let atlas = this.buf.length - this.cap
    const used = this.#atlasSize + this.#staged
    if (used + atlasMore > atlas) atlas = Math.max(2 * atlas, used + atlasMore)
    const next = Buffer.allocUnsafeSlow(cap + atlas)
    this.buf.copy(next, 0, 0, this.pos)
    this.buf.copy(next, cap, this.cap, this.cap + used)
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
    this.#staged = 0
    if (at + pool.length > this.buf.length - this.cap) this.#grow(0, pool.length)
    pool.copy(this.buf, this.cap + at)
    this.#atlasSize += pool.length
    this.#attached.set(pool, at)
    return at
  }

  /**
   * Copies src[a..b) into the atlas past the attached pools and returns where it starts there
   * (for frag), valid until the next stage or attach. For bytes copied piecewise many times per
   * chunk (the file names of a batch's image URLs, between folder fragments): one copy between
   * two buffers, then copies within one.
   */
  stage(src: Uint8Array, a: number, b: number): number {
    const len = b - a
    this.#staged = 0
    if (this.#atlasSize + len > this.buf.length - this.cap) this.#grow(0, len)
    this.buf.set(src.subarray(a, b), this.cap + this.#atlasSize)
    this.#staged = len
    return this.#atlasSize
  }

  /** Copies the atlas bytes [a, b) (offsets from attach or stage) to the output. */
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

  /** Runs of the buffer's own bytes and views handed over as they are, in order (own: reused memory, copied out at a copying drain). */
  #pieces: Uint8Array[] = []
  #own: boolean[] = []
  #mark = 0

  /**
   * Appends `view` to the output. A large view is handed to the sink as it is: memory that never
   * changes (`lasting`: a slice of the snapshot's own columns, a dictionary encoded once) in any
   * case; memory the writer reuses for its next chunk (scratch buffers) like the buffer's own
   * bytes, as a copy when the drain must copy. A small view is copied into the buffer: one write
   * of the whole costs less than a piece of its own.
   */
  external(view: Uint8Array, lasting: boolean): void {
    if (view.byteLength < EXTERNAL_MIN) {
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
    this.#own.push(!lasting)
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
  override reset(): void {
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

