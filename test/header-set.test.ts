import { describe, expect, test } from 'bun:test'
import { HeaderSet } from '../src/http/header-set'

/**
 * One Headers object is reused as the init of many answers (src/http/header-set.ts): no answer
 * may ever carry another answer's per-answer values, and the fields keep their declared order.
 */
const fixed = { etag: 'W/"a"', 'cache-control': 'private, max-age=60', vary: 'Accept' }
const slots = ['x-ratelimit-remaining', 'ratelimit', 'x-request-id']

describe('HeaderSet', () => {
  test('an answer built earlier keeps its own slot values when later answers fill the slots differently', () => {
    const set = new HeaderSet(fixed, slots)
    const a = set.response(null, 304, { 'x-ratelimit-remaining': '9', ratelimit: 'r=9' }, 'id-a')
    const b = set.response('body', 200, { 'x-ratelimit-remaining': '8', ratelimit: 'r=8' }, 'id-b')
    const c = set.response(null, 304, { 'x-ratelimit-remaining': '8', ratelimit: 'r=8' }, 'id-c')
    expect([a.headers.get('x-ratelimit-remaining'), a.headers.get('ratelimit'), a.headers.get('x-request-id')]).toEqual(['9', 'r=9', 'id-a'])
    expect([b.headers.get('x-ratelimit-remaining'), b.headers.get('ratelimit'), b.headers.get('x-request-id')]).toEqual(['8', 'r=8', 'id-b'])
    expect(c.headers.get('x-request-id')).toBe('id-c')
    expect(a.status).toBe(304)
    expect(b.status).toBe(200)
    for (const r of [a, b, c]) expect(r.headers.get('etag')).toBe('W/"a"')
  })

  test('a copy for an answer with fields of its own is independent of the set and of later answers', () => {
    const set = new HeaderSet(fixed, slots)
    const copy = set.copy({ 'x-ratelimit-remaining': '5', ratelimit: 'r=5' }, 'id-1')
    copy.set('cache-control', 'no-store')
    const next = set.response(null, 200, { 'x-ratelimit-remaining': '4', ratelimit: 'r=4' }, 'id-2')
    expect(copy.get('x-ratelimit-remaining')).toBe('5')
    expect(next.headers.get('cache-control')).toBe('private, max-age=60')
    expect(next.headers.get('x-ratelimit-remaining')).toBe('4')
  })

  test('a slot without a value refuses to build the answer instead of sending the previous value', () => {
    const set = new HeaderSet(fixed, slots)
    set.response(null, 200, { 'x-ratelimit-remaining': '7', ratelimit: 'r=7' }, 'id-1')
    expect(() => set.response(null, 200, { ratelimit: 'r=6' }, 'id-2')).toThrow(/x-ratelimit-remaining/)
    expect(() => set.response(null, 200, undefined, 'id-3')).toThrow(/no value/)
    expect(() => new HeaderSet(fixed, [])).toThrow()
    expect(() => new HeaderSet(fixed, ['etag'])).toThrow(/fixed/)
  })

  test('fields go on the wire in the declared order, slots after the fixed fields', async () => {
    const set = new HeaderSet({ 'content-type': 'application/json', 'x-a': '1' }, ['x-b', 'x-request-id'])
    set.response(null, 200, { 'x-b': 'first' }, 'i1')
    using server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => set.response('{}', 200, { 'x-b': 'second' }, 'i2') })
    const { connect } = await import('node:net')
    const raw = await new Promise<string>((resolve, reject) => {
      const s = connect(server.port!, '127.0.0.1', () => s.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'))
      let d = ''
      s.on('data', (c) => (d += c))
      s.on('end', () => resolve(d))
      s.on('error', reject)
    })
    const names = raw.split('\r\n\r\n')[0]!.split('\r\n').slice(1).map((l) => l.split(':')[0]!.toLowerCase())
    expect(names.filter((n) => ['content-type', 'x-a', 'x-b', 'x-request-id'].includes(n))).toEqual(['content-type', 'x-a', 'x-b', 'x-request-id'])
    expect(raw).toContain('x-b: second')
    expect(raw).toContain('x-request-id: i2')
  })
})
