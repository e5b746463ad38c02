import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { tableFromIPC } from 'apache-arrow'
import { batchedIfHuge, tableFromColumns } from '../index-builder/encode/arrow-table'
import { writeArrowFile } from '../index-builder/encode/write-arrow-file'
import { loadBatchedTable, partChecksums } from '../src/store/batched-table'
import { PHOTO_LAYOUT } from '../src/store/column-layout'
import { IndexLoadError } from '../src/store/index-load-error'
import { testStore } from './setup/test-app'

/**
 * A photo table too big for one 4 GiB buffer is written as record batches and read back one
 * batch at a time into one array per column. Proved here on the real test index with a tiny
 * threshold: the batched file's columns, read back, equal the photo columns the store holds.
 */
const scratch = mkdtempSync(join(tmpdir(), 'batched-table-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe('photo tables over the one-buffer limit', () => {
  test('are written as record batches and read back batch by batch into the same columns', async () => {
    const store = await testStore()
    const p = store.photos
    const path = join(scratch, 'photos.arrow')
    await writeArrowFile(path, batchedIfHuge(tableFromColumns(PHOTO_LAYOUT, p as never, p.length), 0, 997))
    const written = tableFromIPC(readFileSync(path))
    expect(written.batches.length).toBe(Math.ceil(p.length / 997))
    const back = await loadBatchedTable(path, PHOTO_LAYOUT, p.length)
    for (const [name] of PHOTO_LAYOUT) {
      const a = (p as any)[name]
      const b = back[name] as any
      if (ArrayBuffer.isView(a)) expect(Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength))).toBe(0)
      else if ('offsets' in a) {
        expect([...b.offsets]).toEqual([...a.offsets])
        expect(Buffer.compare(Buffer.from(a.data), Buffer.from(b.data))).toBe(0)
      } else {
        expect(b.dict).toEqual(a.dict)
        expect([...b.codes]).toEqual([...a.codes])
      }
    }
  })

  test('a batched file holding fewer rows than the manifest says is refused, naming the file', async () => {
    const store = await testStore()
    const path = join(scratch, 'photos.arrow')
    await expect(loadBatchedTable(path, PHOTO_LAYOUT, store.photos.length + 1)).rejects.toBeInstanceOf(IndexLoadError)
  })

  test('read in parts smaller than a message, mapped or read, the batched file gives the same columns as read in one part', async () => {
    const store = await testStore()
    const path = join(scratch, 'photos.arrow')
    const whole = await loadBatchedTable(path, PHOTO_LAYOUT, store.photos.length)
    // 4099 bytes: parts end inside message headers, metadata and column buffers alike.
    const check = { xxh3Parts: partChecksums(path, undefined, 4099), partBytes: 4099 }
    const mapped = await loadBatchedTable(path, PHOTO_LAYOUT, store.photos.length, check)
    process.env.INDEX_MMAP = '0'
    const read = await loadBatchedTable(path, PHOTO_LAYOUT, store.photos.length, check).finally(() => delete process.env.INDEX_MMAP)
    for (const [name, kind] of PHOTO_LAYOUT) for (const parts of [mapped, read]) {
      const [a, b] = [whole[name] as any, parts[name] as any]
      if (kind === 'utf8') expect(Buffer.compare(Buffer.from(b.data), Buffer.from(a.data)) + Buffer.compare(Buffer.from(b.offsets.buffer), Buffer.from(a.offsets.buffer))).toBe(0)
      else if (kind === 'dict' || kind === 'dict16') expect([b.dict, Buffer.from(b.codes.buffer)]).toEqual([a.dict, Buffer.from(a.codes.buffer)])
      else expect(Buffer.compare(Buffer.from(b.buffer), Buffer.from(a.buffer))).toBe(0)
    }
  })

  test('one flipped byte anywhere in a batched file (header, a batch, the footer) refuses it, by part checksum or SHA-256', async () => {
    const path = join(scratch, 'photos.arrow')
    const good = readFileSync(path)
    const partBytes = 1 << 20
    const xxh3Parts = partChecksums(path, undefined, partBytes)
    expect(xxh3Parts.length).toBeGreaterThan(3)
    const sha256 = new Bun.CryptoHasher('sha256').update(good).digest('hex')
    const rows = (await testStore()).photos.length
    const damaged = join(scratch, 'damaged.arrow')
    for (const at of [3, 5000, partBytes + 17, Math.floor(good.length / 2), good.length - 12, good.length - 1]) {
      const bytes = Buffer.from(good)
      bytes[at] ^= 0x10
      writeFileSync(damaged, bytes)
      await expect(loadBatchedTable(damaged, PHOTO_LAYOUT, rows, { xxh3Parts, partBytes })).rejects.toThrow(/damaged|Arrow/)
      await expect(loadBatchedTable(damaged, PHOTO_LAYOUT, rows, { sha256 })).rejects.toThrow(/damaged|Arrow/)
    }
    writeFileSync(damaged, good)
    expect((await loadBatchedTable(damaged, PHOTO_LAYOUT, rows, { xxh3Parts, partBytes })).length).toBe(rows)
    expect((await loadBatchedTable(damaged, PHOTO_LAYOUT, rows, { sha256 })).length).toBe(rows)
  }, 60_000)

  test('a batched file cut short or with a part missing from the manifest is refused', async () => {
    const path = join(scratch, 'photos.arrow')
    const good = readFileSync(path)
    const partBytes = 1 << 20
    const xxh3Parts = partChecksums(path, undefined, partBytes)
    const rows = (await testStore()).photos.length
    await expect(loadBatchedTable(path, PHOTO_LAYOUT, rows, { xxh3Parts: xxh3Parts.slice(0, -1), partBytes })).rejects.toThrow(/part \d+ .*no such part/)
    const cut = join(scratch, 'cut.arrow')
    writeFileSync(cut, good.subarray(0, good.length - partBytes))
    await expect(loadBatchedTable(cut, PHOTO_LAYOUT, rows)).rejects.toBeInstanceOf(IndexLoadError)
  })

  test('part checksums of a file under a part are the XXH3 of the whole file', () => {
    const path = join(scratch, 'small.bin')
    const bytes = new Uint8Array(100_000).map((_, i) => (i * 31) & 255)
    writeFileSync(path, bytes)
    expect(partChecksums(path)).toEqual([Bun.hash.xxHash3(bytes).toString(16).padStart(16, '0')])
  })
})
