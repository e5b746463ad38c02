import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { SourceError } from './source-error'

/**
 * A source file's contents as text: gunzipped when it is gzip (by its magic bytes, whatever its name),
 * split into members when it is a tar archive (POSIX ustar / GNU, as `tar czf` writes it).
 */
export interface FileText {
  /** The member name inside an archive, else undefined. */
  member?: string
  text: string
}

export function openFile(absPath: string, displayPath: string): FileText[] {
  let bytes: Uint8Array = readFileSync(absPath)
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = gunzipSync(bytes)
    } catch (e) {
      throw new SourceError(displayPath, 'file', `not a valid gzip file (${(e as Error).message})`)
    }
  }
  if (isTar(bytes)) return untar(bytes, displayPath)
  return [{ text: decodeText(bytes) }]
}

const decoder = new TextDecoder('utf-8')

function decodeText(bytes: Uint8Array): string {
  const s = decoder.decode(bytes)
  return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s
}

function isTar(b: Uint8Array): boolean {
  return b.length >= 512 && ascii(b, 257, 5) === 'ustar'
}

function ascii(b: Uint8Array, at: number, len: number): string {
  let s = ''
  for (let i = at; i < at + len && b[i] !== 0; i++) s += String.fromCharCode(b[i]!)
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
    const size = parseInt(sizeText || '0', 8)
    if (!Number.isFinite(size) || size < 0) throw new SourceError(displayPath, 'file', `corrupt tar header at byte ${at}`)
    const type = String.fromCharCode(b[at + 156] || 0x30)
    const prefix = ascii(b, at + 345, 155)
    const body = at + 512
    if (body + size > b.length) throw new SourceError(displayPath, 'file', `tar member "${name}" is truncated`)
    if (type === 'L') longName = ascii(b, body, size)
    else if (type === '0' || type === '\0' || type === '7') {
      const full = longName ?? (prefix ? `${prefix}/${name}` : name)
      out.push({ member: full, text: decodeText(b.subarray(body, body + size)) })
      longName = undefined
    } else longName = undefined // directories, pax headers, links: not data
    at = body + Math.ceil(size / 512) * 512
  }
  return out
}
