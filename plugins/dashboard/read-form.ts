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
  const len = Number(request.headers.get('content-length'))
  if (Number.isFinite(len) && len > MAX_FORM_BYTES) return { refused: 413 }
  if (!request.body) return { fields: new URLSearchParams() }
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  let late = false
  // At the deadline the body stream is cancelled, which ends the pending read.
  const timer = timeoutMs > 0 ? setTimeout(() => ((late = true), reader.cancel().catch(() => {})), timeoutMs) : undefined
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>
      try {
        chunk = await reader.read()
      } catch {
        return { refused: late ? 408 : 400 } // 400: the client closed the connection mid-body
      }
      if (late) return { refused: 408 }
      if (chunk.done) break
      total += chunk.value.byteLength
      if (total > MAX_FORM_BYTES) {
        await reader.cancel().catch(() => {})
        return { refused: 413 }
      }
      chunks.push(chunk.value)
    }
  } finally {
    clearTimeout(timer)
  }
  return { fields: new URLSearchParams(Buffer.concat(chunks).toString('utf8')) }
}
