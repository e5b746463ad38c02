import { describe, expect, test } from 'bun:test'
import { vectorFromArray, Utf8 } from 'apache-arrow'
import { ByteOut } from '../src/query/export/byte-out'
import { utf8Of } from '../src/query/export/arrow-parts'
import { writeDay, writeIsoTime } from '../src/query/bytes/date-bytes'
import { writeDouble, writeFloat32 } from '../src/query/bytes/float32-text'
import { dayText } from '../src/query/bytes/day-text'
import { float32Text } from '../src/query/bytes/float32-text'
import { isoTime } from '../src/query/bytes/iso-time'
import { seededRandom } from './support/seeded-random'

/**
 * The export writes numbers, dates and times as bytes without making strings, with the byte
 * writers the photo JSON uses, into its own sink (ByteOut: growing past its atlas, drained in
 * chunks); each must give exactly the texts day-text.ts, iso-time.ts, float32-text.ts and
 * Number#toString define, or an export and the paged API would disagree.
 */
function bytesOf(write: (o: ByteOut) => void): string {
  const o = new ByteOut(64)
  write(o)
  let s = ''
  o.drain((b) => { s += Buffer.from(b).toString('latin1') })
  return s
}

describe('number and date bytes equal the JSON texts', () => {
  test('float32 angles: 200,000 random float32 values of every magnitude, and the edge values', () => {
    const r = seededRandom(7)
    const values = [0, -0, 1, -1, 0.1, 360, 359.99999, 1e-5, 9.99e-6, 1e15, 3.4e38, 1.4e-45, Math.fround(72.50396728515625)]
    for (let i = 0; i < 200_000; i++) {
      const mag = 10 ** (Math.floor(r() * 24) - 8)
      values.push(Math.fround((r() - 0.5) * 2 * mag))
    }
    const got = bytesOf((o) => { for (const v of values) { writeFloat32(o, v); o.byte(0x20) } })
    expect(got).toBe(values.map((v) => float32Text(v) + ' ').join(''))
  }, 30_000)

  test('days and times: every day from 1900 to 2100 and 100,000 random times, around the cached day range too', () => {
    const dates = bytesOf((o) => {
      for (let day = -25_567; day < 47_482; day++) { writeDay(o, day); o.byte(0x20) }
    })
    const want: string[] = []
    for (let day = -25_567; day < 47_482; day++) want.push(dayText(day))
    expect(dates).toBe(want.join(' ') + ' ')
    const r = seededRandom(11)
    const times = [0, -1, 1, 86_399_999, -62_167_219_200_000, 253_402_300_799_999, 253_402_300_800_000, -62_167_219_200_001, 1.5, -1.5, 8.64e15]
    for (let i = 0; i < 100_000; i++) times.push(Math.floor((r() - 0.3) * 4e12))
    const iso = bytesOf((o) => {
      for (const t of times) { writeIsoTime(o, t); o.byte(0x20); writeDay(o, Math.floor(t / 86_400_000)); o.byte(0x20) }
    })
    expect(iso).toBe(times.map((t) => isoTime(t) + ' ' + dayText(Math.floor(t / 86_400_000)) + ' ').join(''))
  }, 30_000)

  test('integers and doubles (coordinates): Number#toString', () => {
    const r = seededRandom(3)
    const ints = [0, 9, 10, 99, 100, 2147483647, 2147483648, -1, -2147483648, 2 ** 53 - 1, -(2 ** 53 - 1)]
    for (let i = 0; i < 50_000; i++) ints.push(Math.floor((r() - 0.5) * 2 ** (1 + Math.floor(r() * 52))))
    expect(bytesOf((o) => { for (const n of ints) { o.int(n); o.byte(0x20) } })).toBe(ints.map((n) => n + ' ').join(''))
    const doubles = [0, -0, 1e21, 1e-7, -257.078, 0.1 + 0.2, Number.MAX_VALUE, Number.MIN_VALUE]
    for (let i = 0; i < 50_000; i++) doubles.push(i % 3 === 0 ? doubles[i % 8]! : (r() - 0.5) * 10 ** (Math.floor(r() * 10) - 3))
    expect(bytesOf((o) => { for (const d of doubles) { writeDouble(o, d); o.byte(0x20) } })).toBe(doubles.map((d) => d + ' ').join(''))
  }, 30_000)
})

describe('the export sink is the answers byte sink with an atlas', () => {
  test('growing through the shared ByteSink writers keeps the attached fragments and the bytes written', () => {
    const o = new ByteOut(16)
    const pool = Buffer.from('"title":"Mars","credit":"NASA/JPL"', 'utf8')
    const at = o.attach(pool)
    const want: string[] = []
    for (let i = 0; i < 5_000; i++) {
      // int, text and day writers of byte-sink.ts / date-bytes.ts grow the buffer past its atlas.
      o.int(i * 7919 - 20_000)
      o.text(',')
      writeDay(o, 7_000 + i)
      o.frag(at, at + 14)
      o.byte(0x0a)
      want.push(`${i * 7919 - 20_000},${dayText(7_000 + i)}"title":"Mars"\n`)
    }
    let got = ''
    o.drain((b) => { got += Buffer.from(b).toString('utf8') })
    expect(got).toBe(want.join(''))
    expect(o.cap).toBeGreaterThan(16)
    // The atlas moved with every growth: a fragment written after it still reads the pool.
    o.frag(at + 15, at + pool.length)
    o.drain((b) => { got = Buffer.from(b).toString('utf8') })
    expect(got).toBe('"credit":"NASA/JPL"')
  })
})

describe('staged bytes', () => {
  test('bytes staged beside the attached pools are copied out by frag, and survive the output growing between the copies', () => {
    const o = new ByteOut(16)
    const at = o.attach(Buffer.from('https://mars.nasa.gov/', 'utf8'))
    const names = Buffer.from('a.jpg|bb.png|' + 'c'.repeat(40) + '.jpg', 'utf8')
    const staged = o.stage(names, 6, names.length) // "bb.png|ccc…c.jpg"
    let want = ''
    for (let i = 0; i < 3_000; i++) {
      o.frag(at, at + 22)
      o.frag(staged, staged + 6)
      o.text(',')
      o.frag(staged + 7, staged + names.length - 6)
      o.byte(0x0a)
      want += 'https://mars.nasa.gov/bb.png,' + 'c'.repeat(40) + '.jpg\n'
    }
    expect(o.cap).toBeGreaterThan(16)
    let got = ''
    o.drain((b) => { got += Buffer.from(b).toString('utf8') })
    expect(got).toBe(want)
  })
})

describe('large views handed to the sink', () => {
  const big = (fill: number) => new Uint8Array(64 * 1024).fill(fill)

  test('a reused view goes out as a view to a sink that copies itself, and as a copy to one that may keep it', () => {
    for (const copy of [false, true]) {
      const o = new ByteOut(1024)
      const scratch = big(0x61)
      o.text('head')
      o.external(scratch, false)
      o.text('tail')
      const pieces: Uint8Array[] = []
      o.drain((b) => pieces.push(b), copy)
      expect(pieces.map((p) => p.byteLength)).toEqual([4, scratch.byteLength, 4])
      expect(pieces[1]!.buffer === scratch.buffer).toBe(!copy)
      scratch.fill(0x62) // the writer reuses its scratch for the next chunk
      expect(pieces[1]![0]).toBe(copy ? 0x61 : 0x62)
      expect(Buffer.from(pieces[0]!).toString() + Buffer.from(pieces[2]!).toString()).toBe('headtail')
    }
  })

  test('a lasting view (snapshot memory) is never copied, and a small view is copied into the buffer in order', () => {
    const o = new ByteOut(1024)
    const column = big(0x63)
    o.external(new Uint8Array([0x31, 0x32]), false)
    o.external(column, true)
    const pieces: Uint8Array[] = []
    o.drain((b) => pieces.push(b), true)
    expect(pieces.length).toBe(2)
    expect(Buffer.from(pieces[0]!).toString()).toBe('12')
    expect(pieces[1]!.buffer).toBe(column.buffer)
    expect(o.size).toBe(0)
  })
})

describe('Arrow dictionaries encoded once per dictionary array', () => {
  test('offsets and UTF-8 bytes equal apache-arrow\'s Utf8 vector of the same values (empty, non-ASCII, astral), and a second export reuses them', () => {
    const values = ['', 'Mastcam', 'NASA/JPL-Caltech/MSSS', 'Ç¬ ❄ 𝄞 "q"', '', 'x'.repeat(3000)]
    const d = utf8Of(values)
    const ref = vectorFromArray(values, new Utf8()).data[0]!
    expect(Array.from(d.offsets)).toEqual(Array.from(ref.valueOffsets.subarray(0, values.length + 1)))
    expect(Buffer.from(d.data).equals(Buffer.from(ref.values.subarray(0, ref.valueOffsets[values.length])))).toBe(true)
    expect(utf8Of(values)).toBe(d)
    expect(utf8Of([]).data.byteLength).toBe(0)
  })
})
