import { afterAll, describe, expect, test } from 'bun:test'
import { answerDifferences, answerFields, rawGet } from '../bench/http/raw-answer'

/**
 * The HTTP bench's ceiling answers the service's own bytes (bench/http/raw-answer.ts): answers are
 * read from the wire with their fields in order, and the check that ceiling and service agree
 * tolerates only the volatile fields' values (request id, rate-limit counts), nothing else.
 */
describe('bench raw answers', () => {
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname
      const headers = new Headers([
        ['content-type', 'application/json'],
        ['etag', 'W/"a"'],
        ['x-ratelimit-remaining', String(Math.floor(Math.random() * 1000))],
        ['x-request-id', crypto.randomUUID()],
      ])
      if (path === '/other-etag') headers.set('etag', 'W/"b"')
      if (path === '/no-cache') headers.append('cache-control', 'no-store')
      if (path === '/echo') headers.set('x-seen', req.headers.get('x-api-key') ?? '')
      return new Response(path === '/longer' ? '{"a":12}' : '{"a":1}', { headers })
    },
  })
  const origin = `http://127.0.0.1:${server.port}`
  afterAll(() => server.stop(true))

  test('reads status, fields in wire order (without those the server writes) and the body, sending the given headers', async () => {
    const a = await rawGet(origin, '/echo', { 'X-API-Key': 'k1' })
    expect(a.status).toBe(200)
    expect(new TextDecoder().decode(a.body)).toBe('{"a":1}')
    expect(answerFields(a).map(([k]) => k.toLowerCase())).toEqual(['content-type', 'etag', 'x-ratelimit-remaining', 'x-request-id', 'x-seen'])
    expect(answerFields(a).find(([k]) => k.toLowerCase() === 'x-seen')?.[1]).toBe('k1')
    expect(a.headers.some(([k]) => k.toLowerCase() === 'date')).toBe(true)
  })

  test('two answers differing only in the volatile fields agree; another value, a missing field or another body size does not', async () => {
    const base = await rawGet(origin, '/x')
    expect(answerDifferences(base, await rawGet(origin, '/x'))).toEqual([])
    expect(answerDifferences(base, await rawGet(origin, '/other-etag')).join('; ')).toContain('etag')
    expect(answerDifferences(base, await rawGet(origin, '/no-cache')).join('; ')).toContain('cache-control: no-store')
    expect(answerDifferences(base, await rawGet(origin, '/longer')).join('; ')).toContain('body 8 bytes, service 7')
  })

  test('refuses to ask anything but 127.0.0.1', () => {
    expect(() => rawGet('http://localhost:1', '/')).toThrow('127.0.0.1')
  })
})
