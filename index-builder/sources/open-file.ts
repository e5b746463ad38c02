import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { maxFileBytes } from './input-limits'
import { SourceError } from './source-error'

/**
 * A source file's contents as text: gunzipped when it is gzip (by its magic bytes, whatever its name),
 * split into members when it is a tar archive (POSIX ustar / GNU, as `tar czf` writes it).
 *
 * The file is untrusted: its bytes on disk and its decompressed bytes are bounded by
 * `maxFileBytes()` (zlib stops at the bound instead of growing a buffer to the bomb's size), and
 * text is decoded as strict UTF-8 (`fatal`), so a malformed byte is an error naming the file instead
 * of a U+FFFD in a served value.
 */
export interface FileText {
  /** The member name inside an archive, else undefined. */
  member?: string
  text: string
}

export function openFile(absPath: string, displayPath: string): FileText[] {
  const bytes = openBytes(absPath, displayPath)
  if (isTar(bytes)) return untar(bytes, displayPath)
  return [{ text: decodeText(bytes, displayPath) }]
}

/**
 * A source file's bytes, gunzipped when it is gzip, under the same bounds as openFile: for a file
 * read as bytes rather than text (a PDS3 ASCII table, whose rows are checked byte by byte).
 */
export function openBytes(absPath: string, displayPath: string): Uint8Array {
  const limit = maxFileBytes()
  let bytes: Uint8Array = readBounded(absPath, displayPath, limit)
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = gunzipSync(bytes, { maxOutputLength: limit })
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new SourceError(displayPath, 'file', `decompressed size exceeds ${limit} bytes (BUILD_MAX_FILE_BYTES)`)
      throw new SourceError(displayPath, 'file', `not a valid gzip file (${(e as Error).message})`)
    }
  }
  return bytes
}

/** The file's bytes, refusing one larger than the limit before reading it. */
function readBounded(absPath: string, displayPath: string, limit: number): Uint8Array {
  let fd: number
  try {
    fd = openSync(absPath, 'r')
  } catch (e) {
    throw new SourceError(displayPath, 'file', `cannot open (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`)
  }
  try {
    const size = fstatSync(fd).size
    if (size > limit) throw new SourceError(displayPath, 'file', `file size ${size} exceeds ${limit} bytes (BUILD_MAX_FILE_BYTES)`)
    const buf = new Uint8Array(size)
    let at = 0
    while (at < size) {
      const n = readSync(fd, buf, at, size - at, null)
      if (n <= 0) break
      at += n
    }
    return at === size ? buf : buf.subarray(0, at)
  } catch (e) {
    if (e instanceof SourceError) throw e
    throw new SourceError(displayPath, 'file', `cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`)
  } finally {
    closeSync(fd)
  }
}

const decoder = new TextDecoder('utf-8', { fatal: true })

function decodeText(bytes: Uint8Array, where: string): string {
  let s: string
  try {
    s = decoder.decode(bytes)
  } catch {
    throw new SourceError(where, 'file', 'not valid UTF-8 text')
  }
  return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s
}

function isTar(b: Uint8Array): boolean {
  return b.length >= 512 && ascii(b, 257, 5) === 'ustar'
}

function ascii(b: Uint8Array, at: number, len: number): string {
  let s = ''
  for (let i = at; i < at + len && i < b.length && b[i] !== 0; i++) s += String.fromCharCode(b[i]!)
  return s
}

/** Regular-file members of a tar archive, in archive order. */
function untar(b: Uint8Array, displayPath: string): FileText[] {
  const out: FileText[] = []
  let at = 0
  let longName: string | undefined
  while (at + 512 <= b.length) {
    if (b[at] === 0) break // end-of-archive block
    const name = ascii(b, at, 100)
    const sizeText = ascii(b, at + 124, 12).trim()
    if (!/^[0-7]*$/.test(sizeText)) throw new SourceError(displayPath, 'file', `corrupt tar header at byte ${at}`)
    const size = parseInt(sizeText || '0', 8)
    const type = String.fromCharCode(b[at + 156] || 0x30)
    const prefix = ascii(b, at + 345, 155)
    const body = at + 512
    if (body + size > b.length) throw new SourceError(displayPath, 'file', `tar member "${name}" is truncated`)
    if (type === 'L') longName = ascii(b, body, Math.min(size, 4096))
    else if (type === '0' || type === '\0' || type === '7') {
      const full = longName ?? (prefix ? `${prefix}/${name}` : name)
      const where = `${displayPath}:${full}`
      out.push({ member: full, text: decodeText(b.subarray(body, body + size), where) })
      longName = undefined
    } else longName = undefined // directories, pax headers, links: not data
    at = body + Math.ceil(size / 512) * 512
  }
  return out
}
