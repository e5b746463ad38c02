/**
 * The media ranges of an Accept header (RFC 9110 §12.5.1) as exact lower-cased types with their
 * q-value, in the order sent: one parse for every place that negotiates (JSON media types,
 * export formats). Bounded: only the first 1 KiB is read; an unparsable q counts as 0.
 */
export function acceptRanges(accept: string): Array<{ type: string; q: number }> {
  const out: Array<{ type: string; q: number }> = []
  for (const part of accept.slice(0, 1024).split(',')) {
    const [rawType, ...params] = part.split(';')
    let q = 1
    for (const p of params) {
      const [k, v] = p.split('=')
      if (k?.trim().toLowerCase() === 'q') {
        const n = Number(v?.trim())
        q = Number.isFinite(n) && n >= 0 && n <= 1 ? n : 0
      }
    }
    out.push({ type: rawType!.trim().toLowerCase(), q })
  }
  return out
}
