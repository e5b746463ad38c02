import { describe, expect, test } from 'bun:test'
import { contextOf } from '../src/http/request-context'

/** One context per Request object (src/http/request-context.ts), never shared, never visible as data. */
describe('request context', () => {
  test('each request gets its own context, the same one on every read, and a copy of a request does not inherit it', () => {
    const a = new Request('http://localhost/api/v2/rovers', { headers: { 'x-request-id': 'req-a' } })
    const b = new Request('http://localhost/api/v2/rovers', { headers: { 'x-request-id': 'req-a' } })
    const ca = contextOf(a)
    ca.route = '/api/v2/rovers'
    expect(contextOf(a)).toBe(ca)
    expect(contextOf(b)).not.toBe(ca)
    expect(contextOf(b).route).toBeUndefined()
    expect(contextOf(new Request(a)).route).toBeUndefined()
    expect(ca.id).toBe('req-a')
  })

  test('the context is not an enumerable key of the request or part of any serialisation of it', () => {
    const r = new Request('http://localhost/x')
    contextOf(r).route = 'secret-route'
    const plain = new Request('http://localhost/x')
    expect(Object.keys(r)).toEqual(Object.keys(plain))
    expect(Object.getOwnPropertyNames(r)).toEqual(Object.getOwnPropertyNames(plain))
    expect(JSON.stringify(r)).toBe(JSON.stringify(plain))
  })

  test('the lease goes back exactly once: when the answer exists, or, for a held stream, when it ends (renewed meanwhile)', () => {
    const events: string[] = []
    const lease = (name: string) => ({ release: () => void events.push(`release ${name}`), renew: (ms: number) => void events.push(`renew ${name} ${ms}`) })
    const a = contextOf(new Request('http://localhost/a'))
    a.lease = lease('a')
    a.onAnswered(() => void events.push('answered a'))
    a.answered()
    a.answered()
    expect(events).toEqual(['release a', 'answered a'])
    events.length = 0
    const b = contextOf(new Request('http://localhost/b'))
    b.lease = lease('b')
    const held = b.hold()
    b.answered() // the Response of a streamed answer exists: the slot stays held
    expect(events).toEqual([])
    held.renew(5)
    held.finish()
    held.finish()
    held.renew(6)
    expect(events).toEqual(['renew b 5', 'release b'])
  })
})
