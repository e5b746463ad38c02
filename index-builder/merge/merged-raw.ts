import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs'
import type { TextColumn } from '../../src/store/schema'
import { MAX_RAW_FILE_BYTES, type RawTexts } from '../encode/raw-file'

/**
 * The raw JSON of a merged photo table that a full build of the same pages would write to
 * raw.bin (its bytes pass rawInlineBytes): the published index's texts (raw.bin mapped, or its
 * inline column) for the rows kept, the new rows' texts for the rest. Nothing is gathered in
 * memory: raw.bin is written in the default order straight from those two, runs of consecutive
 * published rows in one write each (the published raw.bin is in the default order already, so
 * an update of one sol writes it in a handful of runs), and the file is the one a full build
 * writes, byte for byte (encode/raw-file.ts, RawSpill.writeOrdered).
 */
export class MergedRaw implements RawTexts {
  order: Int32Array | undefined
  readonly #old: TextColumn
  readonly #fresh: TextColumn
  /** Row k of the merged table: published row src[k] (>= 0), or new row -src[k] - 1. */
  readonly #src: Int32Array

  constructor(old: TextColumn, fresh: TextColumn, src: Int32Array) {
    this.#old = old
    this.#fresh = fresh
    this.#src = src
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

  writeOrdered(path: string): Float64Array {
    const src = this.#src
    const n = src.length
    const order = this.order
    if (order && order.length !== n) throw new Error(`the merged raw JSON has ${n} rows, its order ${order.length}`)
    const total = MergedRaw.bytesOf(this.#old, this.#fresh, src)
    if (total > MAX_RAW_FILE_BYTES) throw new Error(`the ${n} photos' raw JSON comes to ${total} bytes, over the ${MAX_RAW_FILE_BYTES} raw.bin holds (the server maps it as one buffer)`)
    const oo = this.#old.offsets
    const od = this.#old.data
    const fo = this.#fresh.offsets
    const fd = this.#fresh.data
    const ends = new Float64Array(n)
    const out = openSync(path, 'w', 0o644)
    const buf = new Uint8Array(BUFFER)
    let fill = 0
    let written = 0
    const put = (bytes: Uint8Array) => {
      for (let off = 0; off < bytes.length; ) off += writeSync(out, bytes, off, bytes.length - off)
      written += bytes.length
    }
    const flush = () => {
      if (fill > 0) put(buf.subarray(0, fill))
      fill = 0
    }
    const append = (bytes: Uint8Array) => {
      if (bytes.length >= DIRECT) {
        flush()
        put(bytes)
        return
      }
      if (fill + bytes.length > buf.length) flush()
      buf.set(bytes, fill)
      fill += bytes.length
    }
    try {
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
      fsyncSync(out)
    } finally {
      closeSync(out)
    }
    return ends
  }

  discard(): void {}
}

/** Pieces shorter than this are gathered into one buffer; longer ones written as they are. */
const DIRECT = 1 << 20
const BUFFER = 1 << 24
