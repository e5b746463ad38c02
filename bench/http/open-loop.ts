/**
 * An open-loop, constant-rate HTTP/1.1 load generator with latency corrected for coordinated
 * omission, in the manner of wrk2: each keep-alive connection owns a fixed schedule of intended
 * send times (rate / connections per second, the connections staggered), sends its next request
 * at its intended time or, when the previous answer is late, as soon as that answer is in; and
 * every latency is measured from the request's INTENDED send time to the end of its answer. A
 * server stall therefore shows as the latency of every request that should have been sent during
 * it, not as one slow sample (which is what a closed-loop tool such as wrk reports).
 *
 * The generator's own lateness (actual send - intended send) is reported too: it is part of the
 * measured latency, so a high figure there means the machine, not the server, is the limit.
 *
 * Usage: bun bench/http/open-loop.ts URL RATE DURATION_S CONNECTIONS [HEADERS_JSON]
 * Prints one JSON line (OpenLoopRun), measured by the C generator of the same method
 * (native-open-loop.ts) when a C compiler is at hand, else by this one. Loopback only; bounded in time.
 */
import { percentile } from '../lib/measure'
import type { OpenLoopRun } from '../lib/result'
import { openLoopNative } from './native-open-loop'

export const JS_GENERATOR = 'Bun (bench/http/open-loop.ts)'

/** The URL to load, refused unless it names 127.0.0.1 (a generator never loads another host). */
export function loopbackUrl(url: string): URL {
  const u = new URL(url)
  if (u.hostname !== '127.0.0.1') throw new Error(`refusing to load anything but 127.0.0.1: ${url}`)
  return u
}

/** The request every connection sends: GET of the URL's target with Host and the given headers. */
export function requestBytes(u: URL, headers: Record<string, string>): Buffer {
  return Buffer.from(`GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\n` + Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('') + '\r\n')
}

interface Conn {
  socket?: import('bun').Socket<undefined>
  /** Intended send time (ns) of the next request. */
  next: number
  /** Intended send time of the request in flight, or -1. */
  inflight: number
  sentAt: number
  /** True when the request in flight was sent on an idle connection (its lateness is the generator's). */
  onTime: boolean
  buf: Uint8Array
  len: number
}

const HEADER_END = Buffer.from('\r\n\r\n')
/** How long after the measured window late requests may still be sent and answered. */
const DRAIN_NS = 5e9
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i

/** Parses one complete answer at the start of buf[0..len), or returns undefined when it is not all in yet. */
export function completeAnswer(buf: Uint8Array, len: number): { status: number; bytes: number } | undefined {
  const view = Buffer.from(buf.buffer, buf.byteOffset, len)
  const end = view.indexOf(HEADER_END)
  if (end < 0) return undefined
  const head = view.toString('latin1', 0, end)
  const status = Number(head.slice(9, 12))
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) throw new Error('chunked answers are not supported by the open-loop generator')
  const bodyLength = status === 304 || status === 204 || (status >= 100 && status < 200) ? 0 : Number(head.match(CONTENT_LENGTH)?.[1] ?? 0)
  const bytes = end + 4 + bodyLength
  return len >= bytes ? { status, bytes } : undefined
}

export async function openLoop(url: string, rate: number, durationS: number, connections: number, headers: Record<string, string> = {}): Promise<OpenLoopRun> {
  const u = loopbackUrl(url)
  const request = requestBytes(u, headers)
  const now = () => Bun.nanoseconds()
  const interval = (1e9 * connections) / rate
  const warmupNs = Math.min(1e9, durationS * 0.2e9)
  const latencies: number[] = []
  const lags: number[] = []
  let bad = 0
  let failure: Error | undefined
  const conns: Conn[] = Array.from({ length: connections }, () => ({ next: 0, inflight: -1, sentAt: 0, onTime: true, buf: new Uint8Array(1 << 16), len: 0 }))

  let t0 = 0
  let tEnd = Infinity
  let closing = false
  let measuredFrom = 0
  const send = (c: Conn, t: number, onTime: boolean) => {
    c.inflight = c.next
    c.sentAt = t
    c.onTime = onTime
    c.next += interval
    c.socket!.write(request)
  }
  const onData = (c: Conn, chunk: Uint8Array) => {
    if (c.len + chunk.length > c.buf.length) {
      const grown = new Uint8Array(Math.max(c.buf.length * 2, c.len + chunk.length))
      grown.set(c.buf.subarray(0, c.len))
      c.buf = grown
    }
    c.buf.set(chunk, c.len)
    c.len += chunk.length
    let a: ReturnType<typeof completeAnswer>
    try {
      a = completeAnswer(c.buf, c.len)
    } catch (e) {
      failure = e as Error
      return
    }
    if (!a) return
    const t = now()
    if (a.bytes !== c.len) failure ??= new Error(`${c.len - a.bytes} bytes after an answer with one request in flight`)
    c.len = 0
    if (c.inflight >= measuredFrom) {
      latencies.push((t - c.inflight) / 1e6)
      if (c.onTime) lags.push((c.sentAt - c.inflight) / 1e6)
      if (a.status < 200 || a.status >= 400) bad++
    }
    c.inflight = -1
    // Due already: this request waited for the answer before it (the server's delay, measured from its intended time).
    if (c.next <= t && c.next < tEnd) send(c, t, false)
    sendDue(t)
  }
  /** Sends what has fallen due on idle connections (called by the scheduler and on every answer, so I/O drives sends too). */
  const sendDue = (t: number) => {
    for (const c of conns) if (c.inflight < 0 && c.next <= t && c.next < tEnd) send(c, t, true)
  }

  await Promise.all(conns.map(async (c) => {
    c.socket = await Bun.connect({
      hostname: u.hostname,
      port: Number(u.port),
      socket: {
        data: (_s, chunk) => onData(c, chunk),
        close: () => { if (c.inflight >= 0 && !closing) failure ??= new Error('the server closed a connection with a request in flight') },
        error: (_s, e) => { failure ??= e },
      },
    })
    c.socket.setNoDelay(true)
  }))

  t0 = now() + 1e6
  measuredFrom = t0 + warmupNs
  tEnd = measuredFrom + durationS * 1e9
  conns.forEach((c, i) => (c.next = t0 + (i * interval) / connections))

  // The scheduler: sends every request that is due on an idle connection. It yields to I/O
  // between passes (setImmediate) so sends stay within microseconds of their intended time;
  // when nothing is due for a while it sleeps on a timer instead of spinning. Requests intended
  // before the end but held back by a slow answer are still sent after it (bounded by
  // DRAIN_NS): dropping them would hide exactly the stalls this measures.
  const deadline = tEnd + DRAIN_NS
  await new Promise<void>((done) => {
    const tick = () => {
      const t = now()
      if (failure || t >= deadline || conns.every((c) => c.inflight < 0 && c.next >= tEnd)) return done()
      sendDue(t)
      let soonest = Infinity
      for (const c of conns) if (c.inflight < 0 && c.next < soonest) soonest = c.next
      if (soonest - now() > 2e6) setTimeout(tick, 1)
      else setImmediate(tick)
    }
    tick()
  })
  // Requests in flight at the deadline, and those intended before the end but never sent.
  const unanswered = conns.reduce((n, c) => n + (c.inflight >= 0 ? 1 : 0) + (c.next < tEnd ? Math.ceil((tEnd - c.next) / interval) : 0), 0)
  closing = true
  for (const c of conns) c.socket?.end()
  if (failure) throw failure
  const r3 = (x: number) => Math.round(x * 1000) / 1000
  return {
    target_rps: rate,
    achieved_rps: Math.round(latencies.length / durationS),
    requests: latencies.length,
    p50_ms: r3(percentile(latencies, 0.5)),
    p90_ms: r3(percentile(latencies, 0.9)),
    p99_ms: r3(percentile(latencies, 0.99)),
    p999_ms: r3(percentile(latencies, 0.999)),
    max_ms: r3(latencies.reduce((a, b) => (b > a ? b : a), 0)),
    send_lag_p99_ms: lags.length ? r3(percentile(lags, 0.99)) : NaN,
    bad_status: bad,
    unanswered,
    connections,
    duration_s: durationS,
    generator: JS_GENERATOR,
  }
}

/**
 * One run by the C generator when it can be built (it leaves the server the CPU a spinning
 * JavaScript loop would take), else by openLoop. OPEN_LOOP_GENERATOR=js forces the latter.
 */
export async function openLoopBest(url: string, rate: number, durationS: number, connections: number, headers: Record<string, string> = {}): Promise<OpenLoopRun> {
  const u = loopbackUrl(url)
  if (process.env.OPEN_LOOP_GENERATOR !== 'js') {
    const run = await openLoopNative(u, rate, durationS, connections, requestBytes(u, headers))
    if (run) return run
  }
  return openLoop(url, rate, durationS, connections, headers)
}

if (import.meta.main) {
  const [url, rate, duration, conns, headers] = process.argv.slice(2)
  const run = await openLoopBest(url, Number(rate), Number(duration), Number(conns), headers ? JSON.parse(headers) : {})
  console.log(JSON.stringify(run))
  process.exit(0)
}
