import { readCappedBody } from '../../src/http/read-capped-body'
/**
 * The body of a dashboard form: `application/x-www-form-urlencoded` (WHATWG URL §5), at most
 * MAX_FORM_BYTES (the largest real form holds an address, a token and a CSRF token: well under
 * 1 KiB), fully arrived within `timeoutMs` (BODY_TIMEOUT_S, as for the API's bodies), so a body
 * trickled in byte by byte cannot hold a connection. Returns the fields, or the status of the
 * refusal (the caller answers it as a page): 408, 413 or 415.
 */
export const MAX_FORM_BYTES = 4096

export type FormResult = { fields: URLSearchParams } | { refused: 400 | 408 | 413 | 415 }

export async function readForm(request: Request, timeoutMs: number): Promise<FormResult> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  if (type !== 'application/x-www-form-urlencoded') return { refused: 415 }
  const body = await readCappedBody(request, MAX_FORM_BYTES, timeoutMs)
  return 'text' in body ? { fields: new URLSearchParams(body.text) } : body
}
