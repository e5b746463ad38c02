import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { closeSync, mkdirSync, mkdtempSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { digestFiles } from '../index-builder/encode/manifest'
import { StagingWrites } from '../index-builder/encode/staging-writes'

/**
 * The build takes each file's manifest digest from the bytes as it writes them (staging-writes.ts)
 * instead of reading the files back. Whatever the chunks' sizes against the XXH3 parts, the
 * entries must be digestFiles' of the written files, byte for byte; a file the sinks did not see
 * (or one replaced after its sink closed) is read and hashed as before.
 */
const PART = 4099
let work: string

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'mv-staging-writes-'))
})
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** Deterministic bytes: a different value at every offset, so a part hashed from the wrong place shows. */
function bytesOf(n: number, seed: number): Uint8Array {
  const b = new Uint8Array(n)
  let x = seed >>> 0 || 1
  for (let i = 0; i < n; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    b[i] = x & 255
  }
  return b
}

/** Writes `data` to `path` in chunks of the given sizes (repeated), through a sink of `digests`, which then syncs and closes it. */
function writeInChunks(digests: StagingWrites, path: string, data: Uint8Array, sizes: number[]): void {
  const fd = openSync(path, 'w')
  const sink = digests.sink(path)
  for (let off = 0, i = 0; off < data.length; i++) {
    const chunk = data.subarray(off, off + sizes[i % sizes.length]!)
    writeSync(fd, chunk)
    sink.update(chunk)
    off += chunk.length
  }
  sink.finish(fd)
}

describe('digests taken while writing', () => {
  test('equal digestFiles of the written files for chunks smaller than, spanning, equal to and many times the part, an empty file and a file of exactly two parts', async () => {
    const dir = join(work, 'chunks')
    mkdirSync(dir)
    const digests = new StagingWrites(PART)
    writeInChunks(digests, join(dir, 'a-small-chunks.arrow'), bytesOf(5 * PART + 77, 1), [1, 7, 100, 999, 3])
    writeInChunks(digests, join(dir, 'b-spanning.arrow'), bytesOf(7 * PART + 1, 2), [PART - 1, PART + 2, 3 * PART + 5])
    writeInChunks(digests, join(dir, 'c-one-big-chunk.arrow'), bytesOf(9 * PART + 10, 3), [9 * PART + 10])
    writeInChunks(digests, join(dir, 'd-aligned.arrow'), bytesOf(2 * PART, 4), [PART])
    writeInChunks(digests, join(dir, 'e-under-a-part.arrow'), bytesOf(PART - 5, 5), [10, 20])
    writeInChunks(digests, join(dir, 'f-empty.arrow'), new Uint8Array(0), [1])
    writeInChunks(digests, join(dir, 'g-offset-then-big.bin'), bytesOf(6 * PART + 3, 6), [13, 5 * PART, 2 * PART])
    const read = digestFiles(dir, PART)
    const taken = await digests.files(dir)
    expect(Object.keys(taken)).toEqual(Object.keys(read))
    expect(taken).toEqual(read)
    // The shapes really were exercised: parts for the big files, one xxh3 for the small and the empty.
    expect(taken['b-spanning.arrow']!.xxh3_parts!.length).toBe(8)
    expect(taken['d-aligned.arrow']!.xxh3_parts!.length).toBe(2)
    expect(taken['e-under-a-part.arrow']!.xxh3).toBeDefined()
    expect(taken['f-empty.arrow']).toEqual({ bytes: 0, sha256: read['f-empty.arrow']!.sha256, xxh3: read['f-empty.arrow']!.xxh3! })
  })

  test('a file written beside the sinks, or replaced after its sink closed, is read and hashed: the entries are still the files on disk', async () => {
    const dir = join(work, 'replaced')
    mkdirSync(dir)
    const digests = new StagingWrites(PART)
    writeInChunks(digests, join(dir, 'kept.arrow'), bytesOf(3 * PART, 7), [1000])
    writeInChunks(digests, join(dir, 'replaced.arrow'), bytesOf(3 * PART, 8), [1000])
    // Same size, other bytes, a new inode in its place.
    writeFileSync(join(dir, 'next.tmp'), bytesOf(3 * PART, 9))
    renameSync(join(dir, 'next.tmp'), join(dir, 'replaced.arrow'))
    writeFileSync(join(dir, 'unseen.arrow'), bytesOf(PART + 1, 10))
    writeFileSync(join(dir, 'manifest.json'), '{}')
    const taken = await digests.files(dir)
    expect(taken).toEqual(digestFiles(dir, PART))
    expect(Object.keys(taken)).toEqual(['kept.arrow', 'replaced.arrow', 'unseen.arrow'])
  })

  test('beside a file it did not write, only that file is read back: the written ones keep the digests taken as they were written', async () => {
    const dir = join(work, 'only-unknown')
    mkdirSync(dir)
    const digests = new StagingWrites(PART)
    const original = bytesOf(3 * PART, 11)
    writeInChunks(digests, join(dir, 'written.arrow'), original, [1000])
    const asWritten = digestFiles(dir, PART)['written.arrow']
    // Its bytes changed in place afterwards (same inode, same size): a read-back would see the new bytes.
    const fd = openSync(join(dir, 'written.arrow'), 'r+')
    writeSync(fd, bytesOf(3 * PART, 12), 0, 3 * PART, 0)
    closeSync(fd)
    writeFileSync(join(dir, 'unseen.arrow'), bytesOf(PART + 1, 13))
    const taken = await digests.files(dir)
    expect(taken['written.arrow']).toEqual(asWritten)
    expect(taken['written.arrow']).not.toEqual(digestFiles(dir, PART)['written.arrow'])
    expect(taken['unseen.arrow']).toEqual(digestFiles(dir, PART)['unseen.arrow'])
  })

  test('a sink whose file is shorter on disk than the bytes it saw is refused when it closes', () => {
    const dir = join(work, 'short')
    mkdirSync(dir)
    const digests = new StagingWrites(PART)
    const path = join(dir, 'short.arrow')
    writeFileSync(path, bytesOf(10, 11))
    const sink = digests.sink(path)
    sink.update(bytesOf(20, 11))
    expect(() => sink.close()).toThrow(/is 10 bytes, 20 were written/)
  })

  test('a file whose fsync fails (here: its descriptor closed under it) fails files(), naming it: nothing is published unsynced', async () => {
    const dir = join(work, 'unsynced')
    mkdirSync(dir)
    const digests = new StagingWrites(PART)
    const path = join(dir, 'photos.arrow')
    const fd = openSync(path, 'w')
    const sink = digests.sink(path)
    writeSync(fd, bytesOf(100, 12))
    sink.update(bytesOf(100, 12))
    closeSync(fd)
    sink.finish(fd)
    expect(String(await digests.files(dir).catch((e) => e))).toContain(`${path}: fsync failed`)
  })
})
