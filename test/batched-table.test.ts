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

  test('part checksums of a file under a part are the XXH3 of the whole file', () => {
    const path = join(scratch, 'small.bin')
    const bytes = new Uint8Array(100_000).map((_, i) => (i * 31) & 255)
    writeFileSync(path, bytes)
    expect(partChecksums(path)).toEqual([Bun.hash.xxHash3(bytes).toString(16).padStart(16, '0')])
  })
})
