/** Runs a probe script in a fresh bun process and reads the JSON line it prints last. */
export async function runProbe<T>(root: string, script: string, args: string[], env: Record<string, string | undefined> = {}): Promise<T> {
  const proc = Bun.spawn([process.execPath, script, ...args], { cwd: root, env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdout: 'pipe', stderr: 'pipe' })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  const last = out.trim().split('\n').pop() ?? ''
  if (code !== 0 || !last.startsWith('{')) throw new Error(`${script} exited ${code}: ${(err.trim() || out.trim()).split('\n').slice(-3).join(' | ')}`)
  return JSON.parse(last) as T
}
