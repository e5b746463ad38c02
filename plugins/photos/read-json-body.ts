import { ProblemError, validationError } from '../../src/http/problems'

/**
 * The JSON body of a request, read with a byte cap: 415 unless Content-Type is JSON
 * (`application/json` or any `+json` type, RFC 6839 §3.1), 413 past `maxBytes` (also for
 * bodies without Content-Length), 400 (parameter `body`) when it is empty or not valid JSON.
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  if (type !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) {
    throw new ProblemError('unsupportedMediaType', 'The request body must be JSON (Content-Type: application/json).')
  }
  const text = await readCapped(request, maxBytes)
  if (text.trim() === '') throw validationError([{ parameter: 'body', message: 'is empty; send {"ids": [...]}' }])
  try {
    return JSON.parse(text)
  } catch {
    throw validationError([{ parameter: 'body', message: 'is not valid JSON' }])
  }
}

async function readCapped(request: Request, maxBytes: number): Promise<string> {
  const tooLarge = () => new ProblemError('payloadTooLarge', `The request body is larger than the limit of ${maxBytes} bytes.`)
  const len = Number(request.headers.get('content-length'))
  if (Number.isFinite(len) && len > maxBytes) throw tooLarge()
  if (!request.body) return ''
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      await reader.cancel().catch(() => {})
      throw tooLarge()
    }
    chunks.push(value)
  }
  const all = new Uint8Array(total)
  let at = 0
  for (const c of chunks) { all.set(c, at); at += c.byteLength }
  return new TextDecoder().decode(all)
}
