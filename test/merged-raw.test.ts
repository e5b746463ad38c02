import { afterAll, expect, test } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MergedRaw } from '../index-builder/merge/merged-raw'
import { utf8Column } from '../index-builder/encode/utf8-builder'

/**
 * An update's merged raw JSON (index-builder/merge/merged-raw.ts) is written piece by piece from
 * the published texts and the new rows' texts, never gathered: every way out (photos.arrow's
 * column, raw.bin, the gathered column for an encoder that reorders) gives each row's own text,
 * in table order or in the order given, with the ends that say where each one stops.
 */
const work = mkdtempSync(join(tmpdir(), 'mv-merged-raw-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const published = ['{"a":1}', '', '{"b":"é"}', '{"c":3}', '{"d":[4]}', 'x'.repeat(3 << 20)]
const fresh = ['{"new":1}', '', '{"new":"ü2"}']
const old = utf8Column(published)
// Offsets as raw.bin's ends give them (Float64: past 2 GiB in a big index).
const oldLarge = { data: old.data, offsets: Float64Array.from(old.offsets) }
const young = utf8Column(fresh)
// New rows first, a freed published row (3) left out, a new row between published runs.
const src = Int32Array.from([-1, -2, 0, 1, 2, -3, 4, 5])
const want = ['{"new":1}', '', '{"a":1}', '', '{"b":"é"}', '{"new":"ü2"}', '{"d":[4]}', 'x'.repeat(3 << 20)]
const enc = new TextEncoder()
const bytesOf = (texts: string[]) => texts.reduce((n, t) => n + enc.encode(t).length, 0)

function endsOf(texts: string[]): number[] {
  let at = 0
  return texts.map((t) => (at += enc.encode(t).length))
}

test('the inline column has each row\'s offsets over an untouched buffer of the right size, and write() hands over the texts in table order', () => {
  for (const o of [old, oldLarge]) {
    const m = new MergedRaw(o, young, src, true)
    expect(MergedRaw.bytesOf(o, young, src)).toBe(bytesOf(want))
    const col = m.column()
    expect(Array.from(col.offsets)).toEqual([0, ...endsOf(want)])
    expect(col.data.length).toBe(bytesOf(want))
    expect(m.placeholder).toBe(col.data.buffer)
    const parts: Uint8Array[] = []
    const ends = m.write((b) => parts.push(b.slice()))
    expect(Array.from(ends)).toEqual(endsOf(want))
    expect(Buffer.concat(parts).toString()).toBe(want.join(''))
  }
})

test('given an order, raw.bin holds the texts in that order with their ends, as a full build writes it', () => {
  const m = new MergedRaw(oldLarge, young, src, false)
  m.order = Int32Array.from([7, 2, 0, 5, 1, 3, 6, 4])
  const ends = m.writeOrdered(join(work, 'raw.bin'))
  const ordered = Array.from(m.order).map((k) => want[k]!)
  expect(Array.from(ends)).toEqual(endsOf(ordered))
  expect(readFileSync(join(work, 'raw.bin')).toString()).toBe(ordered.join(''))
})

test('materialize() gathers the column in table order for an encoder that reorders it', () => {
  const m = new MergedRaw(old, young, src, true)
  const col = m.materialize()
  expect(Array.from(col.offsets)).toEqual([0, ...endsOf(want)])
  expect(new TextDecoder().decode(col.data)).toBe(want.join(''))
})
