/**
 * One access-log line (JSON, stdout): time, request id, method, route pattern (never the raw
 * path, which may carry ids or a key in a v1 query string), status, duration, bytes sent, and a
 * key label. The label is the key record's id, or for a key that matched no record the first
 * 12 hex digits of its SHA-256: neither gives the key back (decisions.md, Keys in the URL).
 */
export interface AccessFacts {
  time: number
  id: string
  method: string
  route: string
  status: number
  ms: number
  bytes: number | null
  key: string | null
  encoding?: string
}

/** The ISO text of the last time written: every line of one millisecond shares it. */
let lastTime = NaN
let lastIso = ''

export function accessLine(f: AccessFacts): string {
  if (f.time !== lastTime) {
    lastIso = new Date(f.time).toISOString()
    lastTime = f.time
  }
  return (
    JSON.stringify({
      t: lastIso,
      level: 'info',
      event: 'http.request',
      request_id: f.id,
      method: f.method,
      route: f.route,
      status: f.status,
      duration_ms: Math.round(f.ms * 1000) / 1000,
      bytes: f.bytes,
      key: f.key,
      ...(f.encoding ? { encoding: f.encoding } : {}),
    }) + '\n'
  )
}

/** The label of a key that matched no record (a record's own id is used when there is one). */
export function unknownKeyLabel(key: string): string {
  return 'sha256:' + new Bun.CryptoHasher('sha256').update(key).digest('hex').slice(0, 12)
}

/** Errors are always logged; successes with probability `sample` (ACCESS_LOG_SAMPLE). */
export function shouldLog(status: number, sample: number, random: () => number = Math.random): boolean {
  return status >= 400 || sample >= 1 || (sample > 0 && random() < sample)
}
