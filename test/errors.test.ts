import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { t as T } from 'elysia'
import { JsonBody } from '../src/http/json-body'
import { PROBLEMS, ProblemError, notFound } from '../src/http/problems'
import { checkValue } from '../plugins/errors/explain-validation'
import { makeTestApp, type TestApp } from './setup/test-app'

/** Response JSON, untyped (tests assert on its fields). */
const json = (r: Response): Promise<any> => r.json()

/** Test-only routes: a query schema written the way resource plugins write theirs. */
const ProbeQuery = T.Object({
  sol: T.Optional(T.Integer({ minimum: 0, maximum: 2147483647 })),
  page: T.Optional(T.Integer({ minimum: 1 })),
  per_page: T.Optional(T.Numeric({ minimum: 1, maximum: 100 })),
  golden: T.Optional(T.BooleanString()),
  group_by: T.Optional(T.Union([T.Literal('camera'), T.Literal('rover'), T.Literal('sol')])),
})
const ProbeBody = T.Object({ ids: T.Array(T.Integer(), { minItems: 1, maxItems: 100 }) })

let t: TestApp
beforeAll(async () => {
  t = await makeTestApp()
  t.app.routeDocs.register({ method: 'GET', path: '/api/v2/__probe', summary: 'test-only probe', query: ProbeQuery, responses: { 200: { description: 'ok' } } })
  t.app
    .get('/api/v2/__probe', ({ query }) => new JsonBody(JSON.stringify({ data: query })), { query: ProbeQuery })
    .get('/api/v2/__unregistered', ({ query }) => new JsonBody(JSON.stringify({ data: query })), { query: T.Object({ n: T.Optional(T.Integer({ minimum: 5 })) }) })
    .get('/api/v2/__probe/:id', ({ params }) => new JsonBody(JSON.stringify({ data: params })), { params: T.Object({ id: T.Integer({ minimum: 1 }) }) })
    .post('/api/v2/__probe/batch', ({ body }) => new JsonBody(JSON.stringify({ data: body })), { body: ProbeBody })
    .get('/api/v2/__boom', () => {
      throw new Error('connection to db at 10.0.0.7 failed: password=hunter2')
    })
    .get('/api/v2/__throw-string', () => {
      throw 'just a string'
    })
    .get('/api/v2/__missing', () => {
      throw notFound('No photo with id 42.')
    })
    .get('/api/v2/__teapot', () => {
      throw new ProblemError('validation', 'Bad mix of parameters.', { errors: [{ parameter: 'a', message: 'conflicts with b' }] })
    })
})
afterAll(() => t.close())

type Problem = { type: string; title: string; status: number; detail: string; errors?: Array<{ parameter: string; message: string }>; retryAfter?: number }

function expectProblemShape(body: Problem, kind: keyof typeof PROBLEMS) {
  expect(body.type).toBe(PROBLEMS[kind].type)
  expect(body.title).toBe(PROBLEMS[kind].title)
  expect(body.status).toBe(PROBLEMS[kind].status)
  expect(typeof body.detail).toBe('string')
  expect(body.detail.length).toBeGreaterThan(0)
}

describe('400: Elysia validation passes through the problem renderer', () => {
  test('every bad query parameter is named at once, with a message from its schema', async () => {
    const r = await t.request('/api/v2/__probe?sol=-1&page=0&per_page=500&golden=yes&group_by=moon')
    expect(r.status).toBe(400)
    const body = (await json(r)) as Problem
    expectProblemShape(body, 'validation')
    expect(body.errors).toEqual([
      { parameter: 'sol', message: 'must be an integer from 0 to 2147483647' },
      { parameter: 'page', message: 'must be an integer of at least 1' },
      { parameter: 'per_page', message: 'must be a number from 1 to 100' },
      { parameter: 'golden', message: 'must be true or false' },
      { parameter: 'group_by', message: 'must be one of: camera, rover, sol' },
    ])
    expect(body.detail).toBe('The request has invalid parameters: sol, page, per_page, golden, group_by.')
  })

  test('a non-integer and an overflowing integer are both refused', async () => {
    const body = (await json(await t.request('/api/v2/__probe?sol=abc&page=1.5'))) as Problem
    expect(body.errors!.map((e) => e.parameter)).toEqual(['sol', 'page'])
  })

  test('a route whose schemas are not registered still gets a 400 naming the parameter', async () => {
    const r = await t.request('/api/v2/__unregistered?n=2')
    expect(r.status).toBe(400)
    const body = (await json(r)) as Problem
    expectProblemShape(body, 'validation')
    expect(body.errors![0]!.parameter).toBe('n')
  })

  test('a bad path parameter is a 400 naming it', async () => {
    const body = (await json(await t.request('/api/v2/__probe/abc'))) as Problem
    expect(body.status).toBe(400)
    expect(body.errors).toEqual([{ parameter: 'id', message: 'must be an integer of at least 1' }])
  })

  test('malformed JSON in a body is a 400 on `body`, never a 500', async () => {
    const r = await t.request('/api/v2/__probe/batch', { method: 'POST', body: '{"ids": [1,', headers: { 'content-type': 'application/json' } })
    expect(r.status).toBe(400)
    const body = (await json(r)) as Problem
    expectProblemShape(body, 'validation')
    expect(body.errors).toEqual([{ parameter: 'body', message: 'is not valid JSON' }])
  })

  test('a body that is not sent as JSON is a 415 problem, also when it would parse', async () => {
    for (const type of ['text/plain', 'text/csv', 'application/x-www-form-urlencoded']) {
      const r = await t.request('/api/v2/__probe/batch', { method: 'POST', body: '{"ids": [1]}', headers: { 'content-type': type } })
      expect(r.status).toBe(415)
      expectProblemShape((await json(r)) as Problem, 'unsupportedMediaType')
    }
    const ok = await t.request('/api/v2/__probe/batch', { method: 'POST', body: '{"ids": [1]}', headers: { 'content-type': 'application/json; charset=utf-8' } })
    expect(ok.status).toBe(200)
  })

  test('a body of the wrong shape is a 400 naming the field', async () => {
    const r = await t.request('/api/v2/__probe/batch', { method: 'POST', body: '{"ids": ["x"]}', headers: { 'content-type': 'application/json' } })
    expect(r.status).toBe(400)
    const body = (await json(r)) as Problem
    expect(body.errors![0]!.parameter).toStartWith('ids')
  })

  test('a ProblemError thrown by a handler is rendered with its own errors list', async () => {
    const body = (await json(await t.request('/api/v2/__teapot'))) as Problem
    expect(body).toEqual({ type: '/errors/validation-error', title: 'Validation Error', status: 400, detail: 'Bad mix of parameters.', errors: [{ parameter: 'a', message: 'conflicts with b' }] })
  })
})

describe('404 and 405', () => {
  test('an unknown path is a 404 problem document', async () => {
    const r = await t.request('/api/v2/nothing/here')
    expect(r.status).toBe(404)
    const body = (await json(r)) as Problem
    expectProblemShape(body, 'notFound')
    expect(body.detail).toBe('There is no resource at /api/v2/nothing/here.')
  })

  test('a handler not-found keeps its own detail', async () => {
    const body = (await json(await t.request('/api/v2/__missing'))) as Problem
    expect(body).toEqual({ type: '/errors/not-found', title: 'Not Found', status: 404, detail: 'No photo with id 42.' })
  })

  test('a known path with another method is a 405 with Allow (RFC 9110 §15.5.6)', async () => {
    const r = await t.request('/api/v2', { method: 'DELETE' })
    expect(r.status).toBe(405)
    expect(r.headers.get('allow')).toBe('GET, HEAD')
    expectProblemShape((await json(r)) as Problem, 'methodNotAllowed')
    const r2 = await t.request('/api/v2/__probe/batch')
    expect(r2.status).toBe(405)
    expect(r2.headers.get('allow')).toBe('POST')
  })
})

describe('500: nothing internal leaves the server', () => {
  test('a thrown Error is a generic 500 with a request id; the message and stack go to the log only', async () => {
    const r = await t.request('/api/v2/__boom')
    expect(r.status).toBe(500)
    const text = await r.text()
    expect(text).not.toContain('hunter2')
    expect(text).not.toContain('10.0.0.7')
    expect(text).not.toContain('at ')
    const body = JSON.parse(text) as Problem
    expectProblemShape(body, 'internal')
    const id = r.headers.get('x-request-id')!
    expect(id).toMatch(/^[0-9a-f-]{36}$/)
    expect(body.detail).toContain(id)
    const logged = t.logs.find((l) => l.event === 'request.failed' && l.fields.request_id === id)!
    expect(logged.level).toBe('error')
    expect(String(logged.fields.error)).toContain('hunter2')
  })

  test('a thrown non-Error value is a 500 problem too', async () => {
    const r = await t.request('/api/v2/__throw-string')
    expect(r.status).toBe(500)
    expectProblemShape((await json(r)) as Problem, 'internal')
  })

  test('errors carry the rate-limit headers but never an ETag or Cache-Control', async () => {
    for (const path of ['/api/v2/__missing', '/api/v2/__boom', '/api/v2/__probe?sol=-1']) {
      const r = await t.request(path)
      expect(r.headers.get('x-ratelimit-limit')).toBe('10000')
      expect(r.headers.get('etag')).toBeNull()
      expect(r.headers.get('cache-control')).toBeNull()
    }
  })
})

describe('413', () => {
  test('a body announced larger than MAX_BODY_BYTES is a 413 problem before it is read', async () => {
    const u = await makeTestApp({ maxBodyBytes: 100 })
    try {
      u.app.post('/api/v2/__probe/batch', ({ body }) => new JsonBody(JSON.stringify(body)), { body: ProbeBody })
      const payload = JSON.stringify({ ids: Array.from({ length: 60 }, (_, i) => i) })
      const r = await u.request('/api/v2/__probe/batch', { method: 'POST', body: payload, headers: { 'content-type': 'application/json', 'content-length': String(payload.length) } })
      expect(r.status).toBe(413)
      expectProblemShape((await json(r)) as Problem, 'payloadTooLarge')
    } finally {
      await u.close()
    }
  })
})

describe('schema reader (unit, no Elysia)', () => {
  test('Elysia coercion unions, plain TypeBox types and patterns are read correctly', () => {
    expect(checkValue(T.Integer({ minimum: 0 }), '0')).toBeUndefined()
    expect(checkValue(T.Integer({ minimum: 0 }), '-1')).toBe('must be an integer of at least 0')
    expect(checkValue(T.Integer(), '99999999999999999999')).toBe('must be an integer')
    expect(checkValue(T.Numeric({ minimum: -90, maximum: 90 }), '-90.5')).toBe('must be a number from -90 to 90')
    expect(checkValue(T.Numeric(), 'Infinity')).toBe('must be a number')
    expect(checkValue(T.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'a date YYYY-MM-DD' }), '2020-1-1')).toBe('must be a date YYYY-MM-DD')
    expect(checkValue(T.String({ maxLength: 3 }), 'abcd')).toBe('must be at most 3 characters long')
    expect(checkValue(T.String({ error: 'custom words' } as never), 'x')).toBeUndefined()
    expect(checkValue(T.Integer({ error: 'custom words' } as never), 'x')).toBe('custom words')
  })
})
