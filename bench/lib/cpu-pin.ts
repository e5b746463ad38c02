import { availableParallelism } from 'node:os'

/**
 * Keeping the load generator and the server under test off each other's core. On a machine
 * of two cores the generator (wrk, or the open-loop generator, which spins to send on time)
 * and the server otherwise take turns on both: every time the scheduler puts them on the same
 * core, a request waits out the other's time slice, and that wait (milliseconds) is what a p99
 * then measures. With pinning, the bench process and every generator it starts run on core 0,
 * each server (all its threads) on the last core; ours and the bare ceiling alike, so shares
 * stay like for like. On a real deployment the clients are other machines.
 *
 * On with BENCH_PIN=1 (a quiet machine: on a machine busy with other work a pinned server cannot
 * move off a busy core, and pinning makes things worse), never where `taskset` (util-linux) is
 * missing or there is one core.
 */
export interface CpuPin {
  /** Why pinning is off, or undefined when it is on. */
  off?: string
  /** Pins every thread of a started server to the server core. */
  server(pid: number): void
  /** Gives the bench process its whole machine back. */
  release(): void
}

export function pinCpus(): CpuPin {
  const cpus = availableParallelism()
  const taskset = Bun.which('taskset')
  const off = process.env.BENCH_PIN !== '1' ? 'BENCH_PIN is not 1' : !taskset ? 'taskset is not installed' : cpus < 2 ? 'one core' : undefined
  if (off || !taskset) return { off, server() {}, release() {} }
  const all = `0-${cpus - 1}`
  const set = (list: string, pid: number) => {
    const r = Bun.spawnSync([taskset, '-a', '-c', '-p', list, String(pid)], { stdout: 'ignore', stderr: 'pipe' })
    if (r.exitCode !== 0) throw new Error(`taskset ${list} ${pid}: ${r.stderr.toString().trim()}`)
  }
  // Generators are children of this process and inherit core 0 from it.
  set('0', process.pid)
  return {
    server: (pid) => set(String(cpus - 1), pid),
    release: () => set(all, process.pid),
  }
}

/** One line for a report: how the processes were placed. */
export function pinNote(pin: CpuPin): string {
  return pin.off ? `processes not pinned (${pin.off})` : 'load generators pinned to core 0 and each server to the last core (taskset)'
}
