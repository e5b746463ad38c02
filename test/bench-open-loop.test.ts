import { afterAll, describe, expect, test } from 'bun:test'
import { completeAnswer, loopbackUrl, openLoop, requestBytes } from '../bench/http/open-loop'
import { NATIVE_GENERATOR, nativeOpenLoopBinary, openLoopNative } from '../bench/http/native-open-loop'
import type { OpenLoopRun } from '../bench/lib/result'

/**
 * The open-loop generator behind the bench's half-saturation latency: a server stall must show
 * as the wait of every request intended during it (no coordinated omission), and no request
 * intended in the window may be dropped. The stall here is deliberate and large (300 ms in a
 * 1 s window), so the assertions hold on a loaded machine.
 */
describe('bench open-loop generator', () => {
  let served = 0
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch() {
      served++
      if (served === 700) Bun.sleepSync(300) // the event loop stalls once, 0.5 s into the measured window
      return new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } })
    },
  })
  afterAll(() => server.stop(true))

  /** What a 1 s run at `rate` over the stalling server must show, whichever generator measured it. */
  const expectStallSeen = (run: OpenLoopRun, rate: number) => {
    expect(run.bad_status).toBe(0)
    // Every request intended in the 1 s window is answered (late ones after the window included).
    expect(run.requests + run.unanswered).toBeGreaterThanOrEqual(rate * 0.98)
    expect(run.requests + run.unanswered).toBeLessThanOrEqual(rate * 1.02)
    // ~30% of the window's requests were intended during the stall: p90 must be well above any normal answer.
    expect(run.p90_ms).toBeGreaterThan(50)
    expect(run.max_ms).toBeGreaterThan(250)
    expect(run.p50_ms).toBeLessThan(run.p90_ms)
  }

  test('a 300 ms stall shows in the latency of every request intended during it, and every intended request is sent', async () => {
    expectStallSeen(await openLoop(`http://127.0.0.1:${server.port}/x`, 1000, 1, 4), 1000)
  })

  const native = nativeOpenLoopBinary()
  test.skipIf(!('path' in native))('the C generator: the same 300 ms stall shows in every request intended during it, and every intended request is sent', async () => {
    served = 0
    const rate = 1000
    const url = `http://127.0.0.1:${server.port}/x`
    const run = (await openLoopNative(loopbackUrl(url), rate, 1, 4, requestBytes(new URL(url), { 'X-Probe': '1' })))!
    expect(run.generator).toStartWith(NATIVE_GENERATOR)
    expectStallSeen(run, rate)
  })

  test.skipIf(!('path' in native))('the C generator frames answers as the JavaScript one does: a 304 without a body and a 200 with one, over one keep-alive connection each', async () => {
    let n = 0
    const s = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: (req) => (++n % 2 ? new Response(null, { status: 304, headers: { etag: '"e"', 'content-length': '99' } }) : new Response('x'.repeat(70_000))),
    })
    try {
      const url = `http://127.0.0.1:${s.port}/y`
      const run = (await openLoopNative(loopbackUrl(url), 200, 1, 2, requestBytes(new URL(url), {})))!
      // 304 and 200 alternate on each connection: a body taken for the 304 (99 bytes) or a 70 KB
      // body not waited for would leave bytes after an answer, which the generator refuses.
      expect(run.bad_status).toBe(0)
      expect(run.requests).toBeGreaterThan(150)
    } finally {
      s.stop(true)
    }
  })

  test('answers are framed by Content-Length; a 304 has no body; a partial answer is not complete', () => {
    const enc = (s: string) => new TextEncoder().encode(s)
    const ok = enc('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi')
    expect(completeAnswer(ok, ok.length)).toEqual({ status: 200, bytes: ok.length })
    expect(completeAnswer(ok, ok.length - 1)).toBeUndefined()
    const nm = enc('HTTP/1.1 304 Not Modified\r\nETag: "x"\r\nContent-Length: 99\r\n\r\n')
    expect(completeAnswer(nm, nm.length)).toEqual({ status: 304, bytes: nm.length })
    const chunked = enc('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n')
    expect(() => completeAnswer(chunked, chunked.length)).toThrow('chunked')
  })

  test('refuses any host but 127.0.0.1', async () => {
    await expect(openLoop('http://localhost:1/x', 10, 1, 1)).rejects.toThrow('127.0.0.1')
  })
})
