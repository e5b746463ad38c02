import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startRawServer, type RawServer } from './support'
import { keyViolations } from '../support/fuzz-arbitraries'

/**
 * A path no route takes is answered from the path alone: outside the API a plain 404, where it
 * may be meant for the API a 401 without a key. Before, the body-size gate ran first for every
 * path, so `PATCH /.env` with a large body and no key was answered 413 (the fuzzer's key judge
 * flagged it: an answer to a keyless request that depended on something other than the route).
 */
const LIMIT = 1000
const BIG = JSON.stringify({ ids: [1], pad: 'x'.repeat(5 * LIMIT) })

let s: RawServer
beforeAll(async () => {
  s = await startRawServer({ MAX_BODY_BYTES: String(LIMIT) })
})
afterAll(async () => {
  await s.close()
})

describe('an unknown path answers the same whatever the size of its body', () => {
  test('PATCH /.env and PUT /x/health/ with a body over MAX_BODY_BYTES and no key are a plain 404, as with a small body', async () => {
    for (const [method, path] of [['PATCH', '/.env'], ['PUT', '/x/health/?sol==1'], ['POST', '/wp-login.php']] as const) {
      const big = (await s.raw(method, path, 'a:80', { 'content-type': 'application/json' }, BIG))!
      const small = (await s.raw(method, path, 'a:80', { 'content-type': 'application/json' }, '{}'))!
      expect({ path, big: big.status, small: small.status }).toEqual({ path, big: 404, small: 404 })
      expect(keyViolations(path, false, big.status, big.body)).toEqual([])
    }
  })

  test('an unknown path under /api/v2 with a large body and no key is 401, never 413', async () => {
    const a = (await s.raw('POST', '/api/v2/nothing-here', 'a:80', { 'content-type': 'application/json' }, BIG))!
    expect(a.status).toBe(401)
  })

  test('a declared route still refuses a body over MAX_BODY_BYTES with a 413 problem', async () => {
    const a = (await s.raw('POST', '/api/v2/photos/batch', 'a:80', { 'content-type': 'application/json', 'x-api-key': s.key }, BIG))!
    expect(a.status).toBe(413)
    expect(a.body).toContain('/errors/payload-too-large')
  })
})
