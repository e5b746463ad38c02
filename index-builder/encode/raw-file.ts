import { closeSync, fsyncSync, mkdirSync, openSync, readSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { ONE_BUFFER_LIMIT } from '../../src/store/batched-table'
import { RAW_ENDS_LAYOUT } from '../../src/store/column-layout'
import { RAW_FILES, type PhotoColumns } from '../../src/store/schema'
import { tableFromColumns } from './arrow-table'
import { writeArrowFile } from './write-arrow-file'

/**
 * The photos' raw JSON kept out of photos.arrow and out of memory, for a big catalogue. A Utf8
 * column holds at most 2 GiB (Int32 offsets) and the raw JSON is most of a photo table's bytes
 * (~1.9 KB of a feed record's ~2.5 KB): 1.5 million feed records make ~2.9 GB of it. Past
 * `inlineBytes` (rawInlineBytes) the photo table writes each record's text to a spill file as the
 * record is consumed, keeping only where it ends (8 bytes a row); once the default order is
 * known, the texts are copied from the spill into raw.bin in that order (RAW_FILES.text), with
 * where each one ends in raw-ends.arrow, and the spill is deleted. photos.arrow's `raw` column is
 * then all "" and the server maps raw.bin (src/store/raw-text.ts). A catalogue whose raw JSON
 * fits stays inline: the same index, byte for byte, as before raw.bin existed.
 */

/**
 * Raw JSON bytes a photo table keeps inline (in memory, then photos.arrow) before it spills.
 * 1 GiB, not the 2 GiB a column holds: an inline column is held twice while it is put in the
 * default order, so past this the spill saves the most memory of any one step of a build.
 * BUILD_RAW_INLINE_BYTES overrides it (tests force the spill on the bundled sources).
 */
export const RAW_INLINE_BYTES = 2 ** 30

export function rawInlineBytes(): number {
  const v = Number(process.env.BUILD_RAW_INLINE_BYTES)
  return Number.isInteger(v) && v >= 0 ? v : RAW_INLINE_BYTES
}

/** raw.bin is mapped as one buffer by the server: at most what one ArrayBuffer holds. */
export const MAX_RAW_FILE_BYTES = ONE_BUFFER_LIMIT - 1

/** A photo table on its way to photos.arrow, its raw JSON possibly in a spill file. */
export type PhotoTable = PhotoColumns & { rawSpill?: RawSpill }

const CHUNK = 1 << 24
const encoder = new TextEncoder()

export class RawSpill {
  readonly path: string
  #fd: number | undefined
  /** Text of record r (record order) is spill bytes [ends[r], ends[r + 1]). */
  readonly #ends: Float64Array
  #rows = 0
  #buf = new Uint8Array(CHUNK)
  #fill = 0
  #flushed = 0
  /** The default order (row k of photos.arrow is record order[k]), set by the column encoder. */
  order: Int32Array | undefined

  /** A spill for `rows` records in `dir` (named like a staging folder, so a killed build's spill is removed by the next build). */
  constructor(dir: string, rows: number) {
    mkdirSync(dir, { recursive: true })
    this.path = join(dir, `.staging-${process.pid}-${Date.now().toString(36)}-raw`)
    this.#fd = openSync(this.path, 'w+', 0o600)
    this.#ends = new Float64Array(rows + 1)
  }

  get rows(): number {
    return this.#rows
  }

  /** Appends the next record's text ("" or undefined: none). */
  push(text: string | undefined): void {
    if (text) {
      if (this.#fill + text.length * 3 > CHUNK) this.#flush()
      if (text.length * 3 > CHUNK) this.#write(encoder.encode(text))
      else this.#fill += encoder.encodeInto(text, this.#buf.subarray(this.#fill)).written
    }
    this.#ends[++this.#rows] = this.#flushed + this.#fill
  }

  /**
   * Writes raw.bin and raw-ends.arrow's column: the texts in the default order (`order`),
   * reading each from the spill (a read per text, through the page cache: no mapping of the
   * spill counts in the builder's memory). Returns where each row's text ends.
   */
  writeOrdered(path: string): Float64Array {
    const order = this.order
    if (!order) throw new Error('the raw JSON spill has no row order (the column encoder sets it)')
    this.#flush()
    const total = this.#ends[this.#rows]!
    if (total > MAX_RAW_FILE_BYTES) throw new Error(`the ${this.#rows} photos' raw JSON comes to ${total} bytes, over the ${MAX_RAW_FILE_BYTES} raw.bin holds (the server maps it as one buffer)`)
    const n = order.length
    const outEnds = new Float64Array(n)
    const out = openSync(path, 'w', 0o644)
    const buf = this.#buf
    let fill = 0
    let written = 0
    const flush = () => {
      for (let off = 0; off < fill; ) off += writeSync(out, buf, off, fill - off)
      written += fill
      fill = 0
    }
    try {
      for (let k = 0; k < n; k++) {
        const r = order[k]!
        const from = this.#ends[r]!
        const len = this.#ends[r + 1]! - from
        if (len > 0) {
          if (fill + len > CHUNK) flush()
          if (len > CHUNK) {
            const big = new Uint8Array(len)
            this.#read(big, 0, len, from)
            for (let off = 0; off < len; ) off += writeSync(out, big, off, len - off)
            written += len
          } else {
            this.#read(buf, fill, len, from)
            fill += len
          }
        }
        outEnds[k] = written + fill
      }
      flush()
      fsyncSync(out)
    } finally {
      closeSync(out)
    }
    return outEnds
  }

  /** Closes and deletes the spill (after raw.bin is written, or when the build fails). */
  discard(): void {
    if (this.#fd !== undefined) closeSync(this.#fd)
    this.#fd = undefined
    rmSync(this.path, { force: true })
  }

  #read(into: Uint8Array, at: number, len: number, from: number): void {
    for (let got = 0; got < len; ) {
      const n = readSync(this.#fd!, into, at + got, len - got, from + got)
      if (n <= 0) throw new Error(`the raw JSON spill ${this.path} ends early (at byte ${from + got})`)
      got += n
    }
  }

  #write(bytes: Uint8Array): void {
    for (let off = 0; off < bytes.length; ) off += writeSync(this.#fd!, bytes, off, bytes.length - off)
    this.#flushed += bytes.length
  }

  #flush(): void {
    if (this.#fill === 0) return
    this.#write(this.#buf.subarray(0, this.#fill))
    this.#fill = 0
  }
}

/** raw.bin and raw-ends.arrow in `dir` from a spill in the default order; the spill is deleted. Returns the photos with raw JSON. */
export async function writeRawFiles(dir: string, spill: RawSpill): Promise<number> {
  const ends = spill.writeOrdered(join(dir, RAW_FILES.text))
  spill.discard()
  await writeArrowFile(join(dir, RAW_FILES.ends), tableFromColumns(RAW_ENDS_LAYOUT, { raw_end: ends }, ends.length))
  let withText = 0
  for (let k = 0, prev = 0; k < ends.length; prev = ends[k++]!) if (ends[k]! > prev) withText++
  return withText
}
