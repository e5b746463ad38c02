import type { Store } from '../../store/store'
import type { PhotoColumns } from '../../store/schema'
import { ByteMemo, hashDouble, hashInt } from '../bytes/byte-memo'
import { ByteSink } from '../bytes/byte-sink'
import { isoDay, writeClock, writeDay, writeIsoTime } from '../bytes/date-bytes'
import { writeDouble, writeFloat32 } from '../bytes/float32-text'
import { LEAD } from './image-prefixes'
import { A, DEFAULT_OUTPUT, SIZE, type OutputSpec } from '../params/photo-fields'
import { RELATIONSHIPS_OPEN_BYTES } from './related-members'
import { key, photoFragments, type ColumnBytes, type PhotoFragments } from './photo-fragments'
import { writeInner } from '../bytes/json-string'

/**
 * Photo rows straight to JSON bytes (interface "Photo"; decisions.md: attributes that are
 * unknown for a photo are omitted, never invented). Runs only for the rows of the page.
 *
 * Images are `image_dir` + file name; Perseverance may carry small, medium, large and full,
 * the other rovers full only. Telemetry angles are float32 and written with the fewest digits
 * that read back as the same float32, coordinates as Number#toString writes them
 * (float32-text.ts).
 *
 * Speed (this is most of a narrowed query's time): no object, string or array per photo.
 * Everything that repeats across rows is encoded once per store snapshot (photo-fragments.ts):
 * member names, dictionary values as ready members (`"title":"..."`), image folders with their
 * member name, the relationship objects. Per row, strings are copied from the column bytes
 * when a byte test shows plain printable ASCII (then they need no escaping), numbers and dates
 * are written as digits from integer arithmetic (date-bytes.ts), and one UTF-8 decode of the
 * whole answer makes the text. Texts that are costly to write and repeat from row to row are
 * kept in bounded memos keyed on exactly the values they are written from (byte-memo.ts): sol
 * with earth_date, dimensions, the four dictionary members together, the location member, and
 * each number; a repeat is one copy. Copies are counted, not bytes: a native copy costs about
 * as much as 30 bytes moved by JS, so fewer and longer copies win.
 */

/**
 * The JSON array of the first `count` photos of `rows` (all by default), in that order, into the
 * sink. A count instead of a shorter view: a view of a small typed array made per answer costs
 * the engine an ArrayBuffer for it.
 */
export function writePhotos(sink: ByteSink, store: Store, rows: ArrayLike<number>, out: OutputSpec, count = rows.length): void {
  const f = photoFragments(store)
  const ahead = (out.attrs & WHOLE_ROW) === WHOLE_ROW
  sink.byte(0x5b) // [
  for (let i = 0; i < count; i++) {
    if (i > 0) sink.byte(0x2c)
    if (ahead && i + 1 < count) {
      const d = rows[i + 1] - rows[i]
      if (d > NEAR || d < -NEAR) readAhead(f.p, rows[i + 1])
    }
    writeRow(f, sink, rows[i], out)
  }
  sink.byte(0x5d) // ]
}

/** Rows this close share the cache lines of their 8-byte values (eight to a line) with the row before. */
const NEAR = 8

/** Outputs that write every attribute of the interface's table (the default, `complete`). */
const WHOLE_ROW = DEFAULT_OUTPUT.attrs

/**
 * Reads the values a whole row's JSON is written from, for the row after the one about to be
 * written, when that row is not the next in the table (a batch of ids, a page in another order
 * than the table's). Its ~27 values sit in as many cache lines, one per column, that neighbouring
 * rows share only when they are neighbours. writeRow reads each between long stretches of work
 * that depend on it, so each miss is waited out alone; read here back to back, the loads are in
 * flight together and writeRow finds the lines at hand. Measured on the batch of 100 scattered
 * ids: about 8% faster as a rule, and 15% when other work has pushed the table out of the caches
 * between answers. Rows near the one before (NEAR) share its lines and skip it. The sum is kept
 * so the compiler cannot drop the loads as unused.
 */
function readAhead(p: PhotoColumns, r: number): void {
  readAheadSum = p.id[r] + p.sol[r] + p.earth_date[r] + p.date_taken_utc[r] + p.rover[r] + p.image_dir.codes[r] + p.width[r] + p.height[r] +
    p.sample_type.codes[r] + p.title.codes[r] + p.caption.codes[r] + p.credit.codes[r] + p.site[r] + p.drive[r] +
    p.coord_x[r] + p.coord_y[r] + p.coord_z[r] + p.mast_azimuth[r] + p.mast_elevation[r] + p.stereo_partner[r] + p.sequence.codes[r] +
    p.nasa_id.offsets[r] + p.date_taken_mars.offsets[r] + p.image_small.offsets[r] + p.image_medium.offsets[r] + p.image_large.offsets[r] + p.image_full.offsets[r]
}
let readAheadSum = 0

/**
 * One photo's JSON object into the sink, byte for byte what a photo list's `data` holds for it;
 * the NDJSON and JSON exports write their rows with it too (export/json-rows.ts).
 */
export function writePhoto(sink: ByteSink, store: Store, row: number, out: OutputSpec): void {
  writeRow(photoFragments(store), sink, row, out)
}

/** The inside of the JSON string of a row's value of a Utf8 column. */
function writeValue(sink: ByteSink, col: ColumnBytes, row: number): void {
  const a = col.offsets[row]
  const b = col.offsets[row + 1]
  if (col.plain(row)) sink.copyFrom(col.data, col.view, a, b)
  else writeInner(sink, col.data, a, b)
}

/** `"name":"value"` for a Utf8 value unless absent; true when written. */
function writeUtf8Member(sink: ByteSink, comma: boolean, name: Buffer, col: ColumnBytes, row: number): boolean {
  if (col.offsets[row] === col.offsets[row + 1]) return false
  if (comma) sink.byte(0x2c)
  key(sink, name)
  writeValue(sink, col, row)
  sink.byte(0x22)
  return true
}

// Members are written with a leading comma once one has been written (`c`), so nothing has to
// be cut afterwards; objects that may turn out empty are tested before their name is written.
function writeRow(f: PhotoFragments, sink: ByteSink, row: number, out: OutputSpec): void {
  const p = f.p
  const related = f.related
  const K = f.keys
  const attrs = out.attrs
  key(sink, K.open)
  sink.int(p.id[row])
  let c = false
  const nasa = f.nasaId
  if (attrs & A.nasa_id && nasa.offsets[row] !== nasa.offsets[row + 1]) {
    key(sink, K.typeAttributesNasaId)
    writeValue(sink, nasa, row)
    sink.byte(0x22)
    c = true
  } else key(sink, K.typeAttributes)
  if (attrs & (A.sol | A.earth_date | A.date_taken_utc)) {
    const sol = attrs & A.sol ? p.sol[row] : -1
    const day = attrs & A.earth_date ? p.earth_date[row] : -1
    let t = NaN
    if (attrs & A.date_taken_utc) {
      t = p.date_taken_utc[row]
      if (!(Math.abs(t) <= 8.64e15)) t = NaN
    }
    // The memo holds sol, earth_date and date_taken_utc up to its day; the clock follows.
    const utcDay = t === t ? isoDay(t) : -1
    if (sol >= 0 || day >= 0 || utcDay >= 0) {
      writeDates(K, sink, c, sol, day, utcDay)
      c = true
    }
    if (utcDay >= 0) {
      writeClock(sink, Math.trunc(t) - utcDay * 86_400_000)
      sink.byte(0x22)
    } else if (t === t) {
      key(sink, c ? K.date_taken_utc[1] : K.date_taken_utc[0])
      writeIsoTime(sink, t)
      sink.byte(0x22)
      c = true
    }
  }
  if (attrs & A.date_taken_mars && writeUtf8Member(sink, c, K.date_taken_mars, f.dateTakenMars, row)) c = true
  if (attrs & A.images && writeImages(f, sink, c, row, out)) c = true
  if (attrs & A.dimensions) {
    const wd = p.width[row]
    const h = p.height[row]
    if (wd >= 0 || h >= 0) {
      writeDimensions(K, sink, c, wd, h)
      c = true
    }
  }
  if (attrs & DICT_ATTRS && writeDictMembers(f, sink, c, row, attrs)) c = true
  if (attrs & A.location && writeLocation(f, sink, c, row, out.coordinates)) c = true
  if (attrs & A.telemetry) {
    const az = p.mast_azimuth[row]
    const el = p.mast_elevation[row]
    if (az === az || el === el) {
      if (az === az) {
        key(sink, c ? K.telemetryAzimuth[1] : K.telemetryAzimuth[0])
        writeFloat32(sink, az)
        if (el === el) sink.byte(0x2c)
      }
      if (el === el) {
        if (az !== az) key(sink, c ? K.telemetry[1] : K.telemetry[0])
        key(sink, K.mast_elevation)
        writeFloat32(sink, el)
      }
      sink.byte(0x7d)
      c = true
    }
  }
  if (attrs & A.sun) {
    const el = p.sun_elevation[row]
    if (el === el) {
      key(sink, c ? K.sun[1] : K.sun[0])
      writeFloat32(sink, el)
      const az = p.sun_azimuth[row]
      if (az === az) {
        key(sink, K.sunAzimuth)
        writeFloat32(sink, az)
      }
      sink.byte(0x7d)
      c = true
    }
  }
  if (attrs & A.solar_longitude) {
    const ls = p.solar_longitude[row]
    if (ls === ls) {
      key(sink, c ? K.solar_longitude[1] : K.solar_longitude[0])
      writeFloat32(sink, ls)
      c = true
    }
  }
  if (attrs & A.date_received && writeInstant(sink, c, K.date_received, p.date_received[row])) c = true
  if (attrs & A.added_at && p.added_at && writeInstant(sink, c, K.added_at, p.added_at[row])) c = true
  if (out.raw) writeRaw(f, sink, c, row)
  if (related.open(sink, row)) {
    if (out.includeRover || out.includeCamera) {
      const tail = f.relationshipsTail(p.rover[row], p.camera.codes[row], out.includeRover, out.includeCamera)
      sink.byte(0x2c)
      sink.copy(tail, RELATIONSHIPS_OPEN_BYTES, tail.length)
      return
    }
    sink.byte(0x7d) // end of relationships
    sink.byte(0x7d)
    return
  }
  if (out.includeRover || out.includeCamera) {
    sink.bytes(f.relationshipsTail(p.rover[row], p.camera.codes[row], out.includeRover, out.includeCamera))
    return
  }
  sink.byte(0x7d) // end of attributes
  sink.byte(0x7d)
}

/** `"name":"<ISO time>"` unless the time is absent (NaN); true when written. */
function writeInstant(sink: ByteSink, comma: boolean, name: [Buffer, Buffer], t: number): boolean {
  if (!(Math.abs(t) <= 8.64e15)) return false
  key(sink, comma ? name[1] : name[0])
  writeIsoTime(sink, t)
  sink.byte(0x22)
  return true
}

/**
 * Recent `"sol":..,"earth_date":"..","date_taken_utc":"<day>` texts (each may be absent: -1),
 * with their leading comma when one is due: rows of one day share them, and only the clock of
 * date_taken_utc is written per row.
 */
const datesMemo = new ByteMemo(10, 4, 80)

function writeDates(K: PhotoFragments['keys'], sink: ByteSink, comma: boolean, sol: number, day: number, utcDay: number): void {
  const m = datesMemo
  const s = m.slot(hashInt(hashInt(hashInt(comma ? 1 : 0, sol), day), utcDay))
  const k = s * 4
  const keys = m.keys
  if (keys[k] === (comma ? 1 : 0) && keys[k + 1] === sol && keys[k + 2] === day && keys[k + 3] === utcDay) {
    m.copyOut(sink, s)
    return
  }
  const o = sink.pos
  let c = comma
  if (sol >= 0) {
    key(sink, c ? K.sol[1] : K.sol[0])
    sink.uint(sol)
    c = true
  }
  if (day >= 0) {
    key(sink, c ? K.earth_date[1] : K.earth_date[0])
    writeDay(sink, day)
    sink.byte(0x22)
    c = true
  }
  if (utcDay >= 0) {
    key(sink, c ? K.date_taken_utc[1] : K.date_taken_utc[0])
    writeDay(sink, utcDay)
  }
  if (m.keep(s, sink.buf, o, sink.pos)) {
    keys[k] = comma ? 1 : 0
    keys[k + 1] = sol
    keys[k + 2] = day
    keys[k + 3] = utcDay
  }
}

/** Recent `"dimensions":{..}` members by (leading comma, width, height; -1 absent). */
const dimensionsMemo = new ByteMemo(10, 3, 64)

function writeDimensions(K: PhotoFragments['keys'], sink: ByteSink, comma: boolean, wd: number, h: number): void {
  const m = dimensionsMemo
  const s = m.slot(hashInt(hashInt(comma ? 1 : 0, wd), h))
  const k = s * 3
  const keys = m.keys
  if (keys[k] === (comma ? 1 : 0) && keys[k + 1] === wd && keys[k + 2] === h) {
    m.copyOut(sink, s)
    return
  }
  const o = sink.pos
  key(sink, comma ? K.dimensions[1] : K.dimensions[0])
  if (wd >= 0) {
    key(sink, K.width)
    sink.uint(wd)
    if (h >= 0) sink.byte(0x2c)
  }
  if (h >= 0) {
    key(sink, K.height)
    sink.uint(h)
  }
  sink.byte(0x7d)
  if (m.keep(s, sink.buf, o, sink.pos)) {
    keys[k] = comma ? 1 : 0
    keys[k + 1] = wd
    keys[k + 2] = h
  }
}

const DICT_ATTRS = A.sample_type | A.title | A.caption | A.credit

/**
 * The selected ones of sample_type, title, caption and credit, from the snapshot's memo of
 * them by their four codes (-1 for one not selected: it writes nothing, as an absent value
 * does), so the four are one copy; true when any was written.
 */
function writeDictMembers(f: PhotoFragments, sink: ByteSink, comma: boolean, row: number, attrs: number): boolean {
  const p = f.p
  const st = attrs & A.sample_type ? p.sample_type.codes[row] : -1
  const ti = attrs & A.title ? p.title.codes[row] : -1
  const ca = attrs & A.caption ? p.caption.codes[row] : -1
  const cr = attrs & A.credit ? p.credit.codes[row] : -1
  const m = f.dictMembers
  const s = m.slot(hashInt(hashInt(hashInt(Math.imul(st, 0x9e3779b1), ti), ca), cr))
  const k = s * 4
  const keys = m.keys
  if (keys[k] === st && keys[k + 1] === ti && keys[k + 2] === ca && keys[k + 3] === cr) {
    if (m.lens[s] === 0) return false
    if (comma) sink.byte(0x2c)
    m.copyOut(sink, s)
    return true
  }
  // Written with a leading comma when one is due; the memo keeps the text after it.
  const start = sink.pos
  let c = comma
  if (st >= 0) c = writeDictMember(sink, c, f.sampleType[st]) || c
  if (ti >= 0) c = writeDictMember(sink, c, f.title[ti]) || c
  if (ca >= 0) c = writeDictMember(sink, c, f.caption[ca]) || c
  if (cr >= 0) c = writeDictMember(sink, c, f.credit[cr]) || c
  const written = sink.pos > start
  if (m.keep(s, sink.buf, written && comma ? start + 1 : start, sink.pos)) {
    keys[k] = st
    keys[k + 1] = ti
    keys[k + 2] = ca
    keys[k + 3] = cr
  }
  return written
}

/** A dictionary value's ready member (empty when absent); true when written. */
function writeDictMember(sink: ByteSink, comma: boolean, member: Buffer | undefined): boolean {
  if (member === undefined || member.length === 0) return false
  if (comma) sink.byte(0x2c)
  sink.bytes(member)
  return true
}

/**
 * Recent location members by (site, drive, coordinates): rows of one site and drive share them
 * (most rows repeat the previous row's), so the member is one copy. Keys: site, drive, whether
 * coordinates are written, x, y, z (0 when not written).
 */
const locationMemo = new ByteMemo(12, 6, 160)

/** `"location":{"site":..,"drive":..,"coordinates":{..}}` unless it would be empty; true when written. */
function writeLocation(f: PhotoFragments, sink: ByteSink, comma: boolean, row: number, coordinates: boolean): boolean {
  const p = f.p
  const site = p.site[row]
  const drive = p.drive[row]
  let x = 0
  let y = 0
  let z = 0
  let coords = false
  if (coordinates) {
    x = p.coord_x[row]
    y = p.coord_y[row]
    z = p.coord_z[row]
    coords = Number.isFinite(x) && Number.isFinite(y) && Number.isFinite(z)
    if (!coords) x = y = z = 0
  }
  if (site < 0 && drive < 0 && !coords) return false
  if (comma) sink.byte(0x2c)
  const m = locationMemo
  const s = m.slot(hashInt(hashInt(hashDouble(x, site), drive), coords ? hashDouble(y, 0) ^ hashDouble(z, 1) : 0))
  const k = s * 6
  const keys = m.keys
  if (keys[k] === site && keys[k + 1] === drive && keys[k + 2] === (coords ? 1 : 0) && keys[k + 3] === x && keys[k + 4] === y && keys[k + 5] === z) {
    m.copyOut(sink, s)
    return true
  }
  const o = sink.pos
  writeLocationText(f.keys, sink, site, drive, coords, x, y, z)
  if (m.keep(s, sink.buf, o, sink.pos)) {
    keys[k] = site
    keys[k + 1] = drive
    keys[k + 2] = coords ? 1 : 0
    keys[k + 3] = x
    keys[k + 4] = y
    keys[k + 5] = z
  }
  return true
}

/** The location member without a leading comma. */
function writeLocationText(K: PhotoFragments['keys'], sink: ByteSink, site: number, drive: number, coords: boolean, x: number, y: number, z: number): void {
  key(sink, K.location[0])
  let c = false
  if (site >= 0) {
    key(sink, K.site)
    sink.uint(site)
    c = true
  }
  if (drive >= 0) {
    key(sink, c ? K.drive[1] : K.drive[0])
    sink.uint(drive)
    c = true
  }
  if (coords) {
    key(sink, c ? K.coordinates[1] : K.coordinates[0])
    writeDouble(sink, x)
    key(sink, K.y)
    writeDouble(sink, y)
    key(sink, K.z)
    writeDouble(sink, z)
    sink.byte(0x7d)
  }
  sink.byte(0x7d)
}

/** `"images":{...}` unless the photo has none of the allowed sizes; true when written. */
function writeImages(f: PhotoFragments, sink: ByteSink, comma: boolean, row: number, out: OutputSpec): boolean {
  const p = f.p
  const allowed = p.rover[row] === f.perseverance ? out.sizes : out.sizes & SIZE.full
  if (allowed === 0) return false
  // Which sizes the photo has, among the allowed ones.
  let has = 0
  if (allowed & SIZE.small && p.image_small.offsets[row + 1] > p.image_small.offsets[row]) has |= SIZE.small
  if (allowed & SIZE.medium && p.image_medium.offsets[row + 1] > p.image_medium.offsets[row]) has |= SIZE.medium
  if (allowed & SIZE.large && p.image_large.offsets[row + 1] > p.image_large.offsets[row]) has |= SIZE.large
  if (allowed & SIZE.full && p.image_full.offsets[row + 1] > p.image_full.offsets[row]) has |= SIZE.full
  if (has === 0) return false
  if (out.singleImage) {
    // minimal: the nearest size the photo has — medium, else large, else full, else small
    // (decisions.md, Clarifications: most Perseverance photos hold only a large URL).
    has = has & SIZE.medium ? SIZE.medium : has & SIZE.large ? SIZE.large : has & SIZE.full ? SIZE.full : SIZE.small
  }
  const dir = p.image_dir.codes[row]
  // The first image's prefix starts with the member's name (and its comma), the others' with a comma.
  let lead: number = comma ? LEAD.commaImages : LEAD.images
  if (has & SIZE.small) { writeImage(f, sink, lead, 0, dir, f.imageSmall, row); lead = LEAD.comma }
  if (has & SIZE.medium) { writeImage(f, sink, lead, 1, dir, f.imageMedium, row); lead = LEAD.comma }
  if (has & SIZE.large) { writeImage(f, sink, lead, 2, dir, f.imageLarge, row); lead = LEAD.comma }
  if (has & SIZE.full) writeImage(f, sink, lead, 3, dir, f.imageFull, row)
  sink.byte(0x7d)
  return true
}

/** `"<size>":"<image_dir><file>"`, after what `lead` names (image-prefixes.ts LEAD). */
function writeImage(f: PhotoFragments, sink: ByteSink, lead: number, size: number, dir: number, col: ColumnBytes, row: number): void {
  f.imagePrefixes.write(sink, lead, size, dir)
  writeValue(sink, col, row)
  sink.byte(0x22)
}

/** `"raw":<the source record>` (as JSON text when it is a JSON object or array, else as a string). */
function writeRaw(f: PhotoFragments, sink: ByteSink, comma: boolean, row: number): void {
  const a0 = f.p.raw.offsets[row]
  const a1 = f.p.raw.offsets[row + 1]
  if (a1 <= a0) return
  const raw = f.raw.toString('utf8', a0, a1)
  if (comma) sink.byte(0x2c)
  key(sink, f.keys.raw)
  sink.text(validJson(raw) ? raw : JSON.stringify(raw))
}

function validJson(text: string): boolean {
  const c = text[0]
  if (c !== '{' && c !== '[') return false
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}
