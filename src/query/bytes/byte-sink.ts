import * as jsc from 'bun:jsc'
import { noteAnswerBytes } from './garbage-pacer'

/**
 * The growable byte buffer every JSON, CSV and Arrow writer renders into: ASCII members,
 * pre-encoded fragments and column bytes are copied in, numbers are written as digits, and text
 * is made at most once at the end (one native UTF-8 decode) instead of by string concatenation,
 * whose ropes JavaScriptCore flattens and copies again. Answers use it as is (answerSink);
 * exports use ByteOut (export/byte-out.ts), which adds an atlas of fragments and draining.
 *
 * Copies shorter than SHORT_COPY bytes run as a JS loop (a native call costs more than the
 * bytes); longer ones go through Buffer#copy (memcpy, no allocation). A source that comes with a
 * DataView of its own (copyFrom) moves four bytes per step up to NATIVE_COPY bytes: unaligned
 * DataView reads and writes are compiled inline, and below ~64 bytes they beat both the byte
 * loop and the ~12 ns a native call costs whatever the length.
 */
const SHORT_COPY = 24
const NATIVE_COPY = 64
const INITIAL = 64 * 1024
/** A sink that grew past this for one big answer gives the memory back on its next reset. */
const KEEP_AT_MOST = 4 * 1024 * 1024

export class ByteSink {
  buf: Buffer
  pos = 0
  /** Bytes [0, cap) of buf hold the output (ByteOut keeps its atlas after them). */
  cap: number

  /** A DataView of buf (copyFrom), made again when buf has been replaced. */
  protected bufView: DataView
  protected bufViewOf: Buffer

  constructor(initial = INITIAL) {
    this.cap = initial
    this.buf = Buffer.allocUnsafeSlow(initial)
    this.bufViewOf = this.buf
    this.bufView = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength)
  }

  /** Empties the sink for the next answer. */
  reset(): void {
    this.pos = 0
    if (this.cap > KEEP_AT_MOST) {
      this.cap = INITIAL
      this.buf = Buffer.allocUnsafeSlow(INITIAL)
    }
  }

  /** Room for n more bytes. */
  ensure(n: number): void {
    if (this.pos + n > this.cap) this.grow(n)
  }

  /** A bigger buffer holding n more bytes past pos (the bytes written so far kept). */
  protected grow(n: number): void {
    let cap = this.cap * 2
    while (cap < this.pos + n) cap *= 2
    const next = Buffer.allocUnsafeSlow(cap)
    this.buf.copy(next, 0, 0, this.pos)
    this.buf = next
    this.cap = cap
  }

  byte(c: number): void {
    if (this.pos >= this.cap) this.grow(1)
    this.buf[this.pos++] = c
  }

  /** Bytes src[a..e) (a pre-encoded fragment, or a value inside a column's data). */
  copy(src: Buffer, a: number, e: number): void {
    const n = e - a
    if (this.pos + n > this.cap) this.grow(n)
    const b = this.buf
    let o = this.pos
    if (n < SHORT_COPY) for (let i = a; i < e; i++) b[o++] = src[i]
    else {
      src.copy(b, o, a, e)
      o += n
    }
    this.pos = o
  }

  /**
   * Bytes src[a..e), where `sv` is a DataView of the same bytes as `src` (same offsets): a
   * column's values, a memo's texts, a pool of fragments.
   */
  copyFrom(src: Buffer, sv: DataView, a: number, e: number): void {
    const n = e - a
    if (this.pos + n > this.cap) this.grow(n)
    const b = this.buf
    let o = this.pos
    if (n >= NATIVE_COPY) {
      src.copy(b, o, a, e)
      this.pos = o + n
      return
    }
    let dv = this.bufView
    if (this.bufViewOf !== b) {
      dv = this.bufView = new DataView(b.buffer, b.byteOffset, b.byteLength)
      this.bufViewOf = b
    }
    if (n >= 4) {
      // Four bytes per step, the last four written once more in place of a byte loop for the rest.
      const end = o + n
      for (let i = a, e4 = e - 4; i < e4; i += 4, o += 4) dv.setInt32(o, sv.getInt32(i, true), true)
      dv.setInt32(end - 4, sv.getInt32(e - 4, true), true)
      this.pos = end
      return
    }
    for (let i = a; i < e; i++) b[o++] = src[i]
    this.pos = o
  }

  /** A whole pre-encoded fragment. */
  bytes(src: Buffer): void {
    this.copy(src, 0, src.length)
  }

  /** Any string, UTF-8 encoded (off the per-row path: constants and rare escaped values). */
  text(s: string): void {
    this.ensure(s.length * 3)
    this.pos += this.buf.write(s, this.pos, 'utf8')
  }

  /** An integer in decimal (Number#toString for safe integers). */
  int(n: number): void {
    if (n < 0) {
      this.byte(0x2d)
      n = -n
    }
    this.uint(n)
  }

  /** A non-negative safe integer in decimal. */
  uint(n: number): void {
    let len = 1
    for (let p = 10; p <= n && len < 16; p *= 10) len++
    if (this.pos + len > this.cap) this.grow(len)
    this.pos += len
    writeDigits(this.buf, this.pos, n)
  }

  /** The bytes written, as text (one UTF-8 decode). */
  toString(): string {
    noteAnswerBytes(this.pos)
    return this.buf.toString('utf8', 0, this.pos)
  }

  /** A copy of the bytes written, owned by the caller (the sink is reused). */
  toBytes(): Uint8Array {
    noteAnswerBytes(this.pos)
    return new Uint8Array(this.buf.subarray(0, this.pos))
  }
}

/**
 * copyFrom stays one function the photo writers call, never a copy of its loop inlined into
 * each of them. Left to the JIT, whether it is inlined depends on which tier-up happens first
 * (its loop's or its callers'), so the same page of 100 photos compiled either way from one
 * process start to the next: inlined at its ~30 call sites, the photo writers' machine code
 * doubled (writeRow 13 KB -> 27 KB) and a page took 80-90 µs instead of 60-63 µs. `noInline`
 * is in bun:jsc at run time but not in its types, hence the optional call.
 */
;(jsc as { noInline?: (f: (...args: never[]) => unknown) => void }).noInline?.(ByteSink.prototype.copyFrom)

/** A string as a pre-encoded fragment (at module load or once per snapshot or export, never per row). */
export const fragment = (s: string): Buffer => Buffer.from(s, 'utf8')

/** Buffer views over column bytes (native copies and slices need a Buffer), one per array. */
const buffers = new WeakMap<Uint8Array, Buffer>()
export function bufferOf(data: Uint8Array): Buffer {
  let b = buffers.get(data)
  if (!b) {
    b = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
    buffers.set(data, b)
  }
  return b
}

const answer = new ByteSink()

/**
 * The emptied sink a whole answer is written into. Rendering is synchronous, so one answer is
 * written at a time; the caller turns it into text before returning.
 */
export function answerSink(): ByteSink {
  answer.reset()
  return answer
}

/** "00".."99" as byte pairs. */
export const PAIRS = new Uint8Array(200)
for (let i = 0; i < 100; i++) {
  PAIRS[2 * i] = 48 + Math.floor(i / 10)
  PAIRS[2 * i + 1] = 48 + (i % 10)
}

/**
 * The decimal digits of a non-negative safe integer, ending just before `end`, two at a time.
 * floor(v * 0.01) is floor(v / 100) for integers below 2^50: the double 0.01 is a little above
 * 0.01, so a multiple of 100 never lands below its quotient, and the others stay below the next.
 */
export function writeDigits(b: Uint8Array, end: number, v: number): void {
  let o = end
  while (v >= 100) {
    const q = Math.floor(v * 0.01)
    const r = (v - q * 100) << 1
    b[--o] = PAIRS[r + 1]
    b[--o] = PAIRS[r]
    v = q
  }
  if (v >= 10) {
    const r = v << 1
    b[--o] = PAIRS[r + 1]
    b[--o] = PAIRS[r]
  } else b[--o] = 48 + v
}
