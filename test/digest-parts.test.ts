import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { contentVersion, digestFiles, DIGEST_PART, manifestJson } from '../index-builder/encode/manifest'
import { IndexLoadError } from '../src/store/index-load-error'
import { loadStore } from '../src/store/load-store'
import { FILES, type Manifest } from '../src/store/schema'
import { copyIndex } from './setup/index-copy'

/**
 * The builder hashes every written file through one reused buffer (digestFiles), never mapping
 * it, so the digest adds no file pages to the build's memory. A file larger than the buffer is
 * listed with the XXH3 of each part (`xxh3_parts`, `xxh3_part_bytes`), which the loader checks
 * part by part, whether it reads the file whole (photos.arrow) or only checks it (access paths).
 * Here the test index is digested again with parts of 4,099 bytes, so its real files take that path.
 */
const PART = 4099
let work: string
let dir: string
let versionDir: string
let original: Manifest
let parted: Manifest

const manifestOf = (d: string) => JSON.parse(readFileSync(join(d, FILES.manifest), 'utf8')) as Manifest
const writeManifest = (d: string, m: Manifest) => writeFileSync(join(d, FILES.manifest), manifestJson(m))
/** digestFiles of a version folder, less the files written after the digest (the arrival ledger). */
const digestListed = (d: string, partBytes?: number): Manifest['files'] => Object.fromEntries(Object.entries(digestFiles(d, partBytes)).filter(([name]) => name in original.files))

/** A copy of the test index whose manifest lists the files in parts of PART bytes. */
function partedCopy(name: string): string {
  const { dir: d, version } = copyIndex(work, name)
  writeManifest(join(d, version), { ...original, files: digestListed(join(d, version), PART) })
  return d
}

function flipByte(path: string, at: number): void {
  const fd = openSync(path, 'r+')
  const b = new Uint8Array(1)
  readSync(fd, b, 0, 1, at)
  writeSync(fd, new Uint8Array([b[0]! ^ 0x5a]), 0, 1, at)
  closeSync(fd)
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'mv-digest-parts-'))
  const copy = copyIndex(work, 'index')
  dir = copy.dir
  versionDir = join(dir, copy.version)
  original = manifestOf(versionDir)
  parted = { ...original, files: digestListed(versionDir, PART) }
  writeManifest(versionDir, parted)
})
afterAll(() => rmSync(work, { recursive: true, force: true }))

describe('the digest reads each file in parts into one buffer', () => {
  test('at the default part the digest of the test index read back is the one the build took as it wrote, file for file', () => {
    expect(DIGEST_PART).toBe(2 ** 22)
    expect(digestListed(versionDir)).toEqual(original.files)
  })

  test('in small parts: same sizes and SHA-256 (so the same content version), XXH3 per part for files past a part', () => {
    expect(Object.keys(parted.files)).toEqual(Object.keys(original.files))
    let multi = 0
    for (const [name, f] of Object.entries(parted.files)) {
      expect(f.bytes).toBe(original.files[name]!.bytes)
      expect(f.sha256).toBe(original.files[name]!.sha256)
      if (f.bytes <= PART) {
        expect(f.xxh3).toBe(original.files[name]!.xxh3!)
        expect(f.xxh3_parts).toBeUndefined()
        continue
      }
      multi++
      expect(f.xxh3).toBeUndefined()
      expect(f.xxh3_part_bytes).toBe(PART)
      expect(f.xxh3_parts!.length).toBe(Math.ceil(f.bytes / PART))
      const bytes = readFileSync(join(versionDir, name))
      expect(f.xxh3_parts![1]).toBe(Bun.hash.xxHash3(bytes.subarray(PART, 2 * PART)).toString(16).padStart(16, '0'))
    }
    expect(multi).toBeGreaterThan(3)
    expect(parted.files[FILES.photos]!.xxh3_parts!.length).toBeGreaterThan(100)
    expect(contentVersion(parted.files, parted.nasa_manifests)).toBe(original.version)
  })

  test('an index listed in parts loads with the checksum check and with the SHA-256 check, with the same photos', async () => {
    const store = await loadStore(dir)
    expect(store.manifest.version).toBe(original.version)
    expect(store.photos.length).toBe(original.rows.photos)
    expect((await loadStore(dir, { verify: 'sha256' })).photos.length).toBe(original.rows.photos)
  })

  test('one byte changed in photos.arrow (read whole) or in the access paths (checked, not read) fails the load naming that file', async () => {
    for (const name of [FILES.photos, FILES.accessPaths]) {
      const d = partedCopy(`damaged-${name}`)
      const path = join(d, original.version, name)
      flipByte(path, Math.floor(statSync(path).size / 2))
      const err = await loadStore(d).catch((e) => e)
      expect(err).toBeInstanceOf(IndexLoadError)
      expect((err as IndexLoadError).file).toBe(path)
      expect(String((err as Error).message)).toMatch(/checksum \(XXH3\) .*damaged/)
    }
  })

  test('a manifest whose parts do not cover the file, or with a part size of 0, is refused before any file is read', async () => {
    const d = partedCopy('short-list')
    const v = join(d, original.version)
    const m = manifestOf(v)
    const f = m.files[FILES.photos]!
    writeManifest(v, { ...m, files: { ...m.files, [FILES.photos]: { ...f, xxh3_parts: f.xxh3_parts!.slice(1) } } })
    expect(String(await loadStore(d).catch((e) => e))).toContain(`lists ${f.xxh3_parts!.length - 1} xxh3_parts`)
    writeManifest(v, { ...m, files: { ...m.files, [FILES.photos]: { ...f, xxh3_part_bytes: 0 } } })
    expect(String(await loadStore(d).catch((e) => e))).toContain('malformed xxh3_part_bytes')
  })

  test('an index listed before xxh3_part_bytes existed (parts of a GiB, no size stated) still loads', async () => {
    const d = partedCopy('gib-parts')
    const v = join(d, original.version)
    const m = manifestOf(v)
    const name = FILES.accessPaths
    const { bytes, sha256 } = original.files[name]!
    const whole = Bun.hash.xxHash3(readFileSync(join(v, name))).toString(16).padStart(16, '0')
    writeManifest(v, { ...m, files: { ...m.files, [name]: { bytes, sha256, xxh3_parts: [whole] } } })
    expect((await loadStore(d)).photos.length).toBe(original.rows.photos)
  })
})
