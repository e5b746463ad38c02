import type { Subprocess } from 'bun'

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = server.port
  server.stop(true)
  return port
}

/** Polls `url` until it answers 200, the process exits, or the timeout passes. */
export async function waitReady(url: string, proc: Subprocess, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (Date.now() < end) {
    if (proc.exitCode !== null) throw new Error(`process exited with ${proc.exitCode} before ${url} answered`)
    try {
      const r = await fetch(url)
      if (r.status === 200) return
    } catch {
      // not listening yet
    }
    await Bun.sleep(100)
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`)
}

/** Ends a process this bench started (by its pid), waiting for it to go. */
export async function stopProcess(proc: Subprocess | undefined): Promise<void> {
  if (!proc || proc.exitCode !== null) return
  proc.kill('SIGTERM')
  const done = await Promise.race([proc.exited.then(() => true), Bun.sleep(5000).then(() => false)])
  if (!done) proc.kill('SIGKILL')
}
