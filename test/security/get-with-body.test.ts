import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rawExchange } from '../support/fuzz-arbitraries'
import { leaks, startRawServer, type RawServer } from './support'

/**
 * A GET or HEAD announcing a body is refused with a whole 400 problem document before any route
 * runs (RFC 9110 §9.3.1). Unread, such a body once cut a streamed export short: the export began
 * answering, then the HTTP layer found the body's chunked framing malformed and closed the
 * connection in the middle of the 200 (found by the fuzzer, seed 687421).
 */
let s: RawServer
beforeAll(async () => {
  s = await startRawServer()
})
afterAll(() => s.close())

const send = (lines: string[], body: string) => rawExchange(s.server.port, new TextEncoder().encode(lines.join('\r\n') + '\r\n\r\n' + body))

function expectBodyRefused(a: Awaited<ReturnType<typeof send>>, method = 'GET') {
  expect(a).toBeDefined()
  expect(a!.status).toBe(400)
  expect(leaks(a!)).toEqual([])
  if (method === 'HEAD') return
  const doc = JSON.parse(a!.body) // whole: the answer was not cut off
  expect(doc.type).toBe('/errors/validation-error')
  expect(doc.errors[0].parameter).toBe('body')
}

describe('GET and HEAD with a body', () => {
  test('the fuzzer\'s export with a malformed chunked body gets a whole 400 problem document, not a 200 cut short', async () => {
    const a = await send(
      ['GET /api/v2/photos/export/?SITE=0&CAMERAS=navcam&MIN_WIDTH=4996&FORMAT=%0B%F0%BE%BA%BD&== HTTP/1.1', 'host: 127.0.0.1', `x-api-key: ${s.key}`, 'content-type: ', 'transfer-encoding: chunked', 'connection: close'],
      'zz\r\nabc\r\n0\r\n\r\n',
    )
    expectBodyRefused(a)
  })

  test('an export with a well-formed chunked body, and a list with a Content-Length body, are refused the same way', async () => {
    expectBodyRefused(await send(['GET /api/v2/photos/export?format=ndjson HTTP/1.1', 'host: 127.0.0.1', `x-api-key: ${s.key}`, 'transfer-encoding: chunked', 'connection: close'], '3\r\nabc\r\n0\r\n\r\n'))
    expectBodyRefused(await send(['GET /api/v2/photos?per_page=1 HTTP/1.1', 'host: 127.0.0.1', `x-api-key: ${s.key}`, 'content-length: 5', 'connection: close'], 'hello'))
    expectBodyRefused(await send(['HEAD /api/v2/photos?per_page=1 HTTP/1.1', 'host: 127.0.0.1', `x-api-key: ${s.key}`, 'content-length: 5', 'connection: close'], 'hello'), 'HEAD')
  })

  test('Content-Length: 0 announces no body: the GET is answered as usual', async () => {
    const a = await send(['GET /api/v2/photos?per_page=1 HTTP/1.1', 'host: 127.0.0.1', `x-api-key: ${s.key}`, 'content-length: 0', 'connection: close'], '')
    expect(a!.status).toBe(200)
    expect(JSON.parse(a!.body).data).toHaveLength(1)
  })
})
