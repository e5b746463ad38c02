import { closeSync, ftruncateSync, mkdirSync, openSync, readSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { ONE_BUFFER_LIMIT } from '../../src/store/batched-table'
import { RAW_ENDS_LAYOUT } from '../../src/store/column-layout'
import { RAW_FILES, type PhotoColumns, type Utf8Column } from '../../src/store/schema'
import { tableFromColumns } from './arrow-table'
import { writeArrowFile } from './write-arrow-file'
import { StagedFile, type StagingWrites } from './staging-writes'
import type { KeptRows } from '../derive/kept-rows'

/**
 * The photos' raw JSON kept out of photos.arrow and out of memory, for a big catalogue. A Utf8
 * column holds at most 2 GiB (Int32 offsets) and the raw JSON is most of a photo table's bytes
 * (~1.9 KB of a feed record's ~2.5 KB): 1.5 million feed records make ~2.9 GB of it. A build
 * puts each record's text in a stash file as it is read (RawStash); past `inlineBytes`
 * (rawInlineBytes) the photo table's raw column stays in the stash too (RawSpill: 12 bytes a
 * row), and once the default order is known the texts are copied from it into raw.bin in that
 * order (RAW_FILES.text), with where each one ends in raw-ends.arrow; the stash is deleted. photos.arrow's `raw` column is
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

/**
 * Raw JSON on its way to raw.bin: a build's spill (RawSpill), or an update's merge of the
 * published texts and the new rows' (merge/merged-raw.ts). The column encoder sets `order`.
 */
export interface RawTexts {
  /** The default order (row k of photos.arrow is table row order[k]); unset: the table's own order. */
  order: Int32Array | undefined
  /**
   * Writes raw.bin in the default order; returns where each row's text ends. With `digests`, its
   * digest is taken as it is written. `consume`: the texts are not needed after this write (a
   * build's spill, deleted next), so what is copied may be let go as the copy goes.
   */
  writeOrdered(path: string, digests?: StagingWrites, opts?: { consume?: boolean }): Float64Array
  discard(): void
  /**
   * Texts that stay in photos.arrow (an update's merge under the limit): the table's `raw` column
   * has their offsets over `placeholder`, whose bytes `write` hands over in its place when the
   * file is written (write-arrow-file.ts); `materialize` gathers them for an encoder that reorders.
   */
  inline?: boolean
  placeholder?: ArrayBufferLike
  write?(put: (bytes: Uint8Array) => void): Float64Array
  materialize?(): Utf8Column
}

/** A photo table on its way to photos.arrow, its raw JSON possibly in a spill file; an update's merge says which rows it kept (derive/kept-rows.ts). */
export type PhotoTable = PhotoColumns & {
  rawSpill?: RawTexts
  kept?: KeptRows
  /** Text columns (by name) an update's merge leaves ungathered, like the inline raw JSON (`inline` RawTexts). */
  textPieces?: Record<string, RawTexts>
}

const CHUNK = 1 << 24
const encoder = new TextEncoder()

/**
 * Raw JSON texts appended to a file as the records are read (ReadOptions.rawStash): a record
 * keeps where its text is (`raw_at`, `raw_bytes`, 12 bytes) instead of the text (~2 KB of a
 * feed record), from the read to the photo table. The text is the one the reader made, so a page
 * replaced meanwhile changes nothing. Named like a staging folder, so a killed build's stash is
 * removed by the next build (publish.ts).
 */
export class RawStash {
  readonly path: string
  #fd: number | undefined
  #buf = new Uint8Array(CHUNK)
  #fill = 0
  #flushed = 0
  #scratch = new Uint8Array(1 << 16)
  #cut = false
  /** Bytes of the text the last put() wrote. */
  lastBytes = 0

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true })
    this.path = join(dir, `.staging-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}-raw`)
    this.#fd = openSync(this.path, 'w+', 0o600)
  }

  /** Appends a text; returns where it starts (its byte count is lastBytes). */
  put(text: string): number {
    if (this.#cut) throw new Error('the raw JSON stash was cut short: nothing more may be put')
    if (this.#fill + text.length * 3 > CHUNK) this.#flush()
    const at = this.#flushed + this.#fill
    if (text.length * 3 > CHUNK) {
      const bytes = encoder.encode(text)
      this.#write(bytes)
      this.lastBytes = bytes.length
    } else {
      this.lastBytes = encoder.encodeInto(text, this.#buf.subarray(this.#fill)).written
      this.#fill += this.lastBytes
    }
    return at
  }

  /** Bytes written so far (after cut, the bytes kept). */
  get size(): number {
    return this.#flushed + this.#fill
  }

  /**
   * Drops the stash's bytes from `bytes` on (texts already copied where they go): the file's
   * pages go back to the system at once, and the next file written (raw.bin) takes them while
   * they are still the machine's instead of fresh memory. Nothing may be put afterwards.
   */
  cut(bytes: number): void {
    this.#flush()
    if (bytes >= this.size) return
    ftruncateSync(this.#fd!, bytes)
    this.#flushed = bytes
    this.#cut = true
  }

  /** Bytes [at, at + bytes) into `into` at `offset` (a read through the page cache). */
  read(at: number, bytes: number, into: Uint8Array, offset: number): void {
    this.#flush()
    for (let got = 0; got < bytes; ) {
      const n = readSync(this.#fd!, into, offset + got, bytes - got, at + got)
      if (n <= 0) throw new Error(`the raw JSON stash ${this.path} ends early (at byte ${at + got})`)
      got += n
    }
  }

  /** Bytes [at, at + bytes), in a buffer reused by the next call. */
  view(at: number, bytes: number): Uint8Array {
    if (this.#scratch.length < bytes) this.#scratch = new Uint8Array(bytes)
    this.read(at, bytes, this.#scratch, 0)
    return this.#scratch.subarray(0, bytes)
  }

  /** Closes and deletes the stash (idempotent). */
  discard(): void {
    if (this.#fd !== undefined) closeSync(this.#fd)
    this.#fd = undefined
    rmSync(this.path, { force: true })
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

/**
 * The raw column of a photo table kept out of memory: per row (record order) where its text is
 * in a stash. The texts of records that held theirs are put in the stash as their rows are
 * written; stashed ones are only pointed at.
 */
export class RawSpill implements RawTexts {
  readonly stash: RawStash
  readonly #at: Float64Array
  readonly #bytes: Int32Array
  #rows = 0
  /** The default order (row k of photos.arrow is record order[k]), set by the column encoder. */
  order: Int32Array | undefined

  constructor(stash: RawStash, rows: number) {
    this.stash = stash
    this.#at = new Float64Array(rows)
    this.#bytes = new Int32Array(rows)
  }

  /** The next row's text, held ("" or undefined: none). */
  push(text: string | undefined): void {
    if (text) this.pushStashed(this.stash.put(text), this.stash.lastBytes)
    else this.pushStashed(0, 0)
  }

  /** The next row's text, already in the stash. */
  pushStashed(at: number, bytes: number): void {
    this.#at[this.#rows] = at
    this.#bytes[this.#rows++] = bytes
  }

  /**
   * Writes raw.bin: the texts in the default order (`order`), read from the stash through one
   * reused window (StashWindow; through the page cache: no mapping of it counts in the builder's
   * memory). Returns where each row's text ends.
   *
   * `consume`: the stash is cut behind the copy (RawStash.cut) whenever the texts still to copy
   * all lie 64 MiB or more below its end. The default order (time descending) runs from the
   * stash's end (the last sols read) to its start, so the stash shrinks as raw.bin grows and
   * raw.bin's pages are the stash's, given back moments before; on this machine a page the
   * system has not had back for a while costs ~1.5 system seconds a GB to touch (1.5 million
   * records: ~3 GB of stash, ~3 GB of raw.bin).
   */
  writeOrdered(path: string, digests?: StagingWrites, opts: { consume?: boolean; windowBytes?: number; cutStep?: number } = {}): Float64Array {
    const order = this.order
    if (!order) throw new Error('the raw JSON spill has no row order (the column encoder sets it)')
    const windowBytes = opts.windowBytes ?? STASH_WINDOW
    const cutStep = opts.cutStep ?? CUT_STEP
    const n = order.length
    let total = 0
    for (let r = 0; r < this.#rows; r++) total += this.#bytes[r]!
    if (total > MAX_RAW_FILE_BYTES) throw new Error(`the ${this.#rows} photos' raw JSON comes to ${total} bytes, over the ${MAX_RAW_FILE_BYTES} raw.bin holds (the server maps it as one buffer)`)
    // needed[k]: the stash's bytes that rows k.. of the order still read (the furthest end of their texts).
    const needed = opts.consume ? new Float64Array(n + 1) : undefined
    if (needed) for (let k = n - 1; k >= 0; k--) needed[k] = Math.max(needed[k + 1]!, this.#bytes[order[k]!]! > 0 ? this.#at[order[k]!]! + this.#bytes[order[k]!]! : 0)
    let kept = this.stash.size
    const ends = new Float64Array(n)
    // With `digests`, the file's digest is taken from the chunks as they are written (no read-back).
    const file = new StagedFile(path, digests)
    const window = new StashWindow(this.stash, windowBytes)
    let buf = new Uint8Array(CHUNK)
    let fill = 0
    let written = 0
    const flush = () => {
      file.put(buf.subarray(0, fill))
      written += fill
      fill = 0
    }
    try {
      for (let k = 0; k < n; k++) {
        const r = order[k]!
        const len = this.#bytes[r]!
        if (len > 0) {
          if (fill + len > buf.length) flush()
          if (len > buf.length) buf = new Uint8Array(len)
          window.copy(this.#at[r]!, len, buf, fill)
          fill += len
        }
        ends[k] = written + fill
        if (needed && needed[k + 1]! + cutStep <= kept) {
          kept = needed[k + 1]!
          this.stash.cut(kept)
        }
      }
      flush()
      file.end()
    } finally {
      file.abandon()
    }
    return ends
  }

  discard(): void {
    this.stash.discard()
  }
}

/** Stash bytes let go at a time behind the copy to raw.bin (RawSpill.writeOrdered `consume`). */
const CUT_STEP = 1 << 26

/** Bytes of the stash read at once when a text is copied to raw.bin (StashWindow). */
export const STASH_WINDOW = 1 << 22

/** A window that served fewer texts than this before the next one was needed was not worth its read. */
const WINDOW_WORTH = 16

/** Texts read one at a time after a window that was not worth it, before a window is tried again. */
const DIRECT_SPELL = 4096

/**
 * Reads of the stash in the default order through one reused buffer. The stash is in read
 * order (sols ascending, each page's records together) and the default order is time
 * descending, so the texts of a row range come from a few MB of the stash, in no order within
 * them: one read of the region around a text serves the texts after it (at 300,000 stand-in
 * records, 250 reads of 4 MiB instead of 300,000 reads of ~2 KB; runs of consecutive texts
 * alone would have saved a sixth). An order with no such locality costs at most one window in
 * DIRECT_SPELL texts more than reading each text alone.
 */
export class StashWindow {
  readonly #stash: RawStash
  readonly #buf: Uint8Array
  #start = 0
  #end = 0
  #served = 0
  #direct = 0

  constructor(stash: RawStash, bytes: number) {
    this.#stash = stash
    this.#buf = new Uint8Array(bytes)
  }

  /** Bytes [at, at + bytes) of the stash into `into` at `offset`. */
  copy(at: number, bytes: number, into: Uint8Array, offset: number): void {
    if (at >= this.#start && at + bytes <= this.#end) {
      into.set(this.#buf.subarray(at - this.#start, at - this.#start + bytes), offset)
      this.#served++
      return
    }
    if (this.#direct > 0 || bytes * 2 > this.#buf.length) {
      if (this.#direct > 0) this.#direct--
      this.#stash.read(at, bytes, into, offset)
      return
    }
    if (this.#end > 0 && this.#served < WINDOW_WORTH) {
      // The last window served too few texts: read the next ones alone for a while.
      this.#direct = DIRECT_SPELL
      this.#end = 0
      this.#stash.read(at, bytes, into, offset)
      return
    }
    // The text in the middle of the window: the order runs either way through the stash.
    const size = this.#stash.size
    const start = Math.max(0, Math.min(at - (this.#buf.length >> 1), size - this.#buf.length))
    const end = Math.min(size, start + this.#buf.length)
    this.#stash.read(start, end - start, this.#buf, 0)
    this.#start = start
    this.#end = end
    this.#served = 1
    into.set(this.#buf.subarray(at - start, at - start + bytes), offset)
  }
}

/** raw.bin and raw-ends.arrow in `dir` from a spill in the default order; the spill is deleted. Returns the photos with raw JSON. */
export async function writeRawFiles(dir: string, spill: RawTexts, digests?: StagingWrites): Promise<number> {
  const ends = spill.writeOrdered(join(dir, RAW_FILES.text), digests, { consume: true })
  spill.discard()
  await writeArrowFile(join(dir, RAW_FILES.ends), tableFromColumns(RAW_ENDS_LAYOUT, { raw_end: ends }, ends.length), [], digests)
  let withText = 0
  for (let k = 0, prev = 0; k < ends.length; prev = ends[k++]!) if (ends[k]! > prev) withText++
  return withText
}
