import { beforeAll, describe, expect, test } from 'bun:test'
import { findCamera } from '../src/catalog/cameras'
import { ROVERS } from '../src/catalog/rovers'
import { ByteSink } from '../src/query/bytes/byte-sink'
import { writeDay, writeIsoTime } from '../src/query/bytes/date-bytes'
import { dayText } from '../src/query/bytes/day-text'
import { float32Text, writeDouble, writeFloat32 } from '../src/query/bytes/float32-text'
import { float32TextExact } from '../src/store/float32-text-exact'
import { isoTime } from '../src/query/bytes/iso-time'
import { A, IMAGE_SIZES, outputSpec, PRESETS, SIZE, type OutputRequest, type OutputSpec } from '../src/query/params/photo-fields'
import { writePhoto, writePhotos } from '../src/query/render/photo-json'
import type { TextColumn } from '../src/store/schema'
import type { Store } from '../src/store/store'
import { testStore } from './setup/test-app'

/**
 * The byte writer of photo JSON (photo-json.ts, byte-sink.ts, date-bytes.ts, float32-text.ts)
 * against the obvious implementation: an object per photo built from the columns in the
 * interface's member order and given to JSON.stringify. Every photo of the test index, under
 * the presets, single fields, image sizes and includes, must come out byte for byte the same.
 */
let store: Store
beforeAll(async () => {
  store = await testStore()
})

const decoder = new TextDecoder()
/** The text the writers give for one photo and for an array of photos (one sink, as an answer has). */
const sink = new ByteSink()
function photoJson(store: Store, row: number, out: OutputSpec): string {
  sink.reset()
  writePhoto(sink, store, row, out)
  return sink.toString()
}
function photosJson(store: Store, rows: ArrayLike<number>, out: OutputSpec): string {
  sink.reset()
  writePhotos(sink, store, rows, out)
  return sink.toString()
}
const text = (col: TextColumn, row: number) => decoder.decode(col.data.subarray(col.offsets[row], col.offsets[row + 1]))

/** Photos per sequence id, counted from the column's values (not its codes). */
let sequenceSizes: Map<string, number> | undefined

/** JSON.stringify of the photo object built member by member (decisions.md: unknown values omitted). */
function reference(s: Store, row: number, out: OutputSpec): string {
  const p = s.photos
  const at: Record<string, unknown> = {}
  const has = (m: number) => (out.attrs & m) !== 0
  if (has(A.nasa_id) && text(p.nasa_id, row)) at.nasa_id = text(p.nasa_id, row)
  if (has(A.sol) && p.sol[row] >= 0) at.sol = p.sol[row]
  if (has(A.earth_date) && p.earth_date[row] >= 0) at.earth_date = new Date(p.earth_date[row] * 86_400_000).toISOString().slice(0, 10)
  const t = p.date_taken_utc[row]
  if (has(A.date_taken_utc) && t === t && Math.abs(t) <= 8.64e15) at.date_taken_utc = new Date(t).toISOString()
  if (has(A.date_taken_mars) && text(p.date_taken_mars, row)) at.date_taken_mars = text(p.date_taken_mars, row)
  if (has(A.images)) {
    const dir = p.image_dir.dict[p.image_dir.codes[row]] ?? ''
    const allowed = ROVERS[p.rover[row]]?.slug === 'perseverance' ? out.sizes : out.sizes & SIZE.full
    const cols = { small: p.image_small, medium: p.image_medium, large: p.image_large, full: p.image_full }
    const present = IMAGE_SIZES.filter((z) => allowed & SIZE[z] && text(cols[z], row))
    const chosen = out.singleImage ? (['medium', 'large', 'full', 'small'] as const).filter((z) => present.includes(z)).slice(0, 1) : present
    if (chosen.length) at.images = Object.fromEntries(IMAGE_SIZES.filter((z) => chosen.includes(z)).map((z) => [z, dir + text(cols[z], row)]))
  }
  if (has(A.dimensions) && (p.width[row] >= 0 || p.height[row] >= 0))
    at.dimensions = { ...(p.width[row] >= 0 ? { width: p.width[row] } : {}), ...(p.height[row] >= 0 ? { height: p.height[row] } : {}) }
  for (const name of ['sample_type', 'title', 'caption', 'credit'] as const) {
    const v = p[name].dict[p[name].codes[row]]
    if (has(A[name]) && v) at[name] = v
  }
  if (has(A.location)) {
    const l: Record<string, unknown> = {}
    if (p.site[row] >= 0) l.site = p.site[row]
    if (p.drive[row] >= 0) l.drive = p.drive[row]
    const [x, y, z] = [p.coord_x[row], p.coord_y[row], p.coord_z[row]]
    if (out.coordinates && Number.isFinite(x) && Number.isFinite(y) && Number.isFinite(z)) l.coordinates = { x, y, z }
    if (Object.keys(l).length) at.location = l
  }
  const [az, el] = [p.mast_azimuth[row], p.mast_elevation[row]]
  // float32 angles with their own shortest digits: the double read from that text prints as it
  if (has(A.telemetry) && (az === az || el === el))
    at.telemetry = { ...(az === az ? { mast_azimuth: Number(float32Text(az)) } : {}), ...(el === el ? { mast_elevation: Number(float32Text(el)) } : {}) }
  // The sun (beyond the interface): elevation first, azimuth where known; nothing without an elevation.
  const [sunEl, sunAz, ls] = [p.sun_elevation[row], p.sun_azimuth[row], p.solar_longitude[row]]
  if (has(A.sun) && sunEl === sunEl) at.sun = { elevation: Number(float32Text(sunEl)), ...(sunAz === sunAz ? { azimuth: Number(float32Text(sunAz)) } : {}) }
  if (has(A.solar_longitude) && ls === ls) at.solar_longitude = Number(float32Text(ls))
  // Attributes beyond the interface: ISO times, absent when unknown.
  const received = p.date_received[row]
  if (has(A.date_received) && received === received) at.date_received = new Date(received).toISOString()
  const added = p.added_at![row]
  if (has(A.added_at) && added === added) at.added_at = new Date(added).toISOString()
  let raw = ''
  if (out.raw && text(p.raw, row)) {
    const r = text(p.raw, row)
    let json = false
    try {
      json = (r[0] === '{' || r[0] === '[') && (JSON.parse(r), true)
    } catch {}
    raw = json ? r : JSON.stringify(r)
    at.raw = '@@raw@@'
  }
  const photo: Record<string, unknown> = { id: p.id[row], type: 'photo', attributes: at }
  // stereo and sequence on every photo that has them, whatever the output selection
  const rel: Record<string, unknown> = {}
  if (p.stereo_partner[row] >= 0) rel.stereo = { id: p.stereo_partner[row], type: 'photo' }
  const sequence = p.sequence.dict[p.sequence.codes[row]]
  if (sequence) {
    if (!sequenceSizes) {
      sequenceSizes = new Map()
      for (let r = 0; r < p.length; r++) {
        const v = p.sequence.dict[p.sequence.codes[r]]
        if (v) sequenceSizes.set(v, (sequenceSizes.get(v) ?? 0) + 1)
      }
    }
    rel.sequence = { id: sequence, size: sequenceSizes.get(sequence) }
  }
  if (Object.keys(rel).length) photo.relationships = rel
  if (out.includeRover || out.includeCamera) {
    const facts = ROVERS[p.rover[row]]
    if (out.includeRover) rel.rover = { id: facts.slug, type: 'rover', attributes: { name: facts.name, status: facts.status } }
    if (out.includeCamera) {
      const name = p.camera.dict[p.camera.codes[row]] ?? ''
      const cam = findCamera(facts.slug, name)
      rel.camera = cam ? { id: name, type: 'camera', attributes: { full_name: cam.full_name } } : { id: name, type: 'camera' }
    }
    photo.relationships = rel
  }
  return JSON.stringify(photo).replace('"@@raw@@"', () => raw)
}

const REQUESTS: OutputRequest[] = [
  {},
  { include: ['rover', 'camera'] },
  ...PRESETS.map((preset) => ({ preset, include: ['camera'] })),
  { fields: ['img_src_small', 'img_src_full', 'xyz'], include: ['rover'] },
  { preset: 'minimal', fields: ['telemetry', 'width'] },
  { fields: ['sun', 'solar_longitude', 'nasa_id'] },
  { imageSizes: ['small', 'medium'] },
  { preset: 'scientific', excludeImages: true },
]

describe('photo JSON bytes', () => {
  test('every photo of the test index is byte for byte JSON.stringify of its object, for each output selection', () => {
    const n = store.photos.length
    for (const [i, req] of REQUESTS.entries()) {
      const out = outputSpec(req)
      // every photo under the default and complete selections, every fifth under the others
      const step = i === 0 || req.preset === 'complete' ? 1 : 5
      for (let row = 0; row < n; row += step) {
        const got = photoJson(store, row, out)
        if (got !== reference(store, row, out)) expect({ req, row, got }).toEqual({ req, row, got: reference(store, row, out) })
      }
    }
    const rows = Int32Array.from({ length: 50 }, (_, i) => (i * 7919) % n)
    expect(photosJson(store, rows, outputSpec({}))).toBe('[' + Array.from(rows, (r) => reference(store, r, outputSpec({}))).join(',') + ']')
  }, 60_000)

  test('photos written in any order, each after any other, stay byte for byte their objects (memoised texts are keyed on all they depend on)', () => {
    const n = store.photos.length
    // reverse order, then a shuffle: each memo slot is reused by other rows between two writes of the same text
    const reverse = Int32Array.from({ length: n }, (_, i) => n - 1 - i)
    const shuffled = Int32Array.from({ length: n }, (_, i) => (i * 7919) % n)
    for (const req of [{}, { preset: 'extended' }, { fields: ['sol', 'title', 'credit', 'location', 'telemetry'] }, { fields: ['earth_date', 'caption', 'width'] }] as OutputRequest[]) {
      const out = outputSpec(req)
      for (const rows of [reverse, shuffled]) {
        const got = photosJson(store, rows, out)
        let want = '['
        for (let i = 0; i < rows.length; i++) want += (i > 0 ? ',' : '') + reference(store, rows[i], out)
        if (got !== want + ']') {
          const bad = Array.from(rows).find((r) => photoJson(store, r, out) !== reference(store, r, out))
          expect({ req, bad }).toEqual({ req, bad: undefined })
          expect(got).toBe(want + ']')
        }
      }
    }
  }, 60_000)

  test('writePhoto appends one photo to what a sink already holds, growing it as needed', () => {
    const sink = new ByteSink(8)
    sink.text('[')
    writePhoto(sink, store, 0, outputSpec({ preset: 'complete' }))
    sink.byte(0x5d)
    expect(sink.toString()).toBe('[' + reference(store, 0, outputSpec({ preset: 'complete' })) + ']')
    expect(decoder.decode(sink.toBytes())).toBe(sink.toString())
  })
})

describe('number and date writers', () => {
  const written = (f: (s: ByteSink) => void) => {
    const s = new ByteSink(4)
    f(s)
    return s.toString()
  }
  let seed = 99
  const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32)

  test('doubles are written as Number#toString writes them', () => {
    const values = [0, -0, 1, -1, 0.1, 1e-7, 123456789012345, 1e15, 1e21, 5e-324, Number.MAX_VALUE, 2 ** 53, 0.5, 9.995, -257.078, 143.953]
    for (let i = 0; i < 20_000; i++) {
      values.push((rnd() - 0.5) * 10 ** Math.floor(rnd() * 24 - 8))
      values.push(Math.round((rnd() - 0.5) * 2e6) / 1000) // site-frame coordinates: metres with three decimals
      values.push(2 ** Math.floor(rnd() * 80 - 40))
    }
    for (const v of values) expect(written((s) => writeDouble(s, v))).toBe(String(v))
  })

  test('float32 values are written with the fewest digits that read back as the same float32', () => {
    const f = new Float32Array(1)
    for (let i = 0; i < 20_000; i++) {
      f[0] = i % 3 === 0 ? 2 ** Math.floor(rnd() * 60 - 30) : (rnd() - 0.5) * 10 ** Math.floor(rnd() * 10 - 4)
      const x = f[0]
      expect(written((s) => writeFloat32(s, x))).toBe(float32TextExact(x))
      expect(float32Text(x)).toBe(float32TextExact(x))
    }
  })

  test('float32 values next to powers of two and ten, and written again from the memo, keep their shortest digits', () => {
    const f = new Float32Array(1)
    const bits = new Uint32Array(f.buffer)
    for (const c of [1, 2, 8, 10, 100, 128, 360, 1000, 0.5, 0.1, 0.001, 1e-5, 1e7, 16_777_216]) {
      f[0] = c
      const b = bits[0]
      for (let d = -300; d <= 300; d++) {
        bits[0] = b + d
        const x = f[0]
        for (const v of [x, -x, x]) expect(written((s) => writeFloat32(s, v))).toBe(float32TextExact(v))
      }
    }
  })

  test('days and times are written as Date#toISOString writes them, outside years 0000-9999 too', () => {
    for (let d = -800_000; d <= 3_000_000; d += d > -1000 && d < 60_000 ? 1 : 997) expect(written((s) => writeDay(s, d))).toBe(dayText(d))
    for (let i = 0; i < 20_000; i++) {
      const t = i % 10 === 0 ? (rnd() - 0.5) * 1.6e16 : 1.0e12 + rnd() * 1e12
      expect(written((s) => writeIsoTime(s, t))).toBe(isoTime(t))
    }
  })

  test('integers are written in decimal, with a sign when negative', () => {
    for (const v of [0, 7, 10, 99, 100, -1, -2147483648, 2147483647, 2 ** 31, 2 ** 40 + 1, 9007199254740991]) expect(written((s) => s.int(v))).toBe(String(v))
  })
})

describe('byte sink copies', () => {
  test('copyFrom copies every length up to past the native-copy threshold exactly, from any offset, after anything already written', () => {
    const src = Buffer.from(Array.from({ length: 256 }, (_, i) => (i * 37 + 11) & 255))
    const view = new DataView(src.buffer, src.byteOffset, src.byteLength)
    const sink = new ByteSink(16) // small, so copies also land across a growth of the buffer
    for (let before = 0; before < 5; before++)
      for (let a = 0; a < 8; a++)
        for (let n = 0; n <= 80; n++) {
          sink.reset()
          for (let k = 0; k < before; k++) sink.byte(0x2a)
          sink.copyFrom(src, view, a, a + n)
          sink.byte(0x21)
          const want = Buffer.concat([Buffer.alloc(before, 0x2a), src.subarray(a, a + n), Buffer.from('!')])
          const got = Buffer.from(sink.buf.subarray(0, sink.pos))
          if (!got.equals(want)) expect({ before, a, n, got: [...got] }).toEqual({ before, a, n, got: [...want] })
        }
  })
})
