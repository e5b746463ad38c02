import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import type { Schema } from 'apache-arrow'
import { Footer } from 'apache-arrow/ipc/metadata/file'
import { BatchStream } from './batch-stream'
import type { ColumnLayout } from './column-layout'
import { IndexLoadError } from './index-load-error'
import { CHECKSUM_PART, readFully, xxh3Hex } from './part-checksums'

/**
 * Bun (JavaScriptCore) caps one ArrayBuffer at 4 GiB, so an Arrow file larger than that (the
 * photos.arrow of ~16M photos and more) can be neither read nor mapped whole. The builder
 * writes such a file as record batches of ~1 GiB (index-builder/encode/arrow-table.ts,
 * batchedIfHuge) and lists the XXH3 of each CHECKSUM_PART bytes (`xxh3_parts`). It is read here
 * in one pass: each part is read once into one reused buffer, its checksum is compared, and the
 * same bytes are fed to a BatchStream, which copies each batch's column buffers straight into
 * one typed array per column (each well under 4 GiB), so the store sees the same single arrays
 * as for a small index. Memory: the columns plus one part.
 */
export const ONE_BUFFER_LIMIT = 2 ** 32

// The per-part checksums live apart (part-checksums.ts), so the builder's manifest code does not load apache-arrow.
export { CHECKSUM_PART, partChecksums } from './part-checksums'

/** What a batched file's content is checked against (manifest.json); none: sizes and structure only. */
export interface PartCheck {
  /** XXH3-64 of each `partBytes` of the file, in order. */
  xxh3Parts?: readonly string[]
  /** SHA-256 of the whole file, checked when there are no xxh3Parts. */
  sha256?: string
  /** Defaults to CHECKSUM_PART (tests use small parts). */
  partBytes?: number
}

export async function loadBatchedTable(path: string, layout: ColumnLayout, rows: number, check: PartCheck = {}): Promise<Record<string, unknown>> {
  const { xxh3Parts } = check
  const sha = !xxh3Parts && check.sha256 !== undefined ? new Bun.CryptoHasher('sha256') : undefined
  let parts = 0
  try {
    const { schema, bytes } = footerSchema(path)
    const stream = new BatchStream(path, layout, rows, schema, bytes)
    readParts(path, check.partBytes ?? CHECKSUM_PART, (part, start) => {
      if (xxh3Parts) {
        const got = xxh3Hex(part)
        if (got !== xxh3Parts[parts]) throw new IndexLoadError(path, `checksum (XXH3) of part ${parts} is ${got}, manifest.json says ${xxh3Parts[parts] ?? 'there is no such part'}: the file is damaged`)
      }
      sha?.update(part)
      // Only bytes already proven intact are decoded.
      stream.feed(part, start)
      parts++
    })
    if (xxh3Parts && parts !== xxh3Parts.length) throw new IndexLoadError(path, `has ${parts} parts, manifest.json lists ${xxh3Parts.length} checksums: the file is damaged`)
    if (sha) {
      const got = sha.digest('hex')
      if (got !== check.sha256) throw new IndexLoadError(path, `SHA-256 ${got} differs from manifest.json (${check.sha256}): the file is damaged`)
    }
    return stream.finish()
  } catch (e) {
    if (e instanceof IndexLoadError) throw e
    throw new IndexLoadError(path, `is not a readable Arrow IPC file (${(e as Error).message})`)
  }
}

/**
 * The schema from the file's footer (apache-arrow's file writer puts it only there), read
 * before the parts. Its bytes lie in the last part, so they are verified before any column is
 * returned; until then the schema only sizes the columns, bounded by the file's size.
 */
function footerSchema(path: string): { schema: Schema; bytes: number } {
  const fd = openSync(path, 'r')
  try {
    const bytes = fstatSync(fd).size
    const tail = new Uint8Array(10)
    if (bytes < 18 || readSync(fd, tail, 0, 10, bytes - 10) !== 10) throw new IndexLoadError(path, 'is too short for an Arrow file')
    if (new TextDecoder().decode(tail.subarray(4)) !== 'ARROW1') throw new IndexLoadError(path, 'does not end with the Arrow file magic')
    const length = new DataView(tail.buffer).getInt32(0, true)
    if (length <= 0 || length > Math.min(bytes - 18, 1 << 24)) throw new IndexLoadError(path, `has a footer length of ${length}`)
    const footer = new Uint8Array(length)
    if (readSync(fd, footer, 0, length, bytes - 10 - length) !== length) throw new IndexLoadError(path, 'footer cannot be read')
    return { schema: Footer.decode(footer).schema, bytes }
  } finally {
    closeSync(fd)
  }
}


/**
 * Calls `onPart` with each `partBytes` of the file in order. Each part is mapped (Bun.mmap with
 * an offset: the page cache's own pages, no copy into a buffer, ~4x faster than reading), and
 * the mapping is dropped and collected before the next, so at most one part is mapped at a
 * time; without Bun.mmap, parts are read into one reused buffer.
 */
function readParts(path: string, partBytes: number, onPart: (part: Uint8Array, start: number) => void): void {
  const fd = openSync(path, 'r')
  try {
    const size = fstatSync(fd).size
    if (typeof Bun !== 'undefined' && typeof Bun.mmap === 'function' && process.env.INDEX_MMAP !== '0') {
      for (let pos = 0; pos < size; pos += partBytes) {
        let part: Uint8Array | undefined = Bun.mmap(path, { shared: false, offset: pos, size: Math.min(partBytes, size - pos) })
        if (part.length !== Math.min(partBytes, size - pos)) throw new IndexLoadError(path, `changed size while being read`)
        onPart(part, pos)
        part = undefined
        // Unmaps the part now rather than at some later collection, bounding the pages mapped.
        if (partBytes >= 1 << 26) Bun.gc(true)
      }
      return
    }
    const buf = new Uint8Array(Math.min(partBytes, size))
    for (let pos = 0; pos < size; ) {
      const n = readFully(fd, buf, pos, buf.length)
      if (n === 0) break
      onPart(buf.subarray(0, n), pos)
      pos += n
      if (n < buf.length) break
    }
  } finally {
    closeSync(fd)
  }
}
