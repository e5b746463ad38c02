/**
 * wrk (Debian's package) as the load generator: bounded in time, loopback only.
 * Installs it with apt-get when missing and the bench runs as root.
 */
export interface WrkRun {
  rps: number
  p50_ms: number
  p99_ms: number
  requests: number
  /** Responses with a status outside 2xx/3xx (a 401 or 429 here means the setup is wrong). */
  bad_status: number
  socket_errors: number
}

export interface WrkOptions {
  threads: number
  connections: number
  durationS: number
  headers?: Record<string, string>
}

/** Path of wrk, installing it if needed; undefined with the reason when impossible. */
export function ensureWrk(log: (l: string) => void): { path?: string; reason?: string } {
  let path: string | undefined = Bun.which('wrk') ?? undefined
  if (path) return { path }
  if (process.getuid?.() !== 0) return { reason: 'wrk is not installed and the bench is not root (apt-get install -y wrk)' }
  log('http: installing Debian package wrk (apt-get)')
  let r = Bun.spawnSync(['apt-get', 'install', '-y', '-qq', 'wrk'], { stdout: 'ignore', stderr: 'pipe' })
  if (r.exitCode !== 0) r = Bun.spawnSync(['sh', '-c', 'apt-get update -qq && apt-get install -y -qq wrk'], { stdout: 'ignore', stderr: 'pipe' })
  path = Bun.which('wrk') ?? undefined
  return path ? { path } : { reason: `apt-get install wrk failed: ${r.stderr.toString().trim().split('\n').pop()}` }
}

export function wrkVersion(path: string): string {
  const r = Bun.spawnSync([path, '-v'], { stdout: 'pipe', stderr: 'pipe' })
  return (r.stdout.toString() + r.stderr.toString()).split('\n')[0].trim()
}

const UNIT_MS: Record<string, number> = { us: 1e-3, ms: 1, s: 1e3, m: 6e4 }
const toMs = (v: string, unit: string) => Number(v) * (UNIT_MS[unit] ?? NaN)

/** Reads wrk's --latency report. */
export function parseWrk(text: string): WrkRun {
  const pct = (p: string) => {
    const m = text.match(new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, 'm'))
    return m ? toMs(m[1], m[2]) : NaN
  }
  const rps = Number(text.match(/Requests\/sec:\s+([\d.]+)/)?.[1] ?? NaN)
  const requests = Number(text.match(/(\d+) requests in/)?.[1] ?? NaN)
  const bad = Number(text.match(/Non-2xx or 3xx responses:\s+(\d+)/)?.[1] ?? 0)
  const sock = text.match(/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/)
  const socketErrors = sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0
  return { rps, p50_ms: pct('50'), p99_ms: pct('99'), requests, bad_status: bad, socket_errors: socketErrors }
}

export async function runWrk(path: string, url: string, o: WrkOptions): Promise<WrkRun> {
  if (!/^http:\/\/127\.0\.0\.1[:/]/.test(url)) throw new Error(`refusing to load-test anything but 127.0.0.1: ${url}`)
  const args = [path, `-t${o.threads}`, `-c${o.connections}`, `-d${o.durationS}s`, '--latency', '--timeout', '5s']
  for (const [k, v] of Object.entries(o.headers ?? {})) args.push('-H', `${k}: ${v}`)
  args.push(url)
  const proc = Bun.spawn(args, { stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  if (code !== 0) throw new Error(`wrk exited ${code}: ${err.trim() || out.trim()}`)
  const run = parseWrk(out)
  if (!Number.isFinite(run.rps)) throw new Error(`could not read wrk output: ${out.slice(0, 300)}`)
  return run
}
