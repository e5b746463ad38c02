/**
 * The photo table built from normalised records (index-builder/encode/photo-table.ts): letting
 * each record go as its row is written, and keeping each record's JSON in a stash file from the
 * read to the table instead of in memory (encode/raw-file.ts), change nothing in the table.
 */
import { expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { photoTableFromRecords } from '../index-builder/encode/photo-table'
import { readSources } from '../index-builder/normalize/normalize-sources'
import type { PhotoRecord } from '../index-builder/normalize/photo-record'
import { DEFAULT_INCOMING_DIR, DEFAULT_RAW_DIR } from '../index-builder/sources/read-sources'
import { RawStash } from '../index-builder/encode/raw-file'

const FEEDS = join(import.meta.dir, 'fixtures/feeds')

test('a photo table built consuming the records (each let go once written), their JSON read back from the stash it was put in when read, equals the table built keeping every record whole, column for column', async () => {
  // A gzipped feed list (1,196 real records), the two feed page fixtures, and v1 records (which keep their JSON).
  const paths = [join(DEFAULT_INCOMING_DIR, 'mchapman87501__mars_perseverance_images'), join(DEFAULT_RAW_DIR, 'david-c-oliveros__mars-tour-backend'), join(FEEDS, 'm2020-raw-images-page.json'), join(FEEDS, 'msl-raw-image-items-page.json')]
  const whole = (await readSources(paths)).records
  const dir = mkdtempSync(join(tmpdir(), 'raw-stash-'))
  const stash = new RawStash(dir)
  const byRef = (await readSources(paths, { rawStash: stash })).records
  expect(byRef.length).toBe(whole.length)
  expect(whole.length).toBeGreaterThan(1_000)
  // Every record points into the stash instead of holding its JSON.
  expect(byRef.every((r) => r.raw === undefined && r.raw_at !== undefined)).toBe(true)
  const kept = photoTableFromRecords([...whole])
  const list: Array<PhotoRecord | undefined> = [...byRef]
  const consumed = photoTableFromRecords(list, { consume: true, rawStash: stash })
  stash.discard()
  rmSync(dir, { recursive: true, force: true })
  expect(list.length).toBe(0)
  expect(consumed.length).toBe(kept.length)
  const a = kept as unknown as Record<string, unknown>
  const b = consumed as unknown as Record<string, unknown>
  expect(Object.keys(b).sort()).toEqual(Object.keys(a).sort())
  for (const name of Object.keys(a)) expect({ name, column: plain(b[name]) }).toEqual({ name, column: plain(a[name]) })
  // The raw JSON of every record is in its row, in record order.
  const raw = consumed.raw
  const dec = new TextDecoder()
  for (const i of [0, Math.floor(whole.length / 2), whole.length - 1]) expect(dec.decode(raw.data.subarray(raw.offsets[i]!, raw.offsets[i + 1]!))).toBe(whole[i]!.raw ?? '')
}, 180_000)

test('a feed page changed after its records were read changes nothing in the table: the JSON served is the one read', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'raw-stash-'))
  const stash = new RawStash(dir)
  try {
    const page = join(dir, 'page.json')
    writeFileSync(page, readFileSync(join(FEEDS, 'm2020-raw-images-page.json')))
    const { records } = await readSources([page], { rawStash: stash })
    const asRead = (await readSources([page])).records.map((r) => r.raw)
    const doc = JSON.parse(readFileSync(page, 'utf8')) as { images: Array<Record<string, unknown>> }
    doc.images.reverse()
    writeFileSync(page, JSON.stringify(doc))
    const table = photoTableFromRecords(records, { rawStash: stash })
    const dec = new TextDecoder()
    expect(asRead.length).toBeGreaterThan(1)
    asRead.forEach((raw, i) => expect(dec.decode(table.raw.data.subarray(table.raw.offsets[i]!, table.raw.offsets[i + 1]!))).toBe(raw!))
  } finally {
    stash.discard()
    rmSync(dir, { recursive: true, force: true })
  }
})

test('past rawInlineBytes the table keeps no raw JSON: its rows stay in the stash, written in the given order as raw.bin with where each ends', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'raw-stash-'))
  const stash = new RawStash(dir)
  try {
    const page = join(dir, 'page.json')
    writeFileSync(page, readFileSync(join(FEEDS, 'm2020-raw-images-page.json')))
    const asRead = (await readSources([page])).records.map((r) => r.raw!)
    const { records } = await readSources([page], { rawStash: stash })
    const table = photoTableFromRecords(records, { rawStash: stash, rawInlineBytes: 100 })
    expect(table.raw.data.length).toBe(0)
    const spill = table.rawSpill!
    const order = Int32Array.from(asRead.map((_, i) => asRead.length - 1 - i))
    spill.order = order
    const ends = spill.writeOrdered(join(dir, 'raw.bin'))
    const bin = readFileSync(join(dir, 'raw.bin'))
    expect(ends[ends.length - 1]).toBe(bin.length)
    for (let k = 0; k < order.length; k++) expect(bin.subarray(k === 0 ? 0 : ends[k - 1]!, ends[k]!).toString('utf8')).toBe(asRead[order[k]!]!)
  } finally {
    stash.discard()
    rmSync(dir, { recursive: true, force: true })
  }
})

/** A column as plain arrays (typed arrays compared by their values, not by their buffers). */
function plain(c: unknown): unknown {
  if (ArrayBuffer.isView(c)) return Array.from(c as unknown as ArrayLike<number>)
  if (c && typeof c === 'object' && !Array.isArray(c)) return Object.fromEntries(Object.entries(c).map(([k, v]) => [k, plain(v)]))
  return c
}

test('records whose source JSON comes to more than a 2 GiB text column holds fail the table before a row is built, naming the column', () => {
  // Stashed JSON of 1 GiB each (nothing is read: the sizes alone decide), with no limit to spill past.
  const stash = { view: () => new Uint8Array(0) } as unknown as RawStash
  const rec = (i: number): PhotoRecord => ({ rover: 'perseverance', camera: 'NAVCAM_LEFT', nasa_id: `N${i}`, sol: 1, earth_date: '2021-02-20', images: {}, source: 'x', raw_at: i * 2 ** 30, raw_bytes: 2 ** 30 })
  expect(() => photoTableFromRecords([rec(0), rec(1), rec(2)], { rawStash: stash, rawInlineBytes: Infinity })).toThrow(/raw values come to 3221225472 bytes, over the 2147483647 a text column of the index holds/)
})

test('each row gets its own record\'s earth date through runs of records sharing one, and a bad date after such a run is refused naming its file and record', async () => {
  const records = (await readSources([join(FEEDS, 'm2020-raw-images-page.json')])).records
  expect(records.length).toBeGreaterThan(1)
  const dates = ['2021-03-01', '2021-03-01', '2024-02-29', '2021-03-01', '2021-03-02', '2021-03-02']
  const rows = dates.map((d, i) => ({ ...records[i % records.length]!, earth_date: d, id: 1 + i }))
  const table = photoTableFromRecords(rows)
  expect([...table.earth_date]).toEqual(dates.map((d) => Date.parse(`${d}T00:00:00Z`) / 86_400_000))
  const bad = [...rows.slice(0, 3).map((r) => ({ ...r })), { ...rows[3]!, earth_date: '2021-02-30', nasa_id: 'BAD_ONE' }]
  expect(() => photoTableFromRecords(bad)).toThrow(`${rows[3]!.source}: record BAD_ONE: earth_date "2021-02-30" is not a YYYY-MM-DD date`)
})
