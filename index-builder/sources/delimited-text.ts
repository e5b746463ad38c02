/**
 * Tab- or comma-separated tables (the v1 CSV, the MER tables). RFC 4180 quoting is honoured for CSV;
 * TSV fields are split on tabs only. Numbers may use a decimal comma (the MER TSV tables do).
 */
export interface Table {
  header: string[]
  rows: string[][]
  delimiter: ',' | '\t'
}

export function parseTable(text: string): Table {
  const lines = text.split(/\r?\n/)
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop()
  const first = lines[0] ?? ''
  const delimiter = first.includes('\t') ? '\t' : ','
  const split = delimiter === '\t' ? (l: string) => l.split('\t') : splitCsvLine
  const header = split(first).map((h) => h.trim())
  const rows: string[][] = []
  for (let i = 1; i < lines.length; i++) rows.push(split(lines[i]!))
  return { header, rows, delimiter }
}

function splitCsvLine(line: string): string[] {
  if (!line.includes('"')) return line.split(',')
  const out: string[] = []
  let cur = ''
  let q = false
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!
    if (q) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"'
        i++
      } else if (c === '"') q = false
      else cur += c
    } else if (c === '"') q = true
    else if (c === ',') {
      out.push(cur)
      cur = ''
    } else cur += c
  }
  out.push(cur)
  return out
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
