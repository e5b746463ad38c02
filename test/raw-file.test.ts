import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { closeSync, cpSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildIndex } from '../index-builder/build-index'
import { tableFromColumns } from '../index-builder/encode/arrow-table'
import { writeArrowFile } from '../index-builder/encode/write-arrow-file'
import { RAW_ENDS_LAYOUT } from '../src/store/column-layout'
import { LEDGER_FILE } from '../src/ledger/ledger-file'
import { IndexLoadError } from '../src/store/index-load-error'
import { loadStore } from '../src/store/load-store'
import { FILES, RAW_FILES, type TextColumn } from '../src/store/schema'
import type { Store } from '../src/store/store'
import { makeTestApp, testStore, type TestApp } from './setup/test-app'

/**
 * The raw JSON of a big catalogue does not fit photos.arrow (a Utf8 column holds 2 GiB; 1.5
 * million feed records make ~2.9 GB): past BUILD_RAW_INLINE_BYTES the builder spills it and writes
 * raw.bin in the default row order plus raw-ends.arrow (index-builder/encode/raw-file.ts), and the
 * server maps raw.bin (src/store/raw-text.ts). Here the limit is forced down to 1,000 bytes so the
 * bundled sources take that path, and the index is compared with the test index (inline raw JSON)
 * built from the same sources: every other file the same, every photo's raw JSON the same, the
 * same `complete` answers and exports; raw.bin is checked at load like every file.
 */
let work: string
let split: Store
let inline: Store
let splitDir: string
let a: TestApp
let b: TestApp
const decoder = new TextDecoder()
const text = (c: TextColumn, row: number) => decoder.decode(c.data.subarray(c.offsets[row], c.offsets[row + 1]))

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'mv-raw-file-'))
  // The test index's arrival ledger, so both give each photo the same added_at.
  mkdirSync(join(work, 'index'))
  cpSync(join(process.env.INDEX_DIR!, LEDGER_FILE), join(work, 'index', LEDGER_FILE))
  const built = await buildIndex({ out: join(work, 'index'), rawInlineBytes: 1000 })
  splitDir = built.dir
  split = await loadStore(join(work, 'index'))
  inline = await testStore()
  a = await makeTestApp({ store: inline })
  b = await makeTestApp({ store: split })
}, 600_000)
afterAll(async () => {
  await a?.close()
  await b?.close()
  rmSync(work, { recursive: true, force: true })
})

describe('raw JSON past the inline limit goes to raw.bin', () => {
  test('the index lists raw.bin and raw-ends.arrow, photos.arrow holds no raw JSON, and the spill file is gone', () => {
    expect(Object.keys(split.manifest.files)).toContain(RAW_FILES.text)
    expect(Object.keys(split.manifest.files)).toContain(RAW_FILES.ends)
    expect(Object.keys(inline.manifest.files)).not.toContain(RAW_FILES.text)
    expect(split.manifest.files[RAW_FILES.text]!.bytes).toBe(inline.photos.raw.data.length)
    expect(split.photos.raw.offsets).toBeInstanceOf(Float64Array)
    expect(readdirSync(join(work, 'index')).filter((n) => n.startsWith('.'))).toEqual([])
    expect(split.manifest.version).not.toBe(inline.manifest.version)
  })

  test('every data file but photos.arrow is the same as the inline build of the same sources', () => {
    for (const [name, f] of Object.entries(inline.manifest.files)) {
      if (name === FILES.photos) continue
      expect({ name, sha256: split.manifest.files[name]?.sha256 }).toEqual({ name, sha256: f.sha256 })
    }
    expect(split.manifest.rows).toEqual(inline.manifest.rows)
  })

  test('every photo has the same raw JSON, row for row, as in the inline index', () => {
    const n = inline.photos.length
    expect(split.photos.length).toBe(n)
    let withText = 0
    for (let row = 0; row < n; row++) {
      expect(split.photos.id[row]).toBe(inline.photos.id[row]!)
      const want = text(inline.photos.raw, row)
      if (text(split.photos.raw, row) !== want) expect({ row, raw: text(split.photos.raw, row) }).toEqual({ row, raw: want })
      if (want) withText++
    }
    expect(withText).toBeGreaterThan(15_000)
  })

  for (const query of ['rovers=perseverance&per_page=100&field_set=complete', 'rovers=curiosity&per_page=100&page=3&field_set=complete', 'rovers=spirit,opportunity&per_page=50&field_set=complete&sort=-sol']) {
    test(`GET /api/v2/photos?${query} answers the same photos with the same raw members`, async () => {
      const [x, y] = await Promise.all([a.request(`/api/v2/photos?${query}`), b.request(`/api/v2/photos?${query}`)])
      expect(y.status).toBe(200)
      const [bx, by] = [(await x.json()) as { data: Array<{ attributes: { raw?: unknown } }> }, (await y.json()) as { data: unknown[] }]
      expect(bx.data.length).toBeGreaterThan(0)
      expect(bx.data.some((p) => p.attributes.raw !== undefined)).toBe(true)
      expect(by.data).toEqual(bx.data)
    })
  }

  for (const format of ['csv', 'ndjson', 'arrow']) {
    test(`the ${format} export with field_set=complete has the same bytes`, async () => {
      const q = `/api/v2/photos/export?format=${format}&rovers=perseverance,curiosity&sol_max=60&field_set=complete`
      const [x, y] = await Promise.all([a.request(q), b.request(q)])
      expect(y.status).toBe(200)
      const [bx, by] = [new Uint8Array(await x.arrayBuffer()), new Uint8Array(await y.arrayBuffer())]
      expect(bx.length).toBeGreaterThan(10_000)
      expect(Bun.hash.xxHash3(by)).toBe(Bun.hash.xxHash3(bx))
    })
  }
})

describe('raw.bin and raw-ends.arrow are checked at load', () => {
  function copy(name: string): string {
    const dir = join(work, name)
    cpSync(splitDir, dir, { recursive: true })
    return dir
  }

  test('4 KB of raw.bin overwritten in place (same size): refused by the default check, naming raw.bin', async () => {
    const dir = copy('damaged-raw')
    const path = join(dir, RAW_FILES.text)
    const at = Math.floor(statSync(path).size / 2)
    const old = readFileSync(path).subarray(at, at + 4096)
    const fd = openSync(path, 'r+')
    writeSync(fd, old.map((v) => v ^ 0x5a), 0, old.length, at)
    closeSync(fd)
    const err = await loadStore(dir).catch((e) => e)
    expect(err).toBeInstanceOf(IndexLoadError)
    expect((err as IndexLoadError).file).toBe(path)
  })

  test('raw-ends.arrow whose ends go backwards (same size, checks off): refused naming raw-ends.arrow', async () => {
    const dir = copy('backwards-ends')
    const ends = split.photos.raw.offsets.slice(1) as Float64Array
    const swapped = Float64Array.from(ends)
    const k = ends.findIndex((v, i) => i > 0 && v > ends[i - 1]!)
    swapped[k - 1] = ends[k]!
    swapped[k] = ends[k - 1]!
    const path = join(dir, RAW_FILES.ends)
    const before = statSync(path).size
    await writeArrowFile(path, tableFromColumns(RAW_ENDS_LAYOUT, { raw_end: swapped }, swapped.length))
    expect(statSync(path).size).toBe(before)
    const err = await loadStore(dir, { verify: 'size' }).catch((e) => e)
    expect(err).toBeInstanceOf(IndexLoadError)
    expect((err as IndexLoadError).file).toBe(path)
    expect(String((err as Error).message)).toContain('not a byte count at or past the row before')
  })

  test('raw.bin is checksummed like every file (one xxh3 under a digest part, an xxh3 per part past it) and an intact copy loads with the SHA-256 check too', async () => {
    const f = split.manifest.files[RAW_FILES.text]!
    const parts = f.xxh3 !== undefined ? [f.xxh3] : f.xxh3_parts!
    expect(parts.length).toBe(Math.max(1, Math.ceil(f.bytes / (f.xxh3_part_bytes ?? f.bytes))))
    for (const h of parts) expect(h).toMatch(/^[0-9a-f]{16}$/)
    const intact = await loadStore(copy('intact'), { verify: 'sha256' })
    expect(text(intact.photos.raw, 5)).toBe(text(inline.photos.raw, 5))
  })

  test('raw.bin cut short: refused by its size before anything is read', async () => {
    const dir = copy('short-raw')
    const path = join(dir, RAW_FILES.text)
    const fd = openSync(path, 'r+')
    const { ftruncateSync } = await import('node:fs')
    ftruncateSync(fd, statSync(path).size - 1)
    closeSync(fd)
    const err = await loadStore(dir).catch((e) => e)
    expect(err).toBeInstanceOf(IndexLoadError)
    expect((err as IndexLoadError).file).toBe(path)
  })
})
