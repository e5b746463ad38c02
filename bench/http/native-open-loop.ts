/**
 * The open-loop generator in C (open-loop.c): the same schedule, framing and figures as
 * openLoop in open-loop.ts, without a JavaScript event loop that must spin to send on time and
 * so keeps a core busy that the server under test then lacks (2 cores here). Compiled on first
 * use with the system's C compiler into a folder keyed by the source's hash; without a compiler
 * the bench falls back to the JavaScript generator and says which one measured.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { OpenLoopRun } from '../lib/result'

const SOURCE = join(import.meta.dir, 'open-loop.c')
export const NATIVE_GENERATOR = 'C (bench/http/open-loop.c)'

/** The compiled generator, built if missing; undefined (with the reason) when there is no C compiler or it fails. */
export function nativeOpenLoopBinary(): { path: string } | { reason: string } {
  const hash = new Bun.CryptoHasher('sha256').update(readFileSync(SOURCE)).digest('hex').slice(0, 16)
  const dir = join(tmpdir(), `mars-bench-open-loop-${hash}`)
  const bin = join(dir, 'open-loop')
  if (existsSync(bin)) return { path: bin }
  const cc = Bun.which('cc') ?? Bun.which('gcc') ?? Bun.which('clang')
  if (!cc) return { reason: 'no C compiler (cc, gcc or clang) on PATH' }
  mkdirSync(dir, { recursive: true })
  // Built under a private name, then renamed: a concurrent run never executes a half-written file.
  const part = `${bin}.${process.pid}`
  const r = Bun.spawnSync([cc, '-O2', '-o', part, SOURCE], { stdout: 'pipe', stderr: 'pipe' })
  if (r.exitCode !== 0) {
    rmSync(part, { force: true })
    return { reason: `${cc} failed: ${r.stderr.toString().trim().split('\n').slice(-3).join(' ')}` }
  }
  renameSync(part, bin)
  return { path: bin }
}

/**
 * One open-loop run by the C generator against port `u.port` of 127.0.0.1 (`u` checked by
 * loopbackUrl, open-loop.ts), or undefined when it cannot be built.
 */
export async function openLoopNative(u: URL, rate: number, durationS: number, connections: number, request: Uint8Array): Promise<OpenLoopRun | undefined> {
  const built = nativeOpenLoopBinary()
  if (!('path' in built)) return undefined
  const dir = join(tmpdir(), `mars-bench-open-loop-req-${process.pid}-${Date.now()}`)
  mkdirSync(dir, { recursive: true })
  const file = join(dir, 'request')
  writeFileSync(file, request)
  try {
    const p = Bun.spawn([built.path, u.port, String(rate), String(durationS), String(connections), file], { stdout: 'pipe', stderr: 'pipe' })
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
    if (code !== 0) throw new Error(err.trim() || `the C open-loop generator exited ${code}`)
    const { scheduling, ...run } = JSON.parse(out.trim().split('\n').pop()!) as OpenLoopRun & { scheduling: string }
    return { ...run, generator: `${NATIVE_GENERATOR}, ${scheduling} scheduling` }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
