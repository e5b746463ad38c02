/**
 * The export scenario's ceiling: a bare Bun.serve that streams `?bytes=N` bytes as a chunked
 * body through a direct stream (the export's own kind of body), 1 MiB per write from one
 * buffer, waiting whenever the sink says it is full. No routing, no keys, no rows: what the
 * same client reads from the same loopback when producing the bytes costs nothing.
 * Usage: bun bench/export-ceiling.ts PORT
 */
const CHUNK = 1 << 20

interface DirectController {
  write(data: Uint8Array): number | Promise<number>
  close(): void
}

export function streamBytes(total: number): ReadableStream<Uint8Array> {
  const block = new Uint8Array(CHUNK).fill(0x61)
  return new ReadableStream({
    type: 'direct',
    async pull(c: DirectController) {
      for (let left = total; left > 0; left -= CHUNK) {
        const w = c.write(left >= CHUNK ? block : block.subarray(0, left))
        if (w instanceof Promise) await w
      }
      c.close()
    },
  } as unknown as ConstructorParameters<typeof ReadableStream<Uint8Array>>[0])
}

if (import.meta.main) {
  const port = Number(process.argv[2])
  Bun.serve({
    hostname: '127.0.0.1',
    port,
    fetch(req) {
      const url = new URL(req.url)
      if (url.pathname === '/health') return new Response('ok')
      const n = Number(url.searchParams.get('bytes'))
      if (!Number.isSafeInteger(n) || n < 0) return new Response('bytes=N', { status: 400 })
      return new Response(streamBytes(n), { headers: { 'content-type': 'application/octet-stream' } })
    },
  })
}
