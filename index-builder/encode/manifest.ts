import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { FILES, RAW_FILES, type Manifest } from '../../src/store/schema'
import { ONE_BUFFER_LIMIT, partChecksums } from '../../src/store/batched-table'
import { releaseMemory } from './release-memory'

/**
 * The builder that wrote an index. Raised when an index of the previous builder cannot be served
 * as it is (0.2.0: rows ordered by the date_taken_utc sort key, the sol manifest's
 * nasa_earth_date column; 0.3.0: the photos' lat, lon, stereo_partner and sequence columns): `--if-missing` then rebuilds it instead of leaving a server that
 * orders or loads it wrongly.
 */
export const BUILDER = 'index-builder 0.3.0'

/**
 * Byte size, SHA-256 and XXH3-64 of every file in `dir` but the manifest. The server verifies
 * the XXH3 checksum at every load (src/store/load-store.ts): it reads at several GB/s, so the
 * content is checked within the load budget, where SHA-256 alone would not fit.
 */
export function digestFiles(dir: string): Manifest['files'] {
  const files: Manifest['files'] = {}
  for (const name of readdirSync(dir).sort()) {
    if (name === FILES.manifest) continue
    const path = join(dir, name)
    if (!statSync(path).isFile()) continue
    const size = statSync(path).size
    // raw.bin (GBs the server maps, never reads whole) is hashed a GiB at a time like a file
    // past one buffer: mapped whole, its pages counted in the builder's memory (+2.9 GB at 1.5M records).
    if (size >= ONE_BUFFER_LIMIT || name === RAW_FILES.text) {
      const sha = new Bun.CryptoHasher('sha256')
      const parts = partChecksums(path, (part) => sha.update(part))
      files[name] = { bytes: size, sha256: sha.digest('hex'), xxh3_parts: parts }
      continue
    }
    let bytes: Uint8Array | undefined = fileBytes(path)
    files[name] = { bytes: bytes.length, sha256: new Bun.CryptoHasher('sha256').update(bytes).digest('hex'), xxh3: xxh3Hex(bytes) }
    // Unmap before the next file: two big files mapped at once would count twice in memory.
    bytes = undefined
    releaseMemory(size)
  }
  return files
}

/**
 * A file of 4 GiB or more (the photos.arrow of ~16M photos and more) cannot be hashed in one
 * XXH3 call (Bun caps an ArrayBuffer at 4 GiB): its entry carries `xxh3_parts`, the XXH3 of
 * each GiB, read part by part (src/store/batched-table.ts), instead of `xxh3`.
 */
/** A file's bytes, memory-mapped: the mapped pages are the page cache's, not a second copy on the heap. */
function fileBytes(path: string): Uint8Array {
  if (statSync(path).size === 0) return new Uint8Array(0)
  return Bun.mmap(path, { shared: false })
}

/**
 * The content version: SHA-256 over the sorted "name sha256" lines of the data files, first 16
 * hex digits. It changes iff some file's content changes, and is independent of build time, so
 * the same inputs (or the same synthetic seed) always give the same version. NASA's manifest
 * totals live in manifest.json, not in a data file, yet answers carry them: when present they
 * are one more line, so a change of theirs alone is a new version (and new ETags).
 */
export function contentVersion(files: Manifest['files'], nasaManifests?: Manifest['nasa_manifests']): string {
  let lines = Object.keys(files)
    .sort()
    .map((name) => `${name} ${files[name]!.sha256}\n`)
    .join('')
  if (nasaManifests) lines += `nasa_manifests ${JSON.stringify(nasaManifests)}\n`
  return new Bun.CryptoHasher('sha256').update(lines).digest('hex').slice(0, 16)
}

export function manifestJson(m: Manifest): string {
  return JSON.stringify(m, null, 2) + '\n'
}

/** Reads a manifest, or undefined when the file is missing or not a manifest of this schema. */
export function readManifest(dir: string): Manifest | undefined {
  try {
    const m = JSON.parse(readFileSync(join(dir, FILES.manifest), 'utf8')) as Manifest
    return m && m.schema_version === 1 && typeof m.version === 'string' && m.files ? m : undefined
  } catch {
    return undefined
  }
}

/** XXH3-64 of `bytes` as 16 hex digits (Bun.hash.xxHash3), the per-file checksum of the manifest. */
export function xxh3Hex(bytes: Uint8Array): string {
  return Bun.hash.xxHash3(bytes).toString(16).padStart(16, '0')
}
