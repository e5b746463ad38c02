import { findCamera } from '../../catalog/cameras'
import { ROVERS } from '../../catalog/rovers'
import type { Store } from '../../store/store'
import type { DictColumn, PhotoColumns, Utf8Column } from '../../store/schema'
import { A, SIZE, type OutputSpec } from '../photo-fields'
import { bufferOf, enc, type ByteOut } from './byte-out'
import { PERSEVERANCE, chosenImage } from './export-columns'
import { fragmentsOf, type BoundFragments, type Fragments } from './fragments'
import { C, CONSTANTS, DICT_BITS, DICT_NAMES, dictMember, NAMES, SIZE_BITS, SIZE_TEXTS } from './json-texts'
import { DateWriter, DoubleTexts, writeFloat32 } from './number-bytes'
import { writeJsonInner } from './text-bytes'
import type { RowWriter } from './row-writer'

/**
 * NDJSON (and the JSON array fallback) written as bytes: each photo exactly as the photo list's
 * serialiser (photo-json.ts) writes it in `data` — same members, order, omissions and number
 * texts — so an export and the paged API agree byte for byte per photo. Constant member names,
 * dictionary members and image folders are pre-encoded fragments; per row only column bytes are
 * copied and digits written. `ndjson`: one photo per line (the last line ends with "\n"); `json`:
 * one array. A failure is a last line / element `{"error": {...problem}}`.
 *
 * The photo list renders the same objects (photo-json.ts); when it writes bytes from the same
 * kind of fragments, the two can share this row writer.
 */

export class JsonRows implements RowWriter {
  readonly #p: PhotoColumns
  readonly #nasaId: Buffer
  readonly #mars: Buffer
  readonly #raw: Buffer
  readonly #images: Array<{ col: Utf8Column; bytes: Buffer }>
  readonly #dictCols: DictColumn[]
  readonly #dictTables: Fragments[]
  readonly #dictCommaTables: Fragments[]
  readonly #dirTable: Fragments
  /** Bound to the output at start(): */
  #k: Int32Array = new Int32Array(0)
  #dict: BoundFragments[] = []
  #dictComma: BoundFragments[] = []
  #dirs!: BoundFragments
  #dates!: DateWriter
  readonly #coords = new DoubleTexts()
  readonly #rovers: Buffer[]
  readonly #cameras = new Map<number, Buffer>()
  #first = true
  /** A member has been written in the current attributes object (the next one needs a comma). */
  #any = false

  constructor(readonly store: Store, readonly out: OutputSpec, readonly lines: boolean) {
    const p = (this.#p = store.photos)
    this.#nasaId = bufferOf(p.nasa_id.data)
    this.#mars = bufferOf(p.date_taken_mars.data)
    this.#raw = bufferOf(p.raw.data)
    this.#images = [p.image_small, p.image_medium, p.image_large, p.image_full].map((col) => ({ col, bytes: bufferOf(col.data) }))
    this.#dictCols = [p.sample_type, p.title, p.caption, p.credit]
    this.#dictTables = this.#dictCols.map((col, d) => fragmentsOf(col.dict, 'json-member:' + DICT_NAMES[d], dictMember(DICT_NAMES[d]!, '')))
    this.#dictCommaTables = this.#dictCols.map((col, d) => fragmentsOf(col.dict, 'json-member,:' + DICT_NAMES[d], dictMember(DICT_NAMES[d]!, ',')))
    this.#dirTable = fragmentsOf(p.image_dir.dict, 'json-inner', (v) => JSON.stringify(v).slice(1, -1))
    this.#rovers = ROVERS.map((r) => enc(JSON.stringify({ id: r.slug, type: 'rover', attributes: { name: r.name, status: r.status } })))
  }

  start(o: ByteOut): void {
    this.#k = CONSTANTS.bind(o, NAMES)
    this.#dict = this.#dictTables.map((t) => t.bind(o))
    this.#dictComma = this.#dictCommaTables.map((t) => t.bind(o))
    this.#dirs = this.#dirTable.bind(o)
    this.#dates = new DateWriter(o)
    if (!this.lines) o.byte(0x5b)
  }

  /** A constant text (C.*). */
  #c(o: ByteOut, i: number): void {
    o.frag(this.#k[2 * i]!, this.#k[2 * i + 1]!)
  }

  end(o: ByteOut): void {
    if (!this.lines) o.byte(0x5d)
  }

  failure(detail: string): string {
    const problem = { type: '/errors/export-interrupted', title: 'Export Interrupted', status: 503, detail }
    return (this.lines ? '' : ',') + JSON.stringify({ error: problem }) + (this.lines ? '\n' : '')
  }

  rows(o: ByteOut, rows: Int32Array, n: number): void {
    for (let j = 0; j < n; j++) {
      if (!this.lines) {
        if (!this.#first) o.byte(0x2c)
        this.#first = false
      }
      this.#photo(o, rows[j]!)
      if (this.lines) o.byte(0x0a)
    }
  }

  #photo(o: ByteOut, row: number): void {
    const p = this.#p
    const out = this.out
    const attrs = out.attrs
    this.#c(o, C.open)
    o.int(p.id[row]!)
    this.#c(o, C.type)
    this.#any = false
    if (attrs & A.nasa_id) {
      const a = p.nasa_id.offsets[row]!
      const b = p.nasa_id.offsets[row + 1]!
      if (b > a) {
        this.#key(o, C.nasaId)
        writeJsonInner(o, this.#nasaId, a, b)
        o.byte(0x22)
      }
    }
    if (attrs & A.sol && p.sol[row]! >= 0) {
      this.#key(o, C.sol)
      o.int(p.sol[row]!)
    }
    if (attrs & A.earth_date && p.earth_date[row]! >= 0) {
      this.#key(o, C.earthDate)
      this.#dates.day(o, p.earth_date[row]!)
      o.byte(0x22)
    }
    if (attrs & A.date_taken_utc) {
      const t = p.date_taken_utc[row]!
      if (Math.abs(t) <= 8.64e15) {
        this.#key(o, C.dateUtc)
        this.#dates.iso(o, t)
        o.byte(0x22)
      }
    }
    if (attrs & A.date_taken_mars) {
      const a = p.date_taken_mars.offsets[row]!
      const b = p.date_taken_mars.offsets[row + 1]!
      if (b > a) {
        this.#key(o, C.dateMars)
        writeJsonInner(o, this.#mars, a, b)
        o.byte(0x22)
      }
    }
    if (attrs & A.images) {
      const mark = o.pos
      const wasAny = this.#any
      this.#key(o, C.images)
      if (this.#imageMembers(o, row)) o.byte(0x7d)
      else {
        o.pos = mark
        this.#any = wasAny
      }
    }
    if (attrs & A.dimensions) {
      const wd = p.width[row]!
      const h = p.height[row]!
      if (wd >= 0) {
        this.#key(o, C.width)
        o.int(wd)
        if (h >= 0) {
          this.#c(o, C.height)
          o.int(h)
        }
        o.byte(0x7d)
      } else if (h >= 0) {
        this.#key(o, C.heightOnly)
        o.int(h)
        o.byte(0x7d)
      }
    }
    for (let d = 0; d < 4; d++) {
      if (!(attrs & DICT_BITS[d]!)) continue
      const code = this.#dictCols[d]!.codes[row]!
      // The member's fragment with its leading comma once a member precedes it.
      const frags = this.#any ? this.#dictComma[d]! : this.#dict[d]!
      if (frags.size(code) === 0) continue
      frags.write(o, code)
      this.#any = true
    }
    if (attrs & A.location) {
      const site = p.site[row]!
      const drive = p.drive[row]!
      const x = p.coord_x[row]!
      const y = p.coord_y[row]!
      const z = p.coord_z[row]!
      const coords = out.coordinates && Number.isFinite(x) && Number.isFinite(y) && Number.isFinite(z)
      if (site >= 0 || drive >= 0 || coords) {
        if (site >= 0) {
          this.#key(o, C.site)
          o.int(site)
          if (drive >= 0) {
            this.#c(o, C.drive)
            o.int(drive)
          }
          if (coords) this.#c(o, C.coordinates)
        } else if (drive >= 0) {
          this.#key(o, C.driveOnly)
          o.int(drive)
          if (coords) this.#c(o, C.coordinates)
        } else this.#key(o, C.coordinatesOnly)
        if (coords) {
          this.#coords.write(o, x)
          this.#c(o, C.y)
          this.#coords.write(o, y)
          this.#c(o, C.z)
          this.#coords.write(o, z)
          o.byte(0x7d)
        }
        o.byte(0x7d)
      }
    }
    if (attrs & A.telemetry) {
      const az = p.mast_azimuth[row]!
      const el = p.mast_elevation[row]!
      if (az === az) {
        this.#key(o, C.azimuth)
        writeFloat32(o, az)
        if (el === el) {
          this.#c(o, C.elevation)
          writeFloat32(o, el)
        }
        o.byte(0x7d)
      } else if (el === el) {
        this.#key(o, C.elevationOnly)
        writeFloat32(o, el)
        o.byte(0x7d)
      }
    }
    if (out.raw) {
      const a = p.raw.offsets[row]!
      const b = p.raw.offsets[row + 1]!
      if (b > a) {
        this.#key(o, C.raw)
        // The source record as the photo list writes it: the JSON text itself when it is an object or array, else a JSON string.
        const raw = this.#raw.toString('utf8', a, b)
        o.text(validJson(raw) ? raw : JSON.stringify(raw))
      }
    }
    o.byte(0x7d)
    if (out.includeRover || out.includeCamera) {
      this.#c(o, C.relationships)
      const rover = out.includeRover ? this.#rovers[p.rover[row]!] : undefined
      if (rover) {
        this.#c(o, C.rover)
        o.bytes(rover)
        if (out.includeCamera) o.byte(0x2c)
      }
      if (out.includeCamera) {
        this.#c(o, C.camera)
        o.bytes(this.#camera(p.rover[row]!, p.camera.codes[row]!))
      }
      o.byte(0x7d)
    }
    o.byte(0x7d)
  }

  /** An attribute member's name (C.* of members()), with the comma when a member precedes it. */
  #key(o: ByteOut, i: number): void {
    const k = this.#any ? i + 1 : i
    this.#any = true
    o.frag(this.#k[2 * k]!, this.#k[2 * k + 1]!)
  }


  /** The image members of a photo; false when it has none (photo-json.ts imagesJson). */
  #imageMembers(o: ByteOut, row: number): boolean {
    const p = this.#p
    const out = this.out
    const allowed = p.rover[row] === PERSEVERANCE ? out.sizes : out.sizes & SIZE.full
    if (allowed === 0) return false
    const dir = p.image_dir.codes[row]!
    if (out.singleImage) {
      const s = chosenImage(p, row, allowed)
      if (s < 0) return false
      this.#image(o, s, row, dir)
      return true
    }
    let any = false
    for (let s = 0; s < 4; s++) {
      if (!(allowed & SIZE_BITS[s]!)) continue
      const col = this.#images[s]!.col
      if (col.offsets[row + 1]! === col.offsets[row]!) continue
      if (any) o.byte(0x2c)
      any = true
      this.#image(o, s, row, dir)
    }
    return any
  }

  #image(o: ByteOut, s: number, row: number, dir: number): void {
    const { col, bytes } = this.#images[s]!
    this.#c(o, SIZE_TEXTS[s]!)
    this.#dirs.write(o, dir)
    writeJsonInner(o, bytes, col.offsets[row]!, col.offsets[row + 1]!)
    o.byte(0x22)
  }

  #camera(rover: number, code: number): Buffer {
    const key = rover * 65536 + code
    let j = this.#cameras.get(key)
    if (j === undefined) {
      const name = this.#p.camera.dict[code] ?? ''
      const facts = ROVERS[rover] ? findCamera(ROVERS[rover]!.slug, name) : undefined
      j = enc(JSON.stringify(facts ? { id: name, type: 'camera', attributes: { full_name: facts.full_name } } : { id: name, type: 'camera' }))
      this.#cameras.set(key, j)
    }
    return j
  }
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
