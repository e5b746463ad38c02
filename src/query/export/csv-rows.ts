import type { Store } from '../../store/store'
import type { OutputSpec } from '../params/photo-fields'
import { bufferOf, fragment } from '../bytes/byte-sink'
import { writeDay, writeIsoTime } from '../bytes/date-bytes'
import { writeDouble, writeFloat32 } from '../bytes/float32-text'
import type { ByteOut } from './byte-out'
import { exportColumns, imageStart, type ExportColumn } from './export-columns'
import { fragmentsOf } from './fragments'
import type { RowWriter } from './row-writer'
import { csvField, csvNeedsLead, csvNeedsQuotes, FORMULA_LEAD, textNeedsLead, writeCsvField, writeCsvQuotedInner } from './csv-field'

/**
 * CSV (RFC 4180) written as bytes: a header of the flat column names (export-columns.ts, nested
 * members joined with "."), then one record per photo, CRLF line ends (§2.1), fields quoted only
 * when they hold a comma, a quote or a line break, quotes doubled (§2.6, §2.7); a text that a
 * spreadsheet would run as a formula gets a leading `'` (csv-field.ts, FORMULA_LEAD). An absent value
 * is an empty field. Values are the JSON's texts: dates YYYY-MM-DD, times ISO 8601 UTC with
 * milliseconds, float32 angles with the fewest digits that read back the same. Dictionary
 * values are pre-encoded fields; per row only column bytes are copied and digits written.
 * A failure is a last record whose first field is `#error` and second the problem's detail.
 */
type Cell = (o: ByteOut, row: number) => void
/** Per chunk, before its records: the span of rows [lo, hi] the chunk's rows lie in, or lo = -1 when too wide to check at once. */
type Prepare = (lo: number, hi: number) => void

/** A chunk's text columns are checked for bytes that need quoting in one native scan when its rows span at most this many times their count. */
const SPAN_CHECK = 4

const CRLF = fragment('\r\n')

export class CsvRows implements RowWriter {
  readonly columns: ExportColumn[]
  #cells: Cell[] = []
  #prepares: Prepare[] = []

  constructor(readonly store: Store, out: OutputSpec) {
    this.columns = exportColumns(store.photos, out)
  }

  start(o: ByteOut): void {
    this.#cells = this.columns.map((c) => cellWriter(this.store, c, o, this.#prepares))
    o.text(this.columns.map((c) => csvField(c.name)).join(',') + '\r\n')
  }

  rows(o: ByteOut, rows: Int32Array, n: number): void {
    const cells = this.#cells
    const k = cells.length
    if (this.#prepares.length > 0 && n > 0) {
      let lo = rows[0]!
      let hi = lo
      for (let j = 1; j < n; j++) {
        const r = rows[j]!
        if (r < lo) lo = r
        else if (r > hi) hi = r
      }
      if (hi - lo >= SPAN_CHECK * n) lo = -1
      for (const p of this.#prepares) p(lo, hi)
    }
    for (let j = 0; j < n; j++) {
      const r = rows[j]!
      cells[0]!(o, r)
      for (let c = 1; c < k; c++) {
        o.byte(0x2c)
        cells[c]!(o, r)
      }
      o.bytes(CRLF)
    }
  }

  end(): void {}

  failure(detail: string): string {
    return '#error,' + csvField(detail) + '\r\n'
  }
}

/**
 * True when the values of rows [lo, hi] of a text column hold no byte that needs quoting: one
 * native search per such byte over the span's bytes, so that each row's value is then copied as
 * it is, unscanned. False when lo < 0 (rows too spread out: each value is checked).
 */
function spanIsPlain(bytes: Buffer, offsets: Int32Array | Float64Array, lo: number, hi: number): boolean {
  if (lo < 0) return false
  const span = bytes.subarray(offsets[lo]!, offsets[hi + 1]!)
  return span.indexOf(0x22) < 0 && span.indexOf(0x2c) < 0 && span.indexOf(0x0a) < 0 && span.indexOf(0x0d) < 0
}

/**
 * A double column whose runs of rows often repeat a value (coordinates: every photo taken at one
 * place): the last value's text is kept and copied while the value repeats.
 */
function repeatedDouble(v: Float64Array, valid: (r: number) => boolean): Cell {
  const memo = Buffer.alloc(32)
  let last = NaN
  let len = 0
  return (o, r) => {
    if (!valid(r)) return
    const x = v[r]!
    if (x === last && x !== 0) return o.copy(memo, 0, len)
    const at = o.pos
    writeDouble(o, x)
    len = o.pos - at
    if (len <= memo.length) {
      o.buf.copy(memo, 0, at, o.pos)
      last = x
    } else last = NaN
  }
}

function cellWriter(store: Store, c: ExportColumn, out: ByteOut, prepares: Prepare[]): Cell {
  const p = store.photos
  switch (c.kind) {
    case 'int32': {
      const v = c.values
      return (o, r) => {
        if (v[r]! >= 0) o.int(v[r]!)
      }
    }
    case 'date': {
      const v = c.values
      return (o, r) => {
        if (v[r]! >= 0) writeDay(o, v[r]!)
      }
    }
    case 'timestamp': {
      const v = c.values
      return (o, r) => {
        if (Math.abs(v[r]!) <= 8.64e15) writeIsoTime(o, v[r]!)
      }
    }
    case 'f64': {
      const v = c.values
      const g = c.group
      if (!g) return repeatedDouble(v, (r) => v[r] === v[r])
      const [x, y, z] = g as [Float64Array, Float64Array, Float64Array]
      return repeatedDouble(v, (r) => Number.isFinite(x[r]!) && Number.isFinite(y[r]!) && Number.isFinite(z[r]!))
    }
    case 'f32': {
      const v = c.values
      return (o, r) => {
        if (v[r] === v[r]) writeFloat32(o, v[r]!)
      }
    }
    case 'utf8': {
      const offsets = c.col.offsets
      const bytes = bufferOf(c.col.data)
      let plain = false
      prepares.push((lo, hi) => (plain = spanIsPlain(bytes, offsets, lo, hi)))
      return (o, r) => {
        const a = offsets[r]!
        const b = offsets[r + 1]!
        // The first byte decides whether a text may need its `'` (one table read per cell).
        if (plain && (a === b || FORMULA_LEAD[bytes[a]!] === 0)) o.copy(bytes, a, b)
        else writeCsvField(o, bytes, a, b)
      }
    }
    case 'dict': {
      const codes = c.col.codes
      const f = fragmentsOf(c.col.dict, 'csv', csvField).bind(out)
      return (o, r) => f.write(o, codes[r]!)
    }
    case 'rover': {
      const f = fragmentsOf(c.dict, 'csv', csvField).bind(out)
      return (o, r) => f.write(o, p.rover[r]!)
    }
    case 'camera-name': {
      const f = fragmentsOf(c.dict, 'csv', csvField).bind(out)
      return (o, r) => f.write(o, c.codeOf(p.rover[r]!, p.camera.codes[r]!))
    }
    case 'image': {
      // URL = folder + file name; quoted as a whole when either part needs it.
      const dirs = fragmentsOf(p.image_dir.dict, 'raw', (v) => v).bind(out)
      const dirQuoted = fragmentsOf(p.image_dir.dict, 'csv-quoted-inner', (v) => v.replaceAll('"', '""')).bind(out)
      const dirCodes = p.image_dir.codes
      const offsets = c.col.offsets
      const files = bufferOf(c.col.data)
      const dirNeedsQuotes = new Int8Array(p.image_dir.dict.length + 1).fill(-1)
      let plain = false
      prepares.push((lo, hi) => (plain = spanIsPlain(files, offsets, lo, hi)))
      return (o, r) => {
        const a = imageStart(c, p.rover[r]!, r, p)
        if (a < 0) return
        const b = offsets[r + 1]!
        const dir = dirCodes[r]!
        let q = dirNeedsQuotes[dir]
        if (q === undefined) q = 0
        else if (q < 0) {
          const d = p.image_dir.dict[dir] ?? ''
          // 1: quotes; 2: an empty folder (the file name leads); 4: a formula-leading folder.
          q = dirNeedsQuotes[dir] = (/[",\r\n]/.test(d) ? 1 : 0) | (d === '' ? 2 : 0) | (textNeedsLead(d) ? 4 : 0)
        }
        const lead = (q & 4) !== 0 || ((q & 2) !== 0 && csvNeedsLead(files, a, b))
        if ((q & 1) === 0 && (plain || !csvNeedsQuotes(files, a, b))) {
          if (lead) o.byte(0x27)
          dirs.write(o, dir)
          o.copy(files, a, b)
          return
        }
        o.byte(0x22)
        if (lead) o.byte(0x27)
        dirQuoted.write(o, dir)
        writeCsvQuotedInner(o, files, a, b)
        o.byte(0x22)
      }
    }
  }
}
