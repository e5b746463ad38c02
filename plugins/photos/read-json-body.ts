import { ProblemError, validationError } from '../../src/http/problems'
import { readCappedBody } from '../../src/http/read-capped-body'

/**
 * The JSON body of a request, read with a byte cap and a deadline: 415 unless Content-Type is JSON
 * (`application/json` or any `+json` type, RFC 6839 §3.1), 413 past `maxBytes` (also for
 * bodies without Content-Length), 408 (RFC 9110 §15.5.9, with `Connection: close`) when the body
 * has not fully arrived `timeoutMs` after reading started, so a body trickled in byte by byte
 * cannot hold a connection, an in-flight slot and a handler; 400 (parameter `body`) when it is
 * empty, not valid JSON, or cut off by the client (src/http/read-capped-body.ts reads it).
 */
export async function readJsonBody(request: Request, maxBytes: number, timeoutMs = 0): Promise<unknown> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  if (type !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) {
    throw new ProblemError('unsupportedMediaType', 'The request body must be JSON (Content-Type: application/json).')
  }
  const text = await readCapped(request, maxBytes, timeoutMs)
  if (text.trim() === '') throw validationError([{ parameter: 'body', message: 'is empty; send {"ids": [...]}' }])
  try {
    return JSON.parse(text)
  } catch {
    throw validationError([{ parameter: 'body', message: 'is not valid JSON' }])
  }
}

async function readCapped(request: Request, maxBytes: number, timeoutMs: number): Promise<string> {
  const body = await readCappedBody(request, maxBytes, timeoutMs)
  if ('text' in body) return body.text
  if (body.refused === 413) throw new ProblemError('payloadTooLarge', `The request body is larger than the limit of ${maxBytes} bytes.`)
  if (body.refused === 408) throw new ProblemError('requestTimeout', `The request body did not arrive within ${timeoutMs / 1000} s.`, { headers: { connection: 'close' } })
  // The client went away mid-body: nobody will read the answer, but it is the client's doing, not a 500.
  throw validationError([{ parameter: 'body', message: 'was cut off: the connection closed before the body was complete' }])
}
