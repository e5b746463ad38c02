import type { TextColumn, Utf8Column } from '../../src/store/schema'
import { MAX_RAW_FILE_BYTES, type RawTexts } from '../encode/raw-file'
import { StagedFile, type StagingWrites } from '../encode/staging-writes'

/**
 * The raw JSON of a merged photo table, never gathered in memory: the published index's texts
 * (raw.bin mapped, or photos.arrow's column mapped) for the rows kept, the new rows' texts for the
 * rest. Written in the default order straight from those two, runs of consecutive published rows
 * in one write each (the published texts are in the default order already, so an update of one
 * sol writes them in a handful of runs), as the bytes a full build of the same pages writes:
 *   to raw.bin when they pass rawInlineBytes (writeOrdered, as RawSpill.writeOrdered);
 *   else as photos.arrow's `raw` column (`inline`): the table's column is then `column()`, the
 *   real offsets over a buffer of the right size that is never touched (fresh memory costs
 *   ~12 ms a MB on the machines measured: gathering a 150 MB column cost more than the rest of
 *   the merge), and the Arrow writer's view of that buffer is replaced by the texts (`write`;
 *   write-arrow-file.ts).
 * A table the encoder finds out of the default order (the merge hands it over in order, moved ids
 * included; the encoder checks) gathers the column for real (`materialize`).
 */
export class MergedRaw implements RawTexts {
  order: Int32Array | undefined
  readonly inline: boolean
  readonly #old: TextColumn
  readonly #fresh: TextColumn
  /** Row k of the merged table: published row src[k] (>= 0), or new row -src[k] - 1. */
  readonly #src: Int32Array
  #placeholder: Uint8Array | undefined

  constructor(old: TextColumn, fresh: TextColumn, src: Int32Array, inline: boolean) {
    this.#old = old
    this.#fresh = fresh
    this.#src = src
    this.inline = inline
  }

  /** Bytes of every row's text. */
  static bytesOf(old: TextColumn, fresh: TextColumn, src: Int32Array): number {
    let total = 0
    for (let k = 0; k < src.length; k++) {
      const s = src[k]!
      total += s >= 0 ? old.offsets[s + 1]! - old.offsets[s]! : fresh.offsets[-s]! - fresh.offsets[-s - 1]!
    }
    return total
  }

  /** The inline column in table order: real offsets, a placeholder buffer (untouched) for the bytes. */
  column(): Utf8Column {
    const n = this.#src.length
    const offsets = new Int32Array(n + 1)
    const oo = this.#old.offsets
    const fo = this.#fresh.offsets
    for (let k = 0; k < n; k++) {
      const s = this.#src[k]!
      offsets[k + 1] = offsets[k]! + (s >= 0 ? oo[s + 1]! - oo[s]! : fo[-s]! - fo[-s - 1]!)
    }
    this.#placeholder = new Uint8Array(offsets[n]!)
    return { data: this.#placeholder, offsets }
  }

  /** The buffer the Arrow writer's chunk of the inline column's bytes is a view of. */
  get placeholder(): ArrayBufferLike | undefined {
    return this.#placeholder?.buffer
  }

  /** The column gathered for real, in table order (for an encoder that reorders it). */
  materialize(): Utf8Column {
    const offsets = this.column().offsets
    const data = new Uint8Array(offsets[offsets.length - 1]!)
    let at = 0
    this.#pieces(undefined, (bytes) => {
      data.set(bytes, at)
      at += bytes.length
    })
    this.#placeholder = undefined
    return { data, offsets }
  }

  /** The texts in the default order, piece by piece (the inline column's bytes as photos.arrow holds them). */
  write(put: (bytes: Uint8Array) => void): Float64Array {
    return this.#pieces(this.order, put)
  }

  writeOrdered(path: string, digests?: StagingWrites): Float64Array {
    const total = MergedRaw.bytesOf(this.#old, this.#fresh, this.#src)
    if (total > MAX_RAW_FILE_BYTES) throw new Error(`the ${this.#src.length} photos' raw JSON comes to ${total} bytes, over the ${MAX_RAW_FILE_BYTES} raw.bin holds (the server maps it as one buffer)`)
    const file = new StagedFile(path, digests)
    try {
      const ends = this.#pieces(this.order, (bytes) => file.put(bytes))
      file.end()
      return ends
    } finally {
      file.abandon()
    }
  }

  discard(): void {
    this.#placeholder = undefined
  }

  /** Every text in `order` (undefined: table order) handed to `put` in pieces; returns where each ends. */
  #pieces(order: Int32Array | undefined, put: (bytes: Uint8Array) => void): Float64Array {
    const src = this.#src
    const n = src.length
    if (order && order.length !== n) throw new Error(`the merged raw JSON has ${n} rows, its order ${order.length}`)
    const oo = this.#old.offsets
    const od = this.#old.data
    const fo = this.#fresh.offsets
    const fd = this.#fresh.data
    const ends = new Float64Array(n)
    const buf = new Uint8Array(BUFFER)
    let fill = 0
    let written = 0
    const flush = () => {
      if (fill > 0) put(buf.subarray(0, fill))
      written += fill
      fill = 0
    }
    const append = (bytes: Uint8Array) => {
      if (bytes.length >= DIRECT) {
        flush()
        put(bytes)
        written += bytes.length
        return
      }
      if (fill + bytes.length > buf.length) flush()
      buf.set(bytes, fill)
      fill += bytes.length
    }
    for (let k = 0; k < n; ) {
      const s = src[order ? order[k]! : k]!
      if (s < 0) {
        append(fd.subarray(fo[-s - 1]!, fo[-s]!))
        ends[k] = written + fill
        k++
        continue
      }
      // A run of consecutive published rows: one piece of the published texts.
      let e = k + 1
      while (e < n && src[order ? order[e]! : e] === s + (e - k)) e++
      const at = written + fill - oo[s]!
      for (let j = k; j < e; j++) ends[j] = at + oo[s + (j - k) + 1]!
      append(od.subarray(oo[s]!, oo[s + (e - k)]!))
      k = e
    }
    flush()
    return ends
  }
}

/** Pieces shorter than this are gathered into one buffer; longer ones written as they are. */
const DIRECT = 1 << 20
const BUFFER = 1 << 22
