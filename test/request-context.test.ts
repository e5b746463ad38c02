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
})
