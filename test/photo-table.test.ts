/**
 * The photo table built from normalised records (index-builder/encode/photo-table.ts): letting
 * each record go as its row is written, and reading a feed record's JSON again from its page
 * instead of holding it, change nothing in the table.
 */
import { expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { photoTableFromRecords } from '../index-builder/encode/photo-table'
import { readSources } from '../index-builder/normalize/normalize-sources'
import type { PhotoRecord } from '../index-builder/normalize/photo-record'
import { DEFAULT_INCOMING_DIR, DEFAULT_RAW_DIR } from '../index-builder/sources/read-sources'

const FEEDS = join(import.meta.dir, 'fixtures/feeds')

test('a photo table built consuming the records (each let go once written), their feed JSON read again from its pages, equals the table built keeping every record whole, column for column', async () => {
  // A gzipped feed list (1,196 real records), the two feed page fixtures, and v1 records (which keep their JSON).
  const paths = [join(DEFAULT_INCOMING_DIR, 'mchapman87501__mars_perseverance_images'), join(DEFAULT_RAW_DIR, 'david-c-oliveros__mars-tour-backend'), join(FEEDS, 'm2020-raw-images-page.json'), join(FEEDS, 'msl-raw-image-items-page.json')]
  const whole = (await readSources(paths)).records
  const byRef = (await readSources(paths, { rawByRef: true })).records
  expect(byRef.length).toBe(whole.length)
  expect(whole.length).toBeGreaterThan(1_000)
  // Feed records point at their pages instead of holding their JSON; the others keep theirs.
  const pointed = byRef.filter((r) => r.raw_ref !== undefined).length
  expect(pointed).toBeGreaterThan(1_000)
  expect(pointed).toBeLessThan(whole.length)
  expect(byRef.filter((r) => r.raw !== undefined).length).toBe(whole.length - pointed)
  const kept = photoTableFromRecords([...whole])
  const list: Array<PhotoRecord | undefined> = [...byRef]
  const consumed = photoTableFromRecords(list, { consume: true })
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

test('a feed page changed after its records were read fails the table naming the page, instead of serving another record as raw JSON', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'raw-ref-'))
  try {
    const page = join(dir, 'page.json')
    writeFileSync(page, readFileSync(join(FEEDS, 'm2020-raw-images-page.json')))
    const { records } = await readSources([page], { rawByRef: true })
    expect(records.every((r) => r.raw_ref !== undefined && r.raw === undefined)).toBe(true)
    const doc = JSON.parse(readFileSync(page, 'utf8')) as { images: Array<Record<string, unknown>> }
    doc.images.reverse()
    writeFileSync(page, JSON.stringify(doc))
    expect(() => photoTableFromRecords(records)).toThrow(/page changed while the index was built/)
  } finally {
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
  // Pointed-at JSON of 1 GiB each (no page is read: the sizes alone decide).
  const rec = (i: number): PhotoRecord => ({ rover: 'perseverance', camera: 'NAVCAM_LEFT', nasa_id: `N${i}`, sol: 1, earth_date: '2021-02-20', images: {}, source: 'x', raw_ref: { file: '/nonexistent', display: 'x', item: i, length: 2 ** 30, crc: 0 } })
  expect(() => photoTableFromRecords([rec(0), rec(1), rec(2)])).toThrow(/raw values come to 3221225472 bytes, over the 2147483647 a text column of the index holds/)
})
