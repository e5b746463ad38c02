import type { Store } from '../../store/store'
import type { DictColumn, Utf8Column } from '../../store/schema'
import { dayText } from '../day-text'
import { float32Text } from '../float32-text'
import { isoTime } from '../iso-time'
import { photoJson } from '../photo-json'
import type { OutputSpec } from '../photo-fields'
import { exportColumns, imageRange, type ExportColumn } from './export-columns'

/** A text format written chunk by chunk: `start` before the first row, `chunk` per run of rows, `end` after the last. */
export interface TextRows {
  start(): string
  chunk(rows: Int32Array, first: boolean): string
  end(): string
  /** What to append when the export is cut short (timeout), so a reader sees it failed. */
  failure(detail: string): string
}

/**
 * JSON-family rows: each photo exactly as one element of the photo list's `data` (photo-json.ts,
 * the list's own serialiser), so an export and the paged API agree byte for byte per photo.
 * `ndjson`: one photo per line (NDJSON; the last line ends with "\n"). `json`: one array.
 * A failure is a last line / element `{"error": {...problem}}`.
 */
export function jsonRows(store: Store, out: OutputSpec, lines: boolean): TextRows {
  return {
    start: () => (lines ? '' : '['),
    chunk(rows, first) {
      let s = ''
      for (let j = 0; j < rows.length; j++) s += (lines ? '' : first && j === 0 ? '' : ',') + photoJson(store, rows[j]!, out) + (lines ? '\n' : '')
      return s
    },
    end: () => (lines ? '' : ']'),
    failure: (detail) => (lines ? '' : ',') + JSON.stringify({ error: problem(detail) }) + (lines ? '\n' : ''),
  }
}

/**
 * CSV (RFC 4180): a header of the flat column names (export-columns.ts, nested members joined
 * with "."), then one record per photo, CRLF line ends (§2.1), fields quoted only when they hold
 * a comma, a quote or a line break, with quotes doubled (§2.6, §2.7). An absent value is an empty
 * field. Values are the JSON's texts: dates YYYY-MM-DD, times ISO 8601 UTC with milliseconds,
 * float32 angles with the fewest digits that read back the same.
 * A failure is a last record whose first field is `#error` and second the problem's detail.
 */
export function csvRows(store: Store, out: OutputSpec): TextRows {
  const p = store.photos
  const columns = exportColumns(p, out)
  const cells = columns.map((c) => cellWriter(store, c))
  return {
    start: () => columns.map((c) => csvField(c.name)).join(',') + '\r\n',
    chunk(rows) {
      let s = ''
      for (let j = 0; j < rows.length; j++) {
        const r = rows[j]!
        let line = cells[0]!(r)
        for (let k = 1; k < cells.length; k++) line += ',' + cells[k]!(r)
        s += line + '\r\n'
      }
      return s
    },
    end: () => '',
    failure: (detail) => '#error,' + csvField(detail) + '\r\n',
  }
}

function problem(detail: string) {
  return { type: '/errors/export-interrupted', title: 'Export Interrupted', status: 503, detail }
}

const NEEDS_QUOTES = /[",\r\n]/

export function csvField(s: string): string {
  return NEEDS_QUOTES.test(s) ? '"' + s.replaceAll('"', '""') + '"' : s
}

/** Dictionary values as CSV fields, by code, made once per dictionary array. */
const fieldsByDict = new WeakMap<string[], string[]>()
function dictFields(dict: string[]): string[] {
  let f = fieldsByDict.get(dict)
  if (!f) fieldsByDict.set(dict, (f = dict.map(csvField)))
  return f
}

function utf8Text(col: Utf8Column, a: number, b: number): string {
  return a === b ? '' : Buffer.from(col.data.buffer, col.data.byteOffset, col.data.byteLength).toString('utf8', a, b)
}

function cellWriter(store: Store, c: ExportColumn): (row: number) => string {
  const p = store.photos
  switch (c.kind) {
    case 'int32': {
      const v = c.values
      return (r) => (v[r]! >= 0 ? '' + v[r] : '')
    }
    case 'date': {
      const v = c.values
      return (r) => (v[r]! >= 0 ? dayText(v[r]!) : '')
    }
    case 'timestamp': {
      const v = c.values
      return (r) => (Math.abs(v[r]!) <= 8.64e15 ? isoTime(v[r]!) : '')
    }
    case 'f64': {
      const v = c.values
      const g = c.group
      return g ? (r) => (Number.isFinite(g[0]![r]) && Number.isFinite(g[1]![r]) && Number.isFinite(g[2]![r]) ? '' + v[r] : '') : (r) => (v[r] === v[r] ? '' + v[r] : '')
    }
    case 'f32': {
      const v = c.values
      return (r) => (v[r] === v[r] ? float32Text(v[r]!) : '')
    }
    case 'utf8': {
      const col = c.col
      return (r) => csvField(utf8Text(col, col.offsets[r]!, col.offsets[r + 1]!))
    }
    case 'dict': {
      const col: DictColumn = c.col
      const f = dictFields(col.dict)
      return (r) => f[col.codes[r]!] ?? ''
    }
    case 'rover': {
      const f = dictFields(c.dict)
      return (r) => f[p.rover[r]!] ?? ''
    }
    case 'camera-name': {
      const f = dictFields(c.dict)
      return (r) => f[c.codeOf(p.rover[r]!, p.camera.codes[r]!)] ?? ''
    }
    case 'image': {
      const dirs = dictFields(p.image_dir.dict)
      return (r) => {
        const range = imageRange(c, p.rover[r]!, r, p)
        if (!range) return ''
        const dir = dirs[p.image_dir.codes[r]!] ?? ''
        const file = utf8Text(c.col, range[0], range[1])
        // A folder needing quotes is already quoted: quote the whole URL instead.
        return dir.startsWith('"') || NEEDS_QUOTES.test(file) ? csvField(p.image_dir.dict[p.image_dir.codes[r]!]! + file) : dir + file
      }
    }
  }
}
