import { readFileSync } from 'node:fs'

/** User plus system CPU time of a process so far, ms (/proc/PID/stat utime and stime, in clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

/**
 * VmRSS and RssAnon of a process in MB. VmRSS also counts the pages of the memory-mapped index
 * it has read (file-backed, clean: the kernel drops them at will); RssAnon is the process's own
 * memory (heap, buffers, socket sinks).
 */
export function rssMb(pid: number): { rss: number; anon: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024
  return { rss: kb('VmRSS'), anon: kb('RssAnon') }
}

/** What a process used while a task ran: peak RSS and RssAnon growth over their values just before (MB), and CPU time (ms). */
export interface Usage {
  rss: number
  anon: number
  cpuMs: number
}

/** Runs `task` while the process's RSS is sampled every `everyMs`, and returns its value with the process's usage meanwhile. */
export async function whileSampled<T>(pid: number, everyMs: number, task: () => Promise<T>): Promise<{ value: T; usage: Usage }> {
  const cpu0 = cpuMs(pid)
  const before = rssMb(pid)
  let peak = before.rss
  let peakAnon = before.anon
  const sample = () => {
    const m = rssMb(pid)
    peak = Math.max(peak, m.rss)
    peakAnon = Math.max(peakAnon, m.anon)
  }
  const timer = setInterval(sample, everyMs)
  try {
    const value = await task()
    sample()
    return { value, usage: { rss: peak - before.rss, anon: peakAnon - before.anon, cpuMs: cpuMs(pid) - cpu0 } }
  } finally {
    clearInterval(timer)
  }
}
