import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { FILES, type Manifest } from '../../src/store/schema'
import { partChecksums } from '../../src/store/part-checksums'

/**
 * The builder that wrote an index. Raised when an index of the previous builder cannot be served
 * as it is (0.2.0: rows ordered by the date_taken_utc sort key, the sol manifest's
 * nasa_earth_date column; 0.3.0: the photos' lat, lon, stereo_partner and sequence columns): `--if-missing` then rebuilds it instead of leaving a server that
 * orders or loads it wrongly.
 */
export const BUILDER = 'index-builder 0.3.0'

/**
 * Bytes of a written file hashed at a time (the digest's one reused buffer). A file of this size
 * or less has one `xxh3`, as always; a larger one `xxh3_parts` of this size each. 4 MiB, not
 * more: the buffer gathers a part's bytes wherever the writer's chunks do not fall on part
 * boundaries (staging-writes.ts), and memory touched for the first time costs ~10 ms a MB on
 * the machines measured (a 64 MiB buffer: ~0.5 s of an update at 60,000 records).
 */
export const DIGEST_PART = 2 ** 22

/**
 * Byte size, SHA-256 and XXH3-64 of every file in `dir` but the manifest. The server verifies
 * the XXH3 checksum at every load (src/store/load-store.ts): it reads at several GB/s, so the
 * content is checked within the load budget, where SHA-256 alone would not fit.
 *
 * Each file is read into one reused buffer of `partBytes`, never mapped: mapped, a file's pages
 * counted in the builder's memory at the very end of a build, on top of everything it held
 * (photos.arrow whole and raw.bin a GiB at a time: ~2 GB at 1.5M records). XXH3 cannot be fed in
 * pieces, so a file larger than the buffer lists the XXH3 of each part (`xxh3_parts`, with
 * `xxh3_part_bytes`); SHA-256, and so the content version, is the whole file's as before.
 * `only` names the files to read (the rest of the folder's digests are known: staging-writes.ts).
 */
export function digestFiles(dir: string, partBytes = DIGEST_PART, only?: readonly string[]): Manifest['files'] {
  const files: Manifest['files'] = {}
  const names = (only ? [...only] : readdirSync(dir)).sort().filter((name) => name !== FILES.manifest && statSync(join(dir, name)).isFile())
  const largest = names.reduce((m, name) => Math.max(m, statSync(join(dir, name)).size), 0)
  const buffer = new Uint8Array(Math.min(partBytes, largest))
  for (const name of names) {
    const path = join(dir, name)
    const sha = new Bun.CryptoHasher('sha256')
    const parts = partChecksums(path, (part) => sha.update(part), partBytes, buffer)
    const size = statSync(path).size
    const sha256 = sha.digest('hex')
    files[name] = parts.length <= 1 ? { bytes: size, sha256, xxh3: parts[0] ?? xxh3Hex(new Uint8Array(0)) } : { bytes: size, sha256, xxh3_parts: parts, xxh3_part_bytes: partBytes }
  }
  return files
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
