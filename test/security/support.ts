import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KeyStore } from '../../src/keys/key-store'
import { spawnServer, type ServerProcess } from '../setup/test-app'
import { leakViolations, rawExchange, type RawAnswer } from '../support/fuzz-arbitraries'

/**
 * A real `bun app/server.ts` on a free loopback port over the real test index, with one valid key,
 * and a way to send requests byte for byte (so the Host header and the request target are exactly
 * what an attacker sends: fetch would normalise both).
 */
export interface RawServer {
  server: ServerProcess
  key: string
  /** One request on a fresh connection; undefined when the server closed it without an answer. */
  raw(method: string, target: string, host: string | undefined, headers?: Record<string, string>, body?: string): Promise<RawAnswer | undefined>
  close(): Promise<void>
}

export async function startRawServer(env: Record<string, string> = {}): Promise<RawServer> {
  const dir = mkdtempSync(join(tmpdir(), 'mv-sec-'))
  const keysDb = join(dir, 'keys.sqlite')
  const keys = KeyStore.open(keysDb)
  const key = keys.create('sec@example.com')
  keys.close()
  const server = await spawnServer({ KEYS_DB: keysDb, INDEX_DIR: process.env.INDEX_DIR!, LOG_LEVEL: 'info', ...env })
  return {
    server,
    key,
    raw(method, target, host, headers = {}, body) {
      let head = `${method} ${target} HTTP/1.1\r\n`
      if (host !== undefined) head += `Host: ${host}\r\n`
      for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`
      if (body !== undefined) head += `Content-Length: ${Buffer.byteLength(body)}\r\n`
      head += 'Connection: close\r\n\r\n'
      return rawExchange(server.port, new TextEncoder().encode(head + (body ?? '')))
    },
    async close() {
      await server.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** What an answer must never be or carry, whoever asked: HTML, a stack frame, a file path of the server (the fuzzer's rule). */
export function leaks(a: RawAnswer): string[] {
  return leakViolations(a.status, a.headers.get('content-type') ?? '', a.body)
}
