import { sampleTreeRss } from './tree-rss'

/**
 * This process's environment with `env` on top, for a child the bench spawns: a variable given as
 * undefined is removed from the child's environment, not passed on (NOT_SERVER_ENV, src/runtime-env.ts).
 */
export function childEnv(env: Record<string, string | undefined>): Record<string, string> {
  const merged: Record<string, string> = {}
  for (const [k, v] of Object.entries({ ...process.env, ...env })) if (v !== undefined) merged[k] = v
  return merged
}

/** Runs a probe script in a fresh bun process and reads the JSON line it prints last. */
export async function runProbe<T>(root: string, script: string, args: string[], env: Record<string, string | undefined> = {}): Promise<T> {
  return (await runProbeMeasured<T>(root, script, args, env)).value
}

/**
 * The same, also giving the probe's peak RSS: the larger of the kernel's maxrss (wait4: the
 * process and the largest child it waited for) and the largest sum over the process tree
 * sampled from /proc while it ran (children running at the same time add up).
 * A probe still running after `timeoutMs` is killed (bounded runs only).
 */
export async function runProbeMeasured<T>(root: string, script: string, args: string[], env: Record<string, string | undefined> = {}, timeoutMs = 60 * 60_000): Promise<{ value: T; peakRssMb?: number }> {
  const proc = Bun.spawn([process.execPath, script, ...args], { cwd: root, env: childEnv({ LOG_LEVEL: 'warn', ...env }), stdout: 'pipe', stderr: 'pipe' })
  const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs)
  const sampler = sampleTreeRss(proc.pid)
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]).finally(() => {
    clearTimeout(timer)
    sampler.stop()
  })
  const last = out.trim().split('\n').pop() ?? ''
  const maxRss = Math.max(proc.resourceUsage()?.maxRSS ?? 0, sampler.peak())
  const peakRssMb = maxRss ? Math.round((maxRss / 2 ** 20) * 10) / 10 : undefined
  if (code !== 0 || !last.startsWith('{')) {
    const tail = (err.trim() || out.trim()).split('\n').slice(-3).join(' | ')
    throw new Error(`${script} exited ${code ?? proc.signalCode}${peakRssMb ? ` (peak RSS ${peakRssMb} MiB)` : ''}: ${tail}`)
  }
  return { value: JSON.parse(last) as T, peakRssMb }
}
