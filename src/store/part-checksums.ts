import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { IndexLoadError } from './index-load-error'

/**
 * A file's XXH3-64 per part, as manifest.json lists it (`xxh3_parts`), read through one reused
 * buffer. Kept apart from the batched table reader, so whoever only hashes or reads a manifest
 * (the builder's digest, `npm run update`'s start) does not load apache-arrow (~0.15 s).
 */

/** Bytes per part of a file's `xxh3_parts` checksums (manifest.json) when the entry states no `xxh3_part_bytes`. */
export const CHECKSUM_PART = 2 ** 30

/** XXH3-64 of `bytes` as 16 hex digits. */
export function xxh3Hex(bytes: Uint8Array): string {
  return Bun.hash.xxHash3(bytes).toString(16).padStart(16, '0')
}

/**
 * XXH3-64 of each `partBytes` of a file, in order, the file read part by part into one reused
 * buffer (`buffer`, when given and large enough, else one of min(partBytes, size) bytes), never
 * mapped: a mapped part's pages count in the reader's memory until a collection unmaps them
 * (the builder's digest added ~2 GB of mapped pages at 1.5M records). `onPart` sees each part
 * before the buffer is reused.
 */
export function partChecksums(path: string, onPart?: (part: Uint8Array) => void, partBytes = CHECKSUM_PART, buffer?: Uint8Array): string[] {
  const out: string[] = []
  const fd = openSync(path, 'r')
  try {
    const size = fstatSync(fd).size
    const want = Math.min(partBytes, size)
    const buf = buffer && buffer.length >= want ? buffer.subarray(0, want) : new Uint8Array(want)
    let pos = 0
    while (pos < size) {
      const n = readFully(fd, buf, pos, Math.min(partBytes, size - pos))
      if (n === 0) break
      const part = buf.subarray(0, n)
      out.push(xxh3Hex(part))
      onPart?.(part)
      pos += n
    }
    // A file that shrank while being read is short of parts; one that grew is caught by its size.
    if (pos !== size) throw new IndexLoadError(path, `changed size while being read`)
    return out
  } finally {
    closeSync(fd)
  }
}

/** Reads up to `length` bytes at `pos` into the start of `buf`; fewer only at the end of the file. */
export function readFully(fd: number, buf: Uint8Array, pos: number, length: number): number {
  let n = 0
  while (n < length) {
    const got = readSync(fd, buf, n, length - n, pos + n)
    if (got <= 0) break
    n += got
  }
  return n
}
