import zlib from 'node:zlib'
import { TIMESTAMP_SLOT } from '../../src/query/render/envelope'
import type { Coding } from './accept-encoding'

/**
 * Compressed bodies of cached answers without compressing the whole body per request.
 * A cached answer is a template whose only per-response part is meta.timestamp
 * (src/query/cache/response-cache.ts); the text before and after it is compressed once and kept
 * with the cache entry, and each response joins those pieces around the timestamp:
 *  - gzip (RFC 1952/1951): the prefix as raw deflate ended by a sync flush (byte-aligned,
 *    not final), the timestamp as a stored block, the suffix as a final raw deflate stream;
 *    the CRC-32 continues from the prefix's over the timestamp and suffix bytes only.
 *  - zstd (RFC 8878 §3.1): concatenated frames decode to the concatenated content: a
 *    compressed frame of the prefix, a raw-block frame of the timestamp, one of the suffix.
 *  - br has no such seam: its bodies are compressed per timestamp (one per millisecond at
 *    most, shared by the requests of that millisecond).
 */
export const GZIP_LEVEL = 6
export const ZSTD_LEVEL = 3
export const BROTLI_QUALITY = 5

const enc = new TextEncoder()
const GZIP_HEADER = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff])

interface GzipPieces {
  head: Uint8Array
  prefixCrc: number
  prefixLength: number
  suffix: Uint8Array
  tail: Uint8Array
}
interface ZstdPieces {
  head: Uint8Array
  tail: Uint8Array
}

/** Pieces per coding, kept on the cache entry (its `variants` map). */
export type Variants = Map<string, unknown>

export function splitTemplate(template: string): { prefix: string; suffix: string } | undefined {
  const i = template.indexOf(TIMESTAMP_SLOT)
  if (i < 0) return undefined
  return { prefix: template.slice(0, i), suffix: template.slice(i + TIMESTAMP_SLOT.length) }
}

/**
 * The `coding` body of `stamped` (= the template with its timestamp filled), from pieces kept
 * in `variants`; undefined when the template has no timestamp slot.
 */
export function splicedBody(template: string, stamped: string, coding: Coding, variants: Variants): Uint8Array | undefined {
  // Where the slot sits, found once per entry: indexOf over a 20 KB body costs ~7 µs.
  let split = variants.get('split') as { prefix: string; suffix: string } | null | undefined
  if (split === undefined) variants.set('split', (split = splitTemplate(template) ?? null))
  if (split === null) return undefined
  const stamp = enc.encode(stamped.slice(split.prefix.length, stamped.length - split.suffix.length))
  if (coding === 'gzip') {
    let p = variants.get('gzip') as GzipPieces | undefined
    if (!p) variants.set('gzip', (p = gzipPieces(split.prefix, split.suffix)))
    return gzipJoin(p, stamp)
  }
  if (coding === 'zstd') {
    let p = variants.get('zstd') as ZstdPieces | undefined
    if (!p) variants.set('zstd', (p = { head: zlib.zstdCompressSync(enc.encode(split.prefix), zstdOptions()), tail: zlib.zstdCompressSync(enc.encode(split.suffix), zstdOptions()) }))
    return concat([p.head, rawZstdFrame(stamp), p.tail])
  }
  const last = variants.get('br') as { stamped: string; body: Uint8Array } | undefined
  if (last && last.stamped === stamped) return last.body
  const body = compressWhole(stamped, 'br')
  variants.set('br', { stamped, body })
  return body
}

export function compressWhole(text: string, coding: Coding): Uint8Array {
  const bytes = enc.encode(text)
  if (coding === 'gzip') return zlib.gzipSync(bytes, { level: GZIP_LEVEL })
  if (coding === 'zstd') return zlib.zstdCompressSync(bytes, zstdOptions())
  return zlib.brotliCompressSync(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } })
}

function zstdOptions() {
  return { params: { [zlib.constants.ZSTD_c_compressionLevel]: ZSTD_LEVEL } }
}

function gzipPieces(prefix: string, suffix: string): GzipPieces {
  const pre = enc.encode(prefix)
  const suf = enc.encode(suffix)
  const raw = zlib.deflateRawSync(pre, { level: GZIP_LEVEL, finishFlush: zlib.constants.Z_SYNC_FLUSH })
  return {
    head: concat([GZIP_HEADER, raw]),
    prefixCrc: zlib.crc32(pre),
    prefixLength: pre.length,
    suffix: suf,
    tail: zlib.deflateRawSync(suf, { level: GZIP_LEVEL }),
  }
}

function gzipJoin(p: GzipPieces, stamp: Uint8Array): Uint8Array {
  // Stored block (RFC 1951 §3.2.4): BFINAL=0, BTYPE=00, padded to the byte; LEN, NLEN little-endian.
  const n = stamp.length
  const stored = new Uint8Array([0, n & 0xff, n >> 8, ~n & 0xff, (~n >> 8) & 0xff])
  const crc = zlib.crc32(p.suffix, zlib.crc32(stamp, p.prefixCrc))
  const size = (p.prefixLength + n + p.suffix.length) >>> 0
  const trailer = new Uint8Array(8)
  const dv = new DataView(trailer.buffer)
  dv.setUint32(0, crc >>> 0, true)
  dv.setUint32(4, size, true)
  return concat([p.head, stored, stamp, p.tail, trailer])
}

/** A zstd frame holding `data` in one raw block (RFC 8878 §3.1.1): single segment, 1-byte content size. */
function rawZstdFrame(data: Uint8Array): Uint8Array {
  const n = data.length // a timestamp: well under 256 bytes
  const header = new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0x20, n, 1 | ((n << 3) & 0xff), (n << 3) >> 8, (n << 3) >> 16])
  return concat([header, data])
}

function concat(parts: Uint8Array[]): Uint8Array {
  let size = 0
  for (const p of parts) size += p.length
  const out = new Uint8Array(size)
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}
