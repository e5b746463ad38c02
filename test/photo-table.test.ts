/**
 * The photo table built from normalised records (index-builder/encode/photo-table.ts): letting
 * each record go as its row is written changes nothing in the table.
 */
import { expect, test } from 'bun:test'
import { photoTableFromRecords } from '../index-builder/encode/photo-table'
import { readSources } from '../index-builder/normalize/normalize-sources'
import type { PhotoRecord } from '../index-builder/normalize/photo-record'
import { DEFAULT_SOURCE_DIRS } from '../index-builder/sources/read-sources'

test('a photo table built consuming the records (each let go once written) equals the table built keeping them, column for column, and leaves the list empty', async () => {
  const { records } = await readSources(DEFAULT_SOURCE_DIRS)
  expect(records.length).toBeGreaterThan(10_000)
  const kept = photoTableFromRecords([...records])
  const list: Array<PhotoRecord | undefined> = [...records]
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
  for (const i of [0, Math.floor(records.length / 2), records.length - 1]) expect(dec.decode(raw.data.subarray(raw.offsets[i]!, raw.offsets[i + 1]!))).toBe(records[i]!.raw ?? '')
}, 120_000)

/** A column as plain arrays (typed arrays compared by their values, not by their buffers). */
function plain(c: unknown): unknown {
  if (ArrayBuffer.isView(c)) return Array.from(c as unknown as ArrayLike<number>)
  if (c && typeof c === 'object' && !Array.isArray(c)) return Object.fromEntries(Object.entries(c).map(([k, v]) => [k, plain(v)]))
  return c
}
