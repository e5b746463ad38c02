/**
 * The body of a dashboard form: `application/x-www-form-urlencoded` (WHATWG URL §5), at most
 * MAX_FORM_BYTES (the largest real form holds an address, a token and a CSRF token: well under
 * 1 KiB). Returns the fields, or why the body is refused (the caller answers 413/415 as a page).
 */
export const MAX_FORM_BYTES = 4096

export type FormResult = { fields: URLSearchParams } | { refused: 413 | 415 }

export async function readForm(request: Request): Promise<FormResult> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  if (type !== 'application/x-www-form-urlencoded') return { refused: 415 }
  const len = Number(request.headers.get('content-length'))
  if (Number.isFinite(len) && len > MAX_FORM_BYTES) return { refused: 413 }
  if (!request.body) return { fields: new URLSearchParams() }
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const chunk = await reader.read()
    if (chunk.done) break
    total += chunk.value.byteLength
    if (total > MAX_FORM_BYTES) {
      await reader.cancel().catch(() => {})
      return { refused: 413 }
    }
    chunks.push(chunk.value)
  }
  return { fields: new URLSearchParams(Buffer.concat(chunks).toString('utf8')) }
}
