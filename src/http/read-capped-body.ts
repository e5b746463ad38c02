/**
 * A request body read with a byte cap and a deadline, the one way the service reads bodies (the
 * batch's JSON, the dashboard's forms): refused as 413 past `maxBytes` (announced by
 * Content-Length or found while reading, for bodies without it), 408 when it has not fully
 * arrived `timeoutMs` after reading started (so a body trickled in byte by byte cannot hold a
 * connection), 400 when the client cut it off. Callers render the refusal their own way.
 */
export type CappedBody = { text: string } | { refused: 400 | 408 | 413 }

/**
 * The body length a request announces (Content-Length, RFC 9110 §8.6), or undefined when it
 * announces none. The one reading of the field: the body gates and the body reader agree on it.
 * (Bun's parser refuses a malformed Content-Length before the app sees the request.)
 */
export function announcedLength(request: Request): number | undefined {
  const len = request.headers.get('content-length')
  if (len === null) return undefined
  const n = Number(len)
  return Number.isFinite(n) ? n : undefined
}

export async function readCappedBody(request: Request, maxBytes: number, timeoutMs: number): Promise<CappedBody> {
  const len = announcedLength(request)
  if (len !== undefined && len > maxBytes) return { refused: 413 }
  if (!request.body) return { text: '' }
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
        return { refused: late ? 408 : 400 }
      }
      if (late) return { refused: 408 }
      if (chunk.done) break
      total += chunk.value.byteLength
      if (total > maxBytes) {
        await reader.cancel().catch(() => {})
        return { refused: 413 }
      }
      chunks.push(chunk.value)
    }
  } finally {
    clearTimeout(timer)
  }
  const all = new Uint8Array(total)
  let at = 0
  for (const c of chunks) {
    all.set(c, at)
    at += c.byteLength
  }
  return { text: new TextDecoder().decode(all) }
}
