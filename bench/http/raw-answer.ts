import { connect } from 'node:net'

/**
 * One HTTP/1.1 answer as it came over the wire: status, header fields in wire order with their
 * names as sent, and the body bytes. Read from a raw socket rather than through fetch, whose
 * Headers sort and combine the fields: the ceiling must answer the same fields in the same order.
 */
export interface RawAnswer {
  status: number
  headers: Array<[string, string]>
  body: Uint8Array<ArrayBuffer>
}

/** One prepared answer of the ceiling (bench/http/ceiling-server.ts): the body in base64, null for none. */
export interface CeilingAnswer {
  status: number
  headers: Array<[string, string]>
  body: string | null
}

/** Fields the HTTP server itself writes (framing, the clock): the ceiling's Bun.serve adds its own. */
export const SERVER_FIELDS = new Set(['date', 'content-length', 'transfer-encoding', 'connection', 'keep-alive'])

/**
 * Fields whose values change from one answer to the next of the same request: the request id
 * (a new UUID per request), the remaining calls and the RateLimit state (counts and seconds to
 * the window's end), the reset (the next top of the hour). Compared by name and place only.
 */
export const VOLATILE_FIELDS = new Set(['x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit'])

const MAX_ANSWER_BYTES = 16 << 20
const TIMEOUT_MS = 10_000

/** GET `path` from a loopback `origin` (http://127.0.0.1:PORT) with `headers`, on a connection of its own. */
export function rawGet(origin: string, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const u = new URL(origin)
  if (u.hostname !== '127.0.0.1') throw new Error(`refusing to ask anything but 127.0.0.1: ${origin}`)
  const head = [`GET ${path} HTTP/1.1`, `Host: ${u.host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), 'Connection: close', '', ''].join('\r\n')
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const socket = connect({ host: u.hostname, port: Number(u.port) }, () => socket.end(head))
    socket.setTimeout(TIMEOUT_MS, () => socket.destroy(new Error(`GET ${path}: no answer within ${TIMEOUT_MS} ms`)))
    socket.on('data', (c: Buffer) => {
      size += c.length
      if (size > MAX_ANSWER_BYTES) return socket.destroy(new Error(`GET ${path}: answer larger than ${MAX_ANSWER_BYTES} bytes`))
      chunks.push(c)
    })
    socket.on('error', reject)
    socket.on('close', () => {
      try {
        resolve(parseAnswer(Buffer.concat(chunks)))
      } catch (e) {
        reject(e)
      }
    })
  })
}

/** A whole HTTP/1.1 answer with a Content-Length body (or none). */
export function parseAnswer(raw: Buffer): RawAnswer {
  const end = raw.indexOf('\r\n\r\n')
  if (end < 0) throw new Error('answer without an end of head')
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n')
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine!)?.[1] ?? NaN)
  if (!Number.isInteger(status)) throw new Error(`not an HTTP/1.1 status line: ${statusLine}`)
  const headers = lines.map((l): [string, string] => {
    const colon = l.indexOf(':')
    return [l.slice(0, colon), l.slice(colon + 1).trim()]
  })
  const length = headers.find(([k]) => k.toLowerCase() === 'content-length')?.[1]
  const body = raw.subarray(end + 4, length === undefined ? raw.length : end + 4 + Number(length))
  return { status, headers, body: new Uint8Array(body) }
}

/** The fields a ceiling should answer with: the answer's own, without those the server writes. */
export function answerFields(a: RawAnswer): Array<[string, string]> {
  return a.headers.filter(([k]) => !SERVER_FIELDS.has(k.toLowerCase()))
}

/**
 * How two answers to the same request differ in status, fields (names, order, values except the
 * volatile ones) and body size; empty when they do not. The body's bytes may differ where the
 * service stamps the time (meta.timestamp has a fixed width).
 */
export function answerDifferences(service: RawAnswer, ceiling: RawAnswer): string[] {
  const out: string[] = []
  if (service.status !== ceiling.status) out.push(`status ${ceiling.status}, service ${service.status}`)
  if (service.body.length !== ceiling.body.length) out.push(`body ${ceiling.body.length} bytes, service ${service.body.length}`)
  const show = (f: Array<[string, string]>) => f.map(([k, v]) => (VOLATILE_FIELDS.has(k.toLowerCase()) ? `${k.toLowerCase()}: *` : `${k.toLowerCase()}: ${v}`))
  const a = show(answerFields(service))
  const b = show(answerFields(ceiling))
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) out.push(`field ${i + 1}: ceiling "${b[i] ?? '(none)'}", service "${a[i] ?? '(none)'}"`)
  return out
}
