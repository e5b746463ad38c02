/**
 * Tab- or comma-separated tables (the v1 CSV, the MER tables). CSV is parsed by RFC 4180;
 * TSV fields are split on tabs only. Numbers may use a decimal comma (the MER TSV tables do).
 */
export interface Table {
  header: string[]
  rows: string[][]
  delimiter: ',' | '\t'
}

export class TableError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'TableError'
  }
}

export function parseTable(text: string): Table {
  const firstEnd = text.indexOf('\n')
  const first = firstEnd < 0 ? text : text.slice(0, firstEnd)
  const delimiter = first.includes('\t') ? '\t' : ','
  const records = delimiter === '\t' ? splitTsv(text) : parseCsv(text)
  while (records.length > 0 && records[records.length - 1]!.every((f) => f.trim() === '')) records.pop()
  const header = (records[0] ?? []).map((h) => h.trim())
  return { header, rows: records.slice(1), delimiter }
}

function splitTsv(text: string): string[][] {
  return text.split(/\r?\n/).map((l) => l.split('\t'))
}

/**
 * RFC 4180 §2: records end at CRLF or LF outside quotes; a field is quoted when it starts with `"`,
 * a quote inside is written `""`, and a quoted field may hold commas and line breaks. An
 * unterminated quote, a quote inside an unquoted field, or text after a closing quote is an error
 * (never silently a different split). One pass, no backtracking.
 */
function parseCsv(text: string): string[][] {
  const records: string[][] = []
  let record: string[] = []
  let line = 1
  let i = 0
  const n = text.length
  for (;;) {
    // One field starts at i.
    let field = ''
    if (text.charCodeAt(i) === 34) {
      const startLine = line
      i++
      for (;;) {
        const q = text.indexOf('"', i)
        if (q < 0) throw new TableError(`line ${startLine}: unterminated quoted field`)
        const chunk = text.slice(i, q)
        for (let k = 0; k < chunk.length; k++) if (chunk.charCodeAt(k) === 10) line++
        field += chunk
        if (text.charCodeAt(q + 1) === 34) {
          field += '"'
          i = q + 2
        } else {
          i = q + 1
          break
        }
      }
      const c = text[i]
      if (c !== undefined && c !== ',' && c !== '\n' && !(c === '\r' && text[i + 1] === '\n')) throw new TableError(`line ${line}: text after a closing quote`)
    } else {
      let j = i
      while (j < n) {
        const c = text.charCodeAt(j)
        if (c === 44 || c === 10 || (c === 13 && text.charCodeAt(j + 1) === 10)) break
        if (c === 34) throw new TableError(`line ${line}: a quote inside an unquoted field`)
        j++
      }
      field = text.slice(i, j)
      i = j
    }
    record.push(field)
    if (i >= n) {
      records.push(record)
      return records
    }
    if (text[i] === ',') {
      i++
      continue
    }
    i += text[i] === '\r' ? 2 : 1
    line++
    records.push(record)
    record = []
    if (i >= n) return records
  }
}

/** A number written with a decimal point or a decimal comma; undefined when empty or not numeric. */
export function tableNumber(s: string | undefined): number | undefined {
  if (s === undefined) return undefined
  const t = s.trim().replace(',', '.')
  if (t === '') return undefined
  const v = Number(t)
  return Number.isFinite(v) ? v : undefined
}

/** Column index by any of the given names (case-insensitive), or -1. */
export function columnIndex(header: readonly string[], ...names: string[]): number {
  const lower = header.map((h) => h.toLowerCase())
  for (const n of names) {
    const i = lower.indexOf(n.toLowerCase())
    if (i >= 0) return i
  }
  return -1
}
