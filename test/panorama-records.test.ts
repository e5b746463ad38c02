import { beforeAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { ByteSink } from '../src/query/bytes/byte-sink'
import { writeMilli } from '../src/query/render/panorama-json'
import { listPanoramas } from '../src/query/answer/panoramas-list'
import { RecordArena } from '../src/query/render/record-arena'
import type { Store } from '../src/store/store'
import { testStore } from './setup/test-app'

/**
 * Panorama records are rendered once per snapshot and copied around each request's origin
 * afterwards (record-arena.ts), with numbers written from their 3-decimal rounding: the copies
 * must be the bytes a fresh rendering gives for any origin, the arena must stay within its
 * bound, and the number text must be Number#toString's.
 */
let store: Store

beforeAll(async () => {
  store = await testStore()
})

/** The same snapshot's columns in a new table object: nothing rendered for it yet. */
const fresh = (): Store => ({ ...store, panoramas: { ...store.panoramas } })

describe('panorama records kept per snapshot', () => {
  test('a record copied from the arena for another origin is byte-equal to a fresh rendering with that origin', () => {
    expect(store.panoramas.length).toBeGreaterThan(0)
    const query = new URLSearchParams('per_page=100')
    const origins = ['http://localhost', 'https://api.example.org:8443', 'http://a"b\\c']
    for (const base of origins) listPanoramas(store, query, base)
    for (const base of origins) {
      const copied = listPanoramas(store, query, base)
      expect(copied).toBe(listPanoramas(fresh(), query, base))
      expect(copied.split(JSON.stringify(base).slice(1, -1)).length - 1).toBeGreaterThanOrEqual(store.panoramas.length)
    }
  })

  test('the arena keeps records up to its limit; a record past it empties the arena and rows render again', () => {
    const arena = new RecordArena(4, 64)
    const src = Buffer.from('0123456789abcdefghijklmnopqrstuvwxyz'.repeat(3))
    const origin = Buffer.from('ORIGIN')
    const sink = new ByteSink(256)
    arena.keep(0, src, 0, 10, 20, 40) // 30 bytes
    arena.keep(1, src, 40, 50, 50, 60) // 20 bytes
    expect(arena.bytes).toBe(50)
    expect(arena.write(sink, 0, origin)).toBe(true)
    expect(sink.toString()).toBe('0123456789ORIGINklmnopqrstuvwxyz0123')
    arena.keep(2, src, 0, 20, 20, 20) // 20 more bytes: past the limit of 64, so the others go
    expect(arena.bytes).toBe(20)
    sink.reset()
    expect(arena.write(sink, 0, origin)).toBe(false)
    expect(arena.write(sink, 1, origin)).toBe(false)
    expect(sink.pos).toBe(0)
    expect(arena.write(sink, 2, origin)).toBe(true)
    expect(sink.toString()).toBe('0123456789abcdefghijORIGIN')
    sink.reset()
    arena.keep(3, src, 0, 100, 100, 100) // larger than the limit itself: not kept
    expect(arena.write(sink, 3, origin)).toBe(false)
    arena.keep(3, src, 0, 5, 5, 9)
    expect(arena.write(sink, 3, origin)).toBe(true)
    expect(sink.toString()).toBe('01234ORIGIN5678')
  })

  test('numbers rounded to 3 decimals, and any other double, are written as Number#toString writes them (null when not finite)', () => {
    const text = (x: number) => {
      const sink = new ByteSink(64)
      writeMilli(sink, x)
      return sink.toString()
    }
    const expected = (x: number) => (Number.isFinite(x) ? String(x) : 'null')
    fc.assert(fc.property(fc.double({ min: -1e7, max: 1e7, noNaN: true }), (v) => {
      const r = Math.round(v * 1000) / 1000
      expect(text(r)).toBe(expected(r))
      expect(text(v)).toBe(expected(v))
    }), { numRuns: 20000 })
    fc.assert(fc.property(fc.double(), (v) => { expect(text(v)).toBe(expected(v)) }), { numRuns: 5000 })
    for (const x of [0, -0, 0.001, -0.001, 0.0004, -0.0004, 0.1, 0.5, 1, 10.25, -289.791, 999.999, 1e12 + 0.125, 4.5e12 + 0.001, 1e15 / 1000, 123456789012.345, 1e-7, 1e21, 1.5e300, NaN, Infinity, -Infinity])
      expect(text(x)).toBe(expected(x))
    const p = store.panoramas
    for (let r = 0; r < p.length; r++)
      for (const col of [p.coverage_degrees, p.avg_elevation, p.avg_position_spacing, p.coord_x, p.coord_y, p.coord_z]) expect(text(col[r]!)).toBe(expected(col[r]!))
  })
})
